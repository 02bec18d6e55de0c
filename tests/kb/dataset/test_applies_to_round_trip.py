"""appliesTo survives import and export byte for byte; records without it export unchanged."""

import json

import pytest

from errorkb.kb.dataset.files import parse_dataset
from errorkb.kb.dataset.import_export import export_dataset, plan_import
from errorkb.kb.models import ErrorEntry
from tests.builders import applies_to_row, import_records, make_record, raised_row
from tests.kb.dataset.test_export_errors import assert_round_trip

pytestmark = pytest.mark.django_db


def exported(record_id: str) -> dict:
    return next(r for r in export_dataset()["records"] if r["id"] == record_id)


def test_it_round_trips_records_with_and_without_the_key(tmp_path):
    import_records(
        make_record("With rows.", appliesTo=[raised_row(note="é \u2028 <b>"), applies_to_row()]),
        make_record("Empty list.", appliesTo=[]),
        make_record("No key."),
    )
    dump = json.loads(assert_round_trip(tmp_path).read_text())
    by_message = {r["errorMessage"]: r for r in dump["records"]}
    assert by_message["Empty list."]["appliesTo"] == []
    assert "appliesTo" not in by_message["No key."]


def test_it_writes_the_key_last_after_related_and_status():
    record = make_record("With rows.", appliesTo=[raised_row()])
    import_records(record)
    assert list(exported(record["id"]))[-3:] == ["related", "status", "appliesTo"]


def test_a_record_without_the_key_exports_exactly_as_before():
    record = make_record("Old record.")
    import_records(record)
    assert list(exported(record["id"])) == [*record, "related", "status"]


def test_it_writes_a_row_in_the_record_order_whatever_the_stored_order():
    record = make_record("Stored.", appliesTo=[raised_row()])
    import_records(record)
    # As PostgreSQL's jsonb could hand it back: keys in another order.
    shuffled = dict(sorted(raised_row().items()))
    ErrorEntry.objects.filter(pk=record["id"]).update(applies_to=[shuffled])
    assert list(exported(record["id"])["appliesTo"][0]) == list(raised_row())


def test_reimporting_without_the_key_clears_it_and_with_a_change_updates_it():
    record = make_record("Changes.", appliesTo=[raised_row()])
    import_records(record)
    import_records({**record, "appliesTo": [raised_row(), applies_to_row()]})
    assert len(ErrorEntry.objects.get(pk=record["id"]).applies_to) == 2
    del record["appliesTo"]
    import_records(record)
    assert ErrorEntry.objects.get(pk=record["id"]).applies_to is None


def test_an_identical_reimport_changes_nothing_and_a_changed_one_names_the_key():
    record = make_record("Same.", appliesTo=[raised_row()])
    import_records(record)
    assert [c.action for c in plan_import(parse_dataset([record]))] == ["unchanged"]
    changed = plan_import(parse_dataset([{**record, "appliesTo": []}]))[0]
    assert (changed.action, changed.changed) == ("updated", ["appliesTo"])
