"""GET /api/errors/<id> serves appliesTo inside the record, and the OpenAPI document names it."""

import pytest

from tests.builders import applies_to_row, import_records, make_record, raised_row

pytestmark = pytest.mark.django_db


def test_it_serves_the_rows_inside_the_record(client):
    rows = [raised_row(note="Only with a hand-built checkpointer."), applies_to_row()]
    record = make_record("Can save model checkpoint.", appliesTo=rows)
    import_records(record)
    body = client.get(f"/api/errors/{record['id']}").json()
    assert body["record"]["appliesTo"] == rows
    assert list(body["record"])[-1] == "appliesTo"
    assert "status" not in body["record"]


def test_it_leaves_the_key_out_when_the_entry_does_not_state_it(client):
    record = make_record()
    import_records(record)
    assert "appliesTo" not in client.get(f"/api/errors/{record['id']}").json()["record"]


def test_it_serves_an_empty_list_as_stated(client):
    record = make_record(appliesTo=[])
    import_records(record)
    assert client.get(f"/api/errors/{record['id']}").json()["record"]["appliesTo"] == []


def test_the_list_serves_the_rows_too(client):
    record = make_record(appliesTo=[raised_row()])
    import_records(record)
    assert client.get("/api/errors/").json()["results"][0]["appliesTo"] == [raised_row()]


def test_the_openapi_document_describes_the_rows_as_optional(client):
    schema = client.get("/api/schema/?format=json").json()["components"]["schemas"]
    record = schema["ErrorRecord"]
    assert "appliesTo" in record["properties"]
    assert "appliesTo" not in record.get("required", [])
    row = schema["AppliesToRow"]
    assert set(row["required"]) == {
        "versions", "setup", "outcome", "seen", "filePath", "lineNumber", "commit",
    }  # fmt: skip
    assert "note" in row["properties"]
