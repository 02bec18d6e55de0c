"""python manage.py export_errors: a stable dump that round-trips byte for byte."""

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from errorkb.kb.models import ErrorEntry, RelatedLink, Repository, Tag
from tests.builders import DEMO_DATASET, import_records, make_record

pytestmark = pytest.mark.django_db


def export(path="-") -> str:
    out = StringIO()
    call_command("export_errors", str(path), stdout=out, stderr=StringIO())
    return out.getvalue()


def empty_database():
    RelatedLink.objects.all().delete()
    ErrorEntry.objects.all().delete()
    Tag.objects.all().delete()
    Repository.objects.all().delete()


def assert_round_trip(tmp_path):
    first = tmp_path / "first.json"
    call_command("export_errors", str(first), stderr=StringIO())
    empty_database()
    call_command("import_errors", str(first), stdout=StringIO())
    second = tmp_path / "second.json"
    call_command("export_errors", str(second), stderr=StringIO())
    assert second.read_bytes() == first.read_bytes()
    return first


def test_it_round_trips_byte_for_byte(tmp_path):
    a, b = make_record("A.", errorCode="", exampleFix=None), make_record("B.", status="draft")
    a["related"] = [b["id"]]
    b["related"] = [a["id"]]
    import_records(a, b, make_record("C <é> \u2028", slug="c", messagePattern="C"))
    dump = json.loads(assert_round_trip(tmp_path).read_text())
    assert [r["status"] for r in dump["records"]].count("draft") == 1


def test_it_round_trips_the_demo_dataset(tmp_path):
    call_command("import_errors", str(DEMO_DATASET), stdout=StringIO())
    assert_round_trip(tmp_path)


def test_it_writes_records_in_id_order_with_the_dataset_version():
    import_records(make_record("One."), make_record("Two."), version="2026-10-02T00:00:00.000Z")
    dump = json.loads(export())
    assert dump["datasetVersion"] == "2026-10-02T00:00:00.000Z"
    ids = [r["id"] for r in dump["records"]]
    assert ids == sorted(ids)


def test_it_exports_an_empty_database():
    assert json.loads(export()) == {"datasetVersion": None, "records": []}


def test_it_refuses_an_unwritable_path(tmp_path):
    with pytest.raises(CommandError, match="cannot write"):
        export(tmp_path / "missing-dir" / "dump.json")
