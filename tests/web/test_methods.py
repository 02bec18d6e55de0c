"""A method a page does not answer is a 405, before any CSRF check; a form's
POST is still refused without its CSRF token."""

import re

import pytest
from django.test import Client

from errorkb.kb.models import Report
from tests.builders import import_records, make_record

pytestmark = pytest.mark.django_db


@pytest.fixture
def browser():
    # Django's test client skips CSRF checks unless asked: a browser's requests do not.
    return Client(enforce_csrf_checks=True)


@pytest.fixture
def entry():
    return import_records(make_record("Rocket stalled.", repo="acme/rocket", tags=["rust"]))[0]


@pytest.mark.parametrize("method", ["post", "put", "patch", "delete"])
def test_a_page_that_only_reads_answers_other_methods_405_not_403(browser, entry, method):
    for url in [
        "/",
        entry.get_absolute_url(),
        "/repos/acme/rocket/",
        "/tags/rust/",
        "/search/",
        "/verification/",
        f"/errors/{entry.id}/",
    ]:
        response = getattr(browser, method)(url)
        assert response.status_code == 405, (method, url)
        assert response["Allow"] == "GET, HEAD", url


@pytest.mark.parametrize("method", ["put", "patch", "delete"])
def test_the_report_form_answers_other_methods_405_not_403(browser, entry, method):
    response = getattr(browser, method)(f"/errors/{entry.id}/report/")
    assert response.status_code == 405
    assert response["Allow"] == "GET, HEAD, POST"


def test_the_report_form_still_needs_its_csrf_token(browser, entry):
    url = f"/errors/{entry.id}/report/"
    data = {"message": "The line number is off by one.", "contact": ""}
    assert browser.post(url, data).status_code == 403
    assert not Report.objects.exists()
    form = browser.get(url).content.decode()
    data["csrfmiddlewaretoken"] = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form)[1]
    assert browser.post(url, data).status_code == 303
    assert Report.objects.count() == 1
