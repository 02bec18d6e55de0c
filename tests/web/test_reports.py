"""Readers' "report a problem" form: what it stores, what it refuses, and how often."""

import hashlib
import hmac
import time

import pytest
from django.conf import settings
from django.test import Client, override_settings

from errorkb.http.throttles import ClientThrottle
from errorkb.kb.models import Report
from tests.builders import import_records, make_record

pytestmark = pytest.mark.django_db

ADDRESS = "203.0.113.7"


@pytest.fixture
def entry():
    (found,) = import_records(make_record("Can save model checkpoint."))
    return found


@pytest.fixture
def url(entry):
    return f"/errors/{entry.id}/report/"


def send(client, url, message="The line number is off by one.", **extra):
    data = {"message": message, "contact": extra.pop("contact", "")}
    return client.post(url, data, REMOTE_ADDR=extra.pop("address", ADDRESS), **extra)


def test_it_is_linked_from_the_entry_page(client, entry, url):
    html = client.get(f"/errors/{entry.id}/").content.decode()
    assert f'href="{url}" id="report"' in html


def test_it_shows_the_form_with_a_csrf_token_and_the_entry(client, entry, url):
    response = client.get(url)
    html = response.content.decode()
    assert response.status_code == 200
    assert 'name="csrfmiddlewaretoken"' in html
    assert '<textarea name="message"' in html and 'name="contact"' in html
    assert "Can save model checkpoint." in html
    assert f'href="{entry.get_absolute_url()}"' in html


def test_it_stores_one_report_under_a_hashed_address_and_redirects(client, entry, url):
    response = send(client, url, "  The line number is off by one.  ", contact="ada@example.org")
    assert response.status_code == 303
    assert response["Location"] == f"{url}?sent=1"
    report = Report.objects.get()
    assert report.entry == entry
    assert report.message == "The line number is off by one."
    assert report.contact == "ada@example.org"
    expected = hmac.new(settings.SECRET_KEY.encode(), ADDRESS.encode(), hashlib.sha256)
    assert report.client == expected.hexdigest()


def test_it_thanks_the_reader_after_sending(client, url):
    html = send(client, url, follow=True).content.decode()
    assert "Thank you: curators will see your report next to the entry." in html
    # The site header's search form stays; the report form is gone.
    assert 'id="report-form"' not in html and 'method="post"' not in html


def test_it_refuses_a_message_over_the_limit_and_keeps_the_text(client, url):
    too_long = "x" * (Report.MAX_LENGTH + 1)
    response = send(client, url, too_long)
    assert response.status_code == 400
    html = response.content.decode()
    assert "at most 2000 characters" in html
    assert too_long in html, "the reader's text should be kept"
    assert not Report.objects.exists()


def test_it_refuses_an_empty_message(client, url):
    response = send(client, url, "   ")
    assert response.status_code == 400
    assert "This field is required." in response.content.decode()
    assert not Report.objects.exists()


def test_it_refuses_a_bad_email_address(client, url):
    response = send(client, url, contact="not an address")
    assert response.status_code == 400
    assert "Enter a valid email address." in response.content.decode()
    assert not Report.objects.exists()


def test_it_refuses_a_post_without_csrf_token(url):
    response = send(Client(enforce_csrf_checks=True), url)
    assert response.status_code == 403
    assert not Report.objects.exists()


def test_it_accepts_a_post_with_the_csrf_token(url):
    browser = Client(enforce_csrf_checks=True)
    browser.get(url)
    token = browser.cookies["csrftoken"].value
    response = send(browser, url, HTTP_X_CSRFTOKEN=token)
    assert response.status_code == 303
    assert Report.objects.count() == 1


@override_settings(REPORTS_PER_HOUR=2)
def test_it_limits_reports_per_address_per_hour(client, url):
    assert [send(client, url).status_code for _ in range(2)] == [303, 303]
    refused = send(client, url, "A third one.")
    assert refused.status_code == 429
    assert 0 < int(refused["Retry-After"]) <= 3600  # until the first is an hour old
    html = refused.content.decode()
    assert "try again later" in html
    assert "A third one." in html, "the reader's text should be kept"
    assert Report.objects.count() == 2
    assert send(client, url, address="198.51.100.9").status_code == 303
    assert Report.objects.count() == 3


@override_settings(REPORTS_PER_HOUR=2)
def test_it_ignores_the_forwarded_for_header_when_limiting(client, url):
    for n in range(2):
        send(client, url, HTTP_X_FORWARDED_FOR=f"198.51.100.{n}")
    assert send(client, url, HTTP_X_FORWARDED_FOR="198.51.100.99").status_code == 429


@override_settings(REPORTS_PER_HOUR=2)
def test_it_does_not_count_reports_older_than_an_hour(client, url, monkeypatch):
    send(client, url)
    send(client, url)
    an_hour_on = time.time() + 3601
    monkeypatch.setattr(ClientThrottle, "timer", lambda self: an_hour_on)
    assert send(client, url).status_code == 303
    assert Report.objects.count() == 3


@pytest.mark.parametrize("status", ["draft", "in_review", "retired"])
def test_it_is_not_found_for_unpublished_entries(client, status):
    (hidden,) = import_records(make_record("Hidden.", status=status))
    url = f"/errors/{hidden.id}/report/"
    assert client.get(url).status_code == 404
    assert send(client, url).status_code == 404
    assert not Report.objects.exists()


def test_it_is_not_found_for_an_unknown_entry(client):
    assert client.get("/errors/0123456789abcdef/report/").status_code == 404


def test_it_is_never_served_from_the_response_cache(client, url):
    # Each reader gets their own CSRF token: no validator, nothing to reuse.
    assert "ETag" not in client.get(url)


def test_it_answers_only_get_head_and_post(client, url):
    assert client.head(url).status_code == 200
    for method in ("put", "patch", "delete", "options", "trace"):
        assert getattr(client, method)(url).status_code == 405, method
