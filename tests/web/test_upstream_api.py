"""The API serves raisedIn and removedUpstream in the record, documents them, filters by them."""

import pytest

from tests.builders import import_records, make_record
from tests.scanned import raised_in_row, removed

pytestmark = pytest.mark.django_db


@pytest.fixture
def gone_and_kept():
    gone = make_record("Gone.", raisedIn=[], removedUpstream=removed(last_release=None))
    kept = make_record("Kept.", raisedIn=[raised_in_row("0.13.0"), raised_in_row("0.14.0", 64)])
    plain = make_record("Never scanned.")
    return import_records(gone, kept, plain)


def record_of(client, entry) -> dict:
    response = client.get(f"/api/errors/{entry.id}")
    assert response.status_code == 200
    return response.json()["record"]


def test_the_record_carries_the_rows_and_the_removal_exactly(client, gone_and_kept):
    gone, kept, plain = gone_and_kept
    assert record_of(client, kept)["raisedIn"] == [
        raised_in_row("0.13.0"),
        raised_in_row("0.14.0", 64),
    ]
    assert "removedUpstream" not in record_of(client, kept)
    assert record_of(client, gone)["raisedIn"] == []
    assert record_of(client, gone)["removedUpstream"] == {
        "commit": "c" * 40,
        "lastCommit": "d" * 40,
        "lastRelease": None,
    }
    assert {"raisedIn", "removedUpstream"}.isdisjoint(record_of(client, plain))


def messages(client, query: dict) -> list[str]:
    response = client.get("/api/errors/", query)
    assert response.status_code == 200, response.content
    return [record["errorMessage"] for record in response.json()["results"]]


def test_the_list_filters_by_removal(client, gone_and_kept):
    assert messages(client, {"removedUpstream": "true"}) == ["Gone."]
    assert sorted(messages(client, {"removedUpstream": "false"})) == ["Kept.", "Never scanned."]
    assert len(messages(client, {})) == 3


@pytest.mark.parametrize("value", ["", "yes", "1", "TRUE"])
def test_the_list_refuses_a_removal_filter_that_is_not_true_or_false(client, db, value):
    response = client.get("/api/errors/", {"removedUpstream": value})
    assert response.status_code == 400
    assert "removedUpstream" in response.json()["errors"]


def test_the_openapi_document_describes_both_keys_and_the_filter(client):
    document = client.get("/api/schema/?format=json").json()
    schemas = document["components"]["schemas"]
    record = schemas["ErrorRecord"]["properties"]
    assert record["raisedIn"]["type"] == "array"
    assert record["raisedIn"]["items"]["$ref"].endswith("/RaisedInRow")
    assert set(schemas["RaisedInRow"]["required"]) == {
        "release",
        "commit",
        "filePath",
        "lineNumber",
    }
    assert record["removedUpstream"]["nullable"] is True
    assert record["removedUpstream"]["allOf"][0]["$ref"].endswith("/RemovedUpstream")
    removal = schemas["RemovedUpstream"]["properties"]
    assert removal["lastCommit"]["nullable"] and removal["lastRelease"]["nullable"]
    assert not {"raisedIn", "removedUpstream"} & set(schemas["ErrorRecord"]["required"])
    parameters = document["paths"]["/api/errors/"]["get"]["parameters"]
    assert {"name": "removedUpstream", "type": "boolean"} in [
        {"name": p["name"], "type": p["schema"]["type"]} for p in parameters
    ]
