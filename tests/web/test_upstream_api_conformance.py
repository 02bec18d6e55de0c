"""Records carrying raisedIn and removedUpstream answer as the OpenAPI document says."""

import pytest
import schemathesis
from django.core.wsgi import get_wsgi_application

from tests.builders import import_records, make_record
from tests.scanned import raised_in_row, removed

schema = schemathesis.openapi.from_wsgi("/api/schema/", get_wsgi_application())

# Committed: Django's WSGI handler closes the connection after each request.
pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def scanned_entries():
    return import_records(
        make_record("Gone.", raisedIn=[], removedUpstream=removed(last_commit=None)),
        make_record("Kept.", raisedIn=[raised_in_row("0.13.0"), raised_in_row("0.22.0-pre.1")]),
    )


def test_their_records_answer_as_documented(scanned_entries):
    detail = schema["/api/errors/{id}/"]["GET"]
    for entry in scanned_entries:
        case = detail.Case(path_parameters={"id": entry.id})
        assert case.call_and_validate().status_code == 200


@pytest.mark.parametrize("value", [True, False])
def test_the_filtered_list_answers_as_documented(scanned_entries, value):
    listing = schema["/api/errors/"]["GET"]
    body = listing.Case(query={"removedUpstream": str(value).lower()}).call_and_validate().json()
    assert [r["errorMessage"] for r in body["results"]] == ["Kept." if not value else "Gone."]
