"""python manage.py import_errors: what it accepts, and how it refuses bad input."""

import json

import pytest
from django.core.management import CommandError, call_command

from errorkb.kb.dataset.import_export import dumps_dataset, export_dataset
from errorkb.kb.models import ErrorEntry
from tests.builders import import_records, make_record, write_json

pytestmark = pytest.mark.django_db


def run_import(*paths) -> str:
    from io import StringIO

    out = StringIO()
    call_command("import_errors", *map(str, paths), stdout=out)
    return out.getvalue()


@pytest.fixture
def existing():
    """A database that already holds one entry, to prove bad imports leave it alone."""
    import_records(make_record("Existing entry."))
    return dumps_dataset(export_dataset())


def assert_refused(path, existing, *expected):
    with pytest.raises(CommandError) as caught:
        run_import(path)
    message = str(caught.value)
    for part in (str(path), *expected):
        assert part in message, message
    assert dumps_dataset(export_dataset()) == existing


def test_it_imports_an_api_response(tmp_path):
    record = make_record()
    path = write_json(tmp_path / "one.json", {"record": record, "datasetVersion": "v1"})
    assert "1 created" in run_import(path)
    assert ErrorEntry.objects.get(id=record["id"]).dataset_version == "v1"


def test_it_imports_a_list_of_records(tmp_path):
    path = write_json(tmp_path / "list.json", [make_record("One."), make_record("Two.")])
    assert "2 created" in run_import(path)
    assert ErrorEntry.objects.count() == 2


def test_it_imports_an_export_dump(tmp_path):
    dump = {"datasetVersion": "v2", "records": [make_record("One.")]}
    assert "1 created" in run_import(write_json(tmp_path / "dump.json", dump))


def test_it_updates_by_id_and_reports_unchanged(tmp_path):
    record = make_record()
    path = write_json(tmp_path / "a.json", [record])
    run_import(path)
    assert "1 unchanged" in run_import(path)
    record["documentation"] = "Rewritten."
    assert "1 updated" in run_import(write_json(tmp_path / "b.json", [record]))
    assert ErrorEntry.objects.get(id=record["id"]).documentation == "Rewritten."


def test_it_keeps_null_and_empty_apart(tmp_path):
    record = make_record(errorCode="", errorClass=None, exampleFix="")
    run_import(write_json(tmp_path / "a.json", [record]))
    entry = ErrorEntry.objects.get(id=record["id"])
    assert (entry.error_code, entry.error_class, entry.example_fix) == ("", None, "")


def test_it_refuses_a_file_that_is_not_json(tmp_path, existing):
    path = tmp_path / "broken.json"
    path.write_text('{"record": ', encoding="utf-8")
    assert_refused(path, existing, "not valid JSON")


def test_it_refuses_a_missing_field(tmp_path, existing):
    record = make_record()
    del record["severity"]
    path = write_json(tmp_path / "a.json", [record])
    assert_refused(path, existing, record["id"], "'severity'", "missing")


def test_it_refuses_a_mistyped_field(tmp_path, existing):
    record = make_record(lineNumber="12")
    path = write_json(tmp_path / "a.json", [record])
    assert_refused(path, existing, record["id"], "'lineNumber'", "must be an integer")


def test_it_refuses_a_list_field_holding_a_non_string(tmp_path, existing):
    path = write_json(tmp_path / "a.json", [make_record(solutions=["ok", 3])])
    assert_refused(path, existing, "'solutions'", "array of strings")


def test_it_refuses_a_pattern_that_does_not_compile(tmp_path, existing):
    record = make_record(messagePattern="Can save (model")
    path = write_json(tmp_path / "a.json", [record])
    assert_refused(path, existing, record["id"], "'messagePattern'", "does not compile")


def test_it_refuses_an_unknown_schema_version(tmp_path, existing):
    record = make_record(schemaVersion=3)
    path = write_json(tmp_path / "a.json", [record])
    assert_refused(path, existing, record["id"], "'schemaVersion'", "unsupported")


def test_it_refuses_an_id_of_the_wrong_shape(tmp_path, existing):
    path = write_json(tmp_path / "a.json", [make_record(), make_record("Two.", id="D46A3AC9")])
    assert_refused(path, existing, "D46A3AC9 (#1)", "'id'", "16 lowercase hex")


def test_it_names_the_record_by_index_when_it_has_no_id(tmp_path, existing):
    record = make_record()
    del record["id"]
    path = write_json(tmp_path / "a.json", [make_record("Fine."), record])
    assert_refused(path, existing, "record #1", "'id'", "missing")


def test_it_refuses_an_unknown_field(tmp_path, existing):
    path = write_json(tmp_path / "a.json", [make_record(errorMesage="typo")])
    assert_refused(path, existing, "'errorMesage'", "unknown field")


def test_it_refuses_a_related_entry_that_does_not_exist(tmp_path, existing):
    path = write_json(tmp_path / "a.json", [make_record(related=["0123456789abcdef"])])
    assert_refused(path, existing, "'related'", "unknown entry")


def test_it_refuses_a_slug_taken_by_another_entry(tmp_path, existing):
    path = write_json(tmp_path / "a.json", [make_record("Other.", slug="existing-entry")])
    assert_refused(path, existing, "'slug'", "already used")


def test_it_writes_nothing_when_a_later_record_is_bad(tmp_path, existing):
    path = write_json(tmp_path / "a.json", [make_record("Good."), make_record(severity="loud")])
    assert_refused(path, existing, "record ", "'severity'")


def test_it_writes_nothing_when_a_later_file_is_bad(tmp_path, existing):
    good = write_json(tmp_path / "good.json", [make_record("Good.")])
    bad = write_json(tmp_path / "bad.json", [make_record(related=["0123456789abcdef"])])
    with pytest.raises(CommandError, match="bad.json"):
        run_import(good, bad)
    assert dumps_dataset(export_dataset()) == existing


def test_it_refuses_a_top_level_it_does_not_know(tmp_path, existing):
    assert_refused(write_json(tmp_path / "a.json", {"entries": []}), existing, "'records'")


def test_it_refuses_a_missing_file(tmp_path):
    with pytest.raises(CommandError, match="cannot read"):
        run_import(tmp_path / "absent.json")


def test_it_links_related_entries_in_order(tmp_path):
    a, b, c = make_record("A."), make_record("B."), make_record("C.")
    a["related"] = [c["id"], b["id"]]
    run_import(write_json(tmp_path / "a.json", [a, b, c]))
    assert ErrorEntry.objects.for_record().get(id=a["id"]).related_ids == [c["id"], b["id"]]


def test_its_dataset_file_is_plain_json(tmp_path):
    # The export format written by dumps_dataset must be what json.loads reads back.
    import_records(make_record())
    assert json.loads(dumps_dataset(export_dataset()))["records"][0]["status"] == "published"
