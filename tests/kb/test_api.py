"""The JSON API: /api/errors/<id>, the filtered list, and the OpenAPI document."""

import re

import pytest

from errorkb.kb.models import ErrorEntry
from tests.builders import import_records, make_record

pytestmark = pytest.mark.django_db


def test_it_returns_the_record_and_dataset_version(client):
    record = make_record()
    import_records(record, version="2026-10-01T00:00:00.000Z")
    body = client.get(f"/api/errors/{record['id']}").json()
    assert body["datasetVersion"] == "2026-10-01T00:00:00.000Z"
    assert {k: body["record"][k] for k in record} == record
    assert body["record"]["related"] == []


def test_it_accepts_a_trailing_slash(client):
    record = make_record()
    import_records(record)
    assert client.get(f"/api/errors/{record['id']}/").status_code == 200


def test_it_returns_404_for_unknown_id_as_json(client):
    response = client.get("/api/errors/0123456789abcdef")
    assert response.status_code == 404
    assert response["Content-Type"] == "application/json"
    assert "0123456789abcdef" in response.json()["detail"]


def test_it_hides_draft_and_retired_entries(client):
    draft, retired = make_record("Draft.", status="draft"), make_record("Old.", status="retired")
    import_records(draft, retired)
    assert client.get(f"/api/errors/{draft['id']}").status_code == 404
    assert client.get(f"/api/errors/{retired['id']}").status_code == 404
    assert client.get("/api/errors/").json()["count"] == 0


def test_it_lists_related_entries_in_both_directions(client):
    a, b, c = make_record("A."), make_record("B."), make_record("C.")
    a["related"] = [b["id"]]
    c["related"] = [a["id"]]
    import_records(a, b, c)
    related = client.get(f"/api/errors/{a['id']}").json()["relatedEntries"]
    assert [r["id"] for r in related] == [b["id"], c["id"]]
    assert related[0]["url"] == f"/api/errors/{b['id']}"


def test_it_lists_entries_in_a_stable_order(client):
    records = [make_record(f"Message {n}.") for n in range(5)]
    import_records(*records)
    body = client.get("/api/errors/").json()
    assert body["count"] == 5
    assert [r["id"] for r in body["results"]] == sorted(r["id"] for r in records)


def test_it_paginates_the_list(client):
    import_records(*[make_record(f"Message {n}.") for n in range(3)])
    first = client.get("/api/errors/?pageSize=2").json()
    assert len(first["results"]) == 2 and first["next"]
    second = client.get(first["next"]).json()
    assert len(second["results"]) == 1 and second["next"] is None


@pytest.mark.parametrize(
    "query, expected",
    [
        ("repo=acme/rocket", {"Rocket."}),
        ("repo=acme/boat", {"Boat."}),
        ("tag=disk-full", {"Boat."}),
        ("severity=warning", {"Rocket."}),
        ("errorType=exception", {"Boat."}),
        ("repo=acme/boat&severity=warning", set()),
    ],
)
def test_it_filters_the_list(client, query, expected):
    import_records(
        make_record("Rocket.", severity="warning"),
        make_record("Boat.", repo="acme/boat", tags=["disk-full"], errorType="exception"),
    )
    results = client.get(f"/api/errors/?{query}").json()["results"]
    assert {r["errorMessage"] for r in results} == expected


def test_it_rejects_an_unknown_severity_filter(client):
    response = client.get("/api/errors/?severity=loud")
    assert response.status_code == 400
    assert "severity" in response.json()


def test_it_refuses_writes(client):
    record = make_record()
    import_records(record)
    assert client.delete(f"/api/errors/{record['id']}").status_code == 405
    assert client.post("/api/errors/", {}, content_type="application/json").status_code == 405
    assert ErrorEntry.objects.count() == 1


def test_it_serves_an_openapi_document_describing_the_record(client):
    response = client.get("/api/schema/?format=json")
    assert response.status_code == 200
    schema = response.json()
    assert "/api/errors/{pk}" in schema["paths"] or any("errors" in p for p in schema["paths"])
    record = schema["components"]["schemas"]["ErrorRecord"]["properties"]
    assert {"messagePattern", "preventionTips", "schemaVersion"} <= set(record)


def test_its_docs_page_fetches_nothing_from_outside(client):
    html = client.get("/api/docs/").content.decode()
    addresses = re.findall(r"""(?:src|href)\s*=\s*["']([^"']+)""", html)
    assert addresses, "the docs page should reference its assets"
    assert all(a.startswith("/") for a in addresses), addresses
    for address in addresses:
        assert client.get(address).status_code == 200, address
