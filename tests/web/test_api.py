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
    assert "severity" in response.json()["errors"]


@pytest.mark.parametrize("value", ["null", "0", "-1", "abc", "1.5", "", "501"])
def test_it_refuses_a_page_size_the_schema_forbids(client, value):
    import_records(make_record())
    response = client.get(f"/api/errors/?pageSize={value}")
    assert response.status_code == 400
    assert list(response.json()["errors"]) == ["pageSize"]


def test_it_accepts_the_largest_page_size(client):
    import_records(make_record())
    assert client.get("/api/errors/?pageSize=500").status_code == 200


@pytest.mark.parametrize("value", ["null", "0", "-1", "abc", "", "last"])
def test_it_refuses_a_page_number_the_schema_forbids(client, value):
    import_records(make_record())
    response = client.get(f"/api/errors/?page={value}")
    assert response.status_code == 400
    assert list(response.json()["errors"]) == ["page"]


def test_it_answers_404_for_a_page_past_the_last(client):
    import_records(make_record())
    response = client.get("/api/errors/?page=2")
    assert response.status_code == 404
    assert response.json() == {"detail": "Invalid page.", "errors": {}}


@pytest.mark.parametrize("value", ["acme", "acme/rocket/extra", "/rocket", "acme/ro cket"])
def test_it_refuses_a_repo_that_is_not_owner_slash_name(client, value):
    response = client.get("/api/errors/", {"repo": value})
    assert response.status_code == 400
    assert list(response.json()["errors"]) == ["repo"]


@pytest.mark.parametrize("name", ["repo", "tag", "severity", "errorType"])
def test_it_refuses_a_filter_given_without_a_value(client, name):
    response = client.get(f"/api/errors/?{name}=")
    assert response.status_code == 400
    assert list(response.json()["errors"]) == [name]


@pytest.mark.parametrize(
    "method, address",
    [
        ("get", "/api/errors/?severity=loud"),
        ("get", "/api/errors/?pageSize=0"),
        ("get", "/api/errors/0123456789abcdef"),
        ("get", "/api/errors/0123456789abcdef/runs"),
        ("delete", "/api/errors/0123456789abcdef"),
    ],
)
def test_its_errors_share_one_body(client, method, address):
    body = getattr(client, method)(address).json()
    assert set(body) == {"detail", "errors"}
    assert isinstance(body["detail"], str) and body["detail"]
    assert all(
        isinstance(messages, list) and all(isinstance(m, str) for m in messages)
        for messages in body["errors"].values()
    )


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


def _operation(schema: dict, path: str) -> dict:
    return schema["paths"][path]["get"]


def test_its_openapi_document_declares_every_status_with_its_error_body(client):
    schema = client.get("/api/schema/?format=json").json()
    error_body = {"$ref": "#/components/schemas/ErrorBody"}
    declared = {
        "/api/errors/": {"200", "304", "400", "404", "414"},
        "/api/errors/{id}/": {"200", "304", "400", "404", "414"},
        "/api/errors/{id}/runs/": {"200", "304", "400", "404", "414"},
    }
    for path, statuses in declared.items():
        responses = _operation(schema, path)["responses"]
        assert set(responses) == statuses, path
        for status in statuses & {"400", "404"}:
            assert responses[status]["content"]["application/json"]["schema"] == error_body
    assert set(schema["components"]["schemas"]["ErrorBody"]["properties"]) == {"detail", "errors"}


def test_its_openapi_document_declares_the_real_bounds_of_the_list(client):
    schema = client.get("/api/schema/?format=json").json()
    parameters = {p["name"]: p for p in _operation(schema, "/api/errors/")["parameters"]}
    assert parameters["pageSize"]["schema"] == {"type": "integer", "minimum": 1, "maximum": 500}
    assert parameters["page"]["schema"] == {"type": "integer", "minimum": 1}
    assert parameters["severity"]["schema"]["enum"] == ["critical", "error", "info", "warning"]
    assert parameters["repo"]["schema"]["pattern"] == "^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$"
    assert parameters["If-None-Match"]["in"] == "header"
    assert not parameters["If-None-Match"].get("required", False)


def test_its_docs_page_fetches_nothing_from_outside(client):
    html = client.get("/api/docs/").content.decode()
    addresses = re.findall(r"""(?:src|href)\s*=\s*["']([^"']+)""", html)
    assert addresses, "the docs page should reference its assets"
    assert all(a.startswith("/") for a in addresses), addresses
    for address in addresses:
        assert client.get(address).status_code == 200, address
