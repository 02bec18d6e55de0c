"""Every API view answers a query parameter it does not take with a 400 naming it and the
parameters it takes; those it takes are the ones its OpenAPI operation lists."""

import pytest
from django.urls import resolve

from tests.builders import import_records, make_record

pytestmark = pytest.mark.django_db


@pytest.fixture
def entry_id() -> str:
    record = make_record("Checkpoint failed.")
    import_records(record)
    return record["id"]


def refused(response, name: str) -> list[str]:
    assert response.status_code == 400, response.content
    assert response["Content-Type"] == "application/json"
    body = response.json()
    assert list(body["errors"]) == [name]
    return body["errors"][name]


def test_it_refuses_an_unknown_parameter_of_the_list(client):
    (message,) = refused(client.get("/api/errors/?repo=acme/rocket&sevrity=high"), "sevrity")
    assert "It takes:" in message
    for name in ("page", "pageSize", "repo", "severity", "tag"):
        assert name in message


def test_it_refuses_an_unknown_parameter_of_one_entry(client, entry_id):
    (message,) = refused(client.get(f"/api/errors/{entry_id}?verbose=1"), "verbose")
    assert message == "Not a parameter of this address. It takes: release."


def test_it_refuses_an_unknown_parameter_of_an_entrys_runs(client, entry_id):
    (message,) = refused(client.get(f"/api/errors/{entry_id}/runs?limit=5"), "limit")
    assert message == "Not a parameter of this address. It takes: page."


def test_it_refuses_an_unknown_parameter_of_search(client):
    (message,) = refused(client.get("/api/search?q=checkpoint&query=checkpoint"), "query")
    assert "page, pageSize, q" in message


def test_it_refuses_a_query_parameter_of_the_lookup(client):
    response = client.post("/api/lookup?release=0.19.1", {"text": "x"}, "application/json")
    (message,) = refused(response, "release")
    assert message == "Not a parameter of this address. It takes: none."


def test_it_names_each_unknown_parameter(client):
    body = client.get("/api/errors/?a=1&b=2&page=1").json()
    assert sorted(body["errors"]) == ["a", "b"]


def test_it_still_answers_the_parameters_each_view_takes(client, entry_id):
    assert client.get("/api/errors/?page=1&pageSize=5&severity=error").status_code == 200
    assert client.get(f"/api/errors/{entry_id}?release=0.19.1").status_code == 200
    assert client.get(f"/api/errors/{entry_id}/runs?page=1").status_code == 200
    assert client.get("/api/search?q=checkpoint&page=1&pageSize=5").status_code == 200


def test_it_takes_the_query_parameters_the_openapi_document_lists(client, entry_id):
    document = client.get("/api/schema/?format=json").json()
    checked = 0
    for template, operations in document["paths"].items():
        path = template.replace("{id}", entry_id)
        view = resolve(path).func.view_class()
        for method, operation in operations.items():
            listed = {
                parameter["name"]
                for parameter in operation.get("parameters", [])
                if parameter["in"] == "query"
            }
            assert listed == view.accepted_query_parameters(), f"{method} {template}"
            checked += 1
    assert checked >= 5
