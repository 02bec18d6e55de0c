"""The API answers as its OpenAPI document says: schemathesis, in process, every check.

Each operation of /api/schema/ gets its examples, boundary cases (the coverage phase) and
generated requests, valid and invalid, against the plain Django WSGI application, and
every built-in check judges each answer.
"""

import json

import pytest
import schemathesis
from django.core.wsgi import get_wsgi_application
from hypothesis import HealthCheck, settings

from tests.builders import DEMO_DATASET, load_demo

schema = schemathesis.openapi.from_wsgi("/api/schema/", get_wsgi_application())

PUBLISHED_IDS = [
    r["id"]
    for r in json.loads(DEMO_DATASET.read_text(encoding="utf-8"))["records"]
    if r.get("status", "published") == "published"
]

# Committed, not in a test transaction: Django's WSGI handler closes the connection after
# each request, which would end a transaction the test held open.
pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def published_entries():
    load_demo()


@pytest.mark.usefixtures("published_entries")
@schema.parametrize()
@settings(
    max_examples=100,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
def test_it_answers_as_its_openapi_document_says(case):
    case.call_and_validate()


@pytest.mark.usefixtures("published_entries")
def test_its_published_entries_answer_as_documented():
    detail, runs = schema["/api/errors/{id}/"]["GET"], schema["/api/errors/{id}/runs/"]["GET"]
    for entry_id in PUBLISHED_IDS:
        assert detail.Case(path_parameters={"id": entry_id}).call_and_validate().status_code == 200
        assert runs.Case(path_parameters={"id": entry_id}).call_and_validate().status_code == 200


@pytest.mark.usefixtures("published_entries")
def test_its_list_answers_as_documented_with_results():
    listing = schema["/api/errors/"]["GET"]
    query = {"repo": "tracel-ai/burn", "pageSize": 5, "page": 2}
    body = listing.Case(query=query).call_and_validate().json()
    assert body["results"] and body["previous"]


@pytest.mark.usefixtures("published_entries")
def test_its_304_answers_as_documented():
    detail = schema["/api/errors/{id}/"]["GET"]
    first = detail.Case(path_parameters={"id": PUBLISHED_IDS[0]}).call_and_validate()
    again = detail.Case(
        path_parameters={"id": PUBLISHED_IDS[0]},
        headers={"If-None-Match": first.headers["etag"][0]},
    ).call_and_validate()
    assert again.status_code == 304


@pytest.mark.usefixtures("published_entries")
def test_it_answers_404_not_304_for_an_unknown_id_with_a_wildcard_if_none_match():
    detail = schema["/api/errors/{id}/"]["GET"]
    case = detail.Case(path_parameters={"id": "0" * 16}, headers={"If-None-Match": "*"})
    assert case.call().status_code == 404
