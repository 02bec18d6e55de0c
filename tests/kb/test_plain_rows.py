"""Plain SQL rows read back as the ORM reads them: converted values and instances alike."""

import pytest
from django.db.models.signals import post_init, pre_init

from errorkb.kb import plain_rows
from errorkb.kb.models import EntryTag, ErrorEntry, RelatedLink, Repository, Tag
from errorkb.kb.neighbours import published_entry
from errorkb.verification.models import Scenario, VerificationRun
from tests.builders import import_records, make_record
from tests.verification.builders import link_scenario, record_run

pytestmark = pytest.mark.django_db

# What plain_rows.instance builds, skipping Model.__init__ and the signals it sends.
BUILT_PLAINLY = (ErrorEntry, Repository, EntryTag, Tag, RelatedLink, Scenario, VerificationRun)


@pytest.mark.parametrize("model", BUILT_PLAINLY, ids=lambda model: model.__name__)
def test_no_model_it_builds_has_init_receivers_it_would_skip(model):
    assert not pre_init.has_listeners(model)
    assert not post_init.has_listeners(model)


def test_a_published_entry_read_plainly_equals_the_orm_entry_field_by_field():
    record = make_record("Plain read failed.", tags=["io"])
    import_records(record)
    plain = published_entry(record["id"])
    orm = ErrorEntry.objects.select_related("repository").get(pk=record["id"])
    for field in ErrorEntry._meta.concrete_fields:
        assert getattr(plain, field.attname) == getattr(orm, field.attname), field.name
    assert plain.repository.full_name == orm.repository.full_name
    assert plain._state.adding is False and plain._state.db == orm._state.db
    assert plain.get_deferred_fields() == set()


def test_a_json_column_and_a_timestamp_are_converted_as_the_orm_converts_them():
    record = make_record("Converted failed.")
    import_records(record)
    entry = ErrorEntry.objects.get(pk=record["id"])
    run = record_run(entry, link_scenario(entry), "reproduced", "Converted failed.")
    run.texts = ["first line", {"nested": [1, 2]}]
    run.save()
    fields = ("id", "texts", "started_at", "pattern_matched")
    sql = f"SELECT {', '.join(fields)} FROM {VerificationRun._meta.db_table} WHERE id = %s"
    rows = plain_rows.fetch(VerificationRun, sql, [run.pk])
    [row] = plain_rows.named(VerificationRun, fields, rows)
    expected = VerificationRun.objects.values_list(*fields, named=True).get(pk=run.pk)
    assert row == expected
    assert row.texts == ["first line", {"nested": [1, 2]}]


def test_a_field_not_read_is_deferred_and_loads_when_asked_for():
    record = make_record("Deferred failed.")
    import_records(record)
    entry = plain_rows.instance(ErrorEntry, ("id", "slug"), (record["id"], record["slug"]))
    assert "error_message" in entry.get_deferred_fields()
    assert entry.error_message == "Deferred failed."


def test_linked_scenarios_read_plainly_equal_the_orm_scenarios():
    from errorkb.verification.state import _linked_scenarios

    record = make_record("Scenario read failed.")
    import_records(record)
    entry = ErrorEntry.objects.get(pk=record["id"])
    link_scenario(entry, citations=["crates/burn/src/a.rs:1@" + "a" * 40])
    [plain] = _linked_scenarios(entry)
    [orm] = entry.scenarios.all()
    for field in Scenario._meta.concrete_fields:
        assert getattr(plain, field.attname) == getattr(orm, field.attname), field.name
