"""Exporting selected entries from the admin gives a dataset file that imports again."""

import json

import pytest

from errorkb.kb.dataset.files import parse_dataset
from tests.admin.admin_client import client_for
from tests.builders import import_records, make_record
from tests.kb.people import curator

pytestmark = pytest.mark.django_db


def test_export_selected_downloads_just_those_entries_as_a_dataset():
    one, two, _three = import_records(
        make_record("One.", status="draft"), make_record("Two."), make_record("Three.")
    )
    response = client_for(curator()).post(
        "/admin/kb/errorentry/", {"action": "export_selected", "_selected_action": [one.pk, two.pk]}
    )
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert response["Content-Disposition"].startswith('attachment; filename="errorkb-')
    data = json.loads(response.content)
    assert [r["id"] for r in data["records"]] == sorted([one.pk, two.pk])
    assert {r["id"]: r["status"] for r in data["records"]}[one.pk] == "draft"
    assert len(parse_dataset(data).records) == 2
