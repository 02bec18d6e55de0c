"""GET /api/search answers as the OpenAPI document says: generated queries, hits, 429s.

The site-wide conformance test (tests/web) shares one allowance for every request it
makes; here the limit is lifted, so schemathesis reaches the search itself.
"""

import pytest
import schemathesis
from django.core.wsgi import get_wsgi_application
from hypothesis import HealthCheck, settings

from tests.builders import load_demo

schema = schemathesis.openapi.from_wsgi("/api/schema/", get_wsgi_application())
search_only = schema.include(path="/api/search")

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def demo(settings):
    settings.LOOKUPS_PER_MINUTE = 100_000
    load_demo()


@pytest.mark.usefixtures("demo")
@search_only.parametrize()
@settings(
    max_examples=60,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
def test_it_answers_generated_searches_as_documented(case):
    case.call_and_validate()


@pytest.mark.usefixtures("demo")
def test_its_hits_answer_as_documented():
    operation = schema["/api/search"]["GET"]
    body = operation.Case(query={"q": "chekpoint", "pageSize": 2}).call_and_validate().json()
    assert body["results"] and body["next"]


@pytest.mark.usefixtures("demo")
def test_its_429_answers_as_documented(settings):
    settings.LOOKUPS_PER_MINUTE = 1
    operation = schema["/api/search"]["GET"]
    operation.Case(query={"q": "checkpoint"}).call_and_validate()
    response = operation.Case(query={"q": "checkpoint"}).call_and_validate()
    assert response.status_code == 429
