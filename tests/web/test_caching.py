"""Conditional GET: an ETag on pages and API, 304 without rendering."""

import pytest
import redis
from django.core.cache import caches
from django.db import connection
from django.test.utils import CaptureQueriesContext

from errorkb.kb.models import ErrorEntry
from tests.builders import import_records, make_record

# Committed writes: on PostgreSQL the content token moves when a transaction commits.
pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def record():
    record = make_record()
    import_records(record)
    return record


def urls(record):
    return [f"/errors/{record['id']}/", f"/api/errors/{record['id']}", "/api/errors/", "/"]


def test_it_sends_validators(client, record):
    for url in urls(record):
        response = client.get(url)
        assert response.status_code == 200, url
        assert response["ETag"], url
        # An HTTP date cannot tell apart two states one second apart: no Last-Modified.
        assert "Last-Modified" not in response, url


def test_it_answers_304_to_a_matching_etag_without_rendering(client, record):
    for url in urls(record):
        etag = client.get(url)["ETag"]
        with CaptureQueriesContext(connection) as queries:
            response = client.get(url, HTTP_IF_NONE_MATCH=etag)
        assert response.status_code == 304, url
        assert response.content == b""
        assert len(queries) == 1, [q["sql"] for q in queries]  # the freshness check alone


def test_it_never_answers_304_to_a_date_alone(client, record):
    url = f"/errors/{record['id']}/"
    client.get(url)
    response = client.get(url, HTTP_IF_MODIFIED_SINCE="Fri, 01 Jan 2100 00:00:00 GMT")
    assert response.status_code == 200


def test_it_never_serves_a_changed_entry_stale(client, record):
    url = f"/errors/{record['id']}/"
    first = client.get(url)
    entry = ErrorEntry.objects.get(id=record["id"])
    entry.documentation = "Now explained better."
    entry.save()
    again = client.get(url, HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 200
    assert "Now explained better." in again.content.decode()
    assert again["ETag"] != first["ETag"]


def test_it_revalidates_when_a_related_entry_changes(client, record):
    other = make_record("Other.", related=[record["id"]])
    import_records(other)
    url = f"/errors/{record['id']}/"
    etag = client.get(url)["ETag"]
    ErrorEntry.objects.filter(id=other["id"]).update(error_message="Other, renamed.")
    ErrorEntry.objects.get(id=other["id"]).save()
    response = client.get(url, HTTP_IF_NONE_MATCH=etag)
    assert response.status_code == 200
    assert "Other, renamed." in response.content.decode()


def test_it_stops_serving_an_entry_once_retired(client, record):
    url = f"/api/errors/{record['id']}"
    etag = client.get(url)["ETag"]
    entry = ErrorEntry.objects.get(id=record["id"])
    entry.status = ErrorEntry.Status.RETIRED
    entry.save()
    assert client.get(url, HTTP_IF_NONE_MATCH=etag).status_code == 404


def test_it_tells_clients_to_revalidate(client, record):
    cache_control = client.get(f"/errors/{record['id']}/")["Cache-Control"]
    assert "max-age=0" in cache_control and "must-revalidate" in cache_control


REDIS_PAGES = {
    "BACKEND": "django.core.cache.backends.redis.RedisCache",
    "LOCATION": "redis://127.0.0.1:6379/13",
    "KEY_PREFIX": "pages-test",
    "TIMEOUT": None,
}


def test_a_page_kept_in_redis_is_served_to_another_process_without_rendering(
    client, record, settings
):
    # CACHE_URL in production: every process and machine reads what one of them rendered.
    # A second process is a second connection to Redis, and this process's memory holds
    # nothing that could answer instead.
    settings.CACHES = {**settings.CACHES, "pages": REDIS_PAGES}
    caches["pages"].clear()
    url = f"/errors/{record['id']}/"
    first = client.get(url)
    kept = redis.Redis.from_url(REDIS_PAGES["LOCATION"]).keys("pages-test:*")
    assert len(kept) == 1
    with CaptureQueriesContext(connection) as queries:
        again = client.get(url)
    assert again.content == first.content
    assert len(queries) == 1, [q["sql"] for q in queries]  # the entry's token alone
    caches["pages"].clear()
