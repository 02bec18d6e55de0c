"""The response cache in front of Django (errorkb.kb.fastpath) and the change listener."""

from io import BytesIO
from wsgiref.util import setup_testing_defaults

import pytest
from django.conf import settings
from django.core.handlers.wsgi import WSGIHandler
from django.core.signals import request_finished, request_started
from django.db import close_old_connections, connection
from django.test.utils import CaptureQueriesContext

from errorkb.kb.changes import listener_for
from errorkb.kb.fastpath import ResponseCache
from errorkb.kb.models import ErrorEntry
from tests.builders import import_records, make_record
from tests.waiting import wait_for


class CountingApp:
    """Django's WSGI handler, counting how often the cache lets a request through."""

    def __init__(self):
        self.django = WSGIHandler()
        self.calls = 0

    def __call__(self, environ, start_response):
        self.calls += 1
        return self.django(environ, start_response)


def get(app, path, **headers) -> tuple[str, dict, bytes]:
    path, _, query = path.partition("?")
    environ = {"PATH_INFO": path, "QUERY_STRING": query, "HTTP_HOST": "testserver"}
    environ.update({f"HTTP_{k.upper()}": v for k, v in headers.items()})
    environ["wsgi.input"] = BytesIO()
    setup_testing_defaults(environ)
    answer = {}

    def start_response(status, response_headers, exc_info=None):
        answer.update(status=status, headers=dict(response_headers))

    body = b"".join(app(environ, start_response))
    return answer["status"], answer["headers"], body


@pytest.fixture
def record():
    record = make_record()
    import_records(record)
    return record


@pytest.fixture
def inner():
    # As Django's test client does: keep the test's connection (and transaction) open
    # across requests instead of closing it when a request finishes.
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield CountingApp()
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.fixture
def app(inner):
    # No change listener: every read asks the database whether anything changed.
    return ResponseCache(inner, max_bytes=1024 * 1024, listener=None)


@pytest.fixture
def listener():
    listener = listener_for(settings.DATABASES["default"])
    assert listener.wait_until_listening(timeout=5)
    yield listener
    listener.stop()


@pytest.mark.django_db
def test_it_serves_a_repeated_read_from_its_cache(app, inner, record):
    first = get(app, f"/errors/{record['id']}/")
    second = get(app, f"/errors/{record['id']}/")
    assert first[0] == second[0] == "200 OK"
    assert second[2] == first[2] and second[1]["ETag"] == first[1]["ETag"]
    assert inner.calls == 1


@pytest.mark.django_db
def test_it_answers_304_without_calling_django(app, inner, record):
    etag = get(app, f"/api/errors/{record['id']}")[1]["ETag"]
    status, headers, body = get(app, f"/api/errors/{record['id']}", if_none_match=etag)
    assert (status, body) == ("304 Not Modified", b"")
    assert headers["ETag"] == etag and "must-revalidate" in headers["Cache-Control"]
    assert inner.calls == 1


@pytest.mark.django_db
def test_it_renders_again_after_a_change(app, inner, record):
    url = f"/errors/{record['id']}/"
    etag = get(app, url)[1]["ETag"]
    entry = ErrorEntry.objects.get(id=record["id"])
    entry.documentation = "Explained anew."
    entry.save()
    status, headers, body = get(app, url, if_none_match=etag)
    assert status == "200 OK" and b"Explained anew." in body
    assert inner.calls == 2


@pytest.mark.django_db
def test_it_renders_when_the_reader_asks_for_no_cache(app, inner, record):
    get(app, f"/errors/{record['id']}/")
    get(app, f"/errors/{record['id']}/", cache_control="no-cache")
    assert inner.calls == 2


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/api/errors/?severity=error", "/admin/login/", "/api/schema/"])
def test_it_passes_other_addresses_to_django(app, inner, record, path):
    get(app, path)
    get(app, path)
    assert inner.calls == 2


@pytest.mark.django_db
def test_it_does_not_keep_a_404(app, inner):
    assert get(app, "/errors/0123456789abcdef/")[0].startswith("404")
    get(app, "/errors/0123456789abcdef/")
    assert inner.calls == 2


@pytest.mark.django_db
def test_it_keeps_within_its_byte_budget(inner):
    records = [make_record(f"Message {n}.") for n in range(6)]
    import_records(*records)
    page_size = len(get(inner, f"/errors/{records[0]['id']}/")[2])
    budget = int(page_size * 4.5)  # room for four pages, and one page is under a quarter
    app = ResponseCache(inner, max_bytes=budget, listener=None)
    for r in records:
        get(app, f"/errors/{r['id']}/")
    assert 0 < app.size <= budget
    assert len(app.stored) == 4
    assert list(app.stored)[-1][2] == f"/errors/{records[-1]['id']}/"  # the newest stays


@pytest.mark.django_db
def test_it_is_off_with_a_zero_budget(inner, record):
    app = ResponseCache(inner, max_bytes=0, listener=None)
    get(app, f"/errors/{record['id']}/")
    get(app, f"/errors/{record['id']}/")
    assert inner.calls == 2


postgres_only = pytest.mark.skipif(
    "postgresql" not in settings.DATABASES["default"]["ENGINE"],
    reason="change notifications are a PostgreSQL feature",
)


@postgres_only
@pytest.mark.django_db(transaction=True)
def test_it_skips_the_database_while_nothing_changed_and_hears_a_change(inner, record, listener):
    app = ResponseCache(inner, max_bytes=1024 * 1024, listener=listener)
    url = f"/errors/{record['id']}/"
    get(app, url)
    with CaptureQueriesContext(connection) as queries:
        status, _, _ = get(app, url)
    assert status == "200 OK" and len(queries) == 0

    before = listener.generation
    entry = ErrorEntry.objects.get(id=record["id"])
    entry.documentation = "Heard about it."
    entry.save()  # committed at once: this test runs outside a transaction
    assert wait_for(lambda: listener.generation != before, timeout=5)
    assert b"Heard about it." in get(app, url)[2]


@postgres_only
@pytest.mark.django_db(transaction=True)
def test_it_hears_changes_made_with_raw_sql(record, listener):
    before = listener.generation
    with connection.cursor() as cursor:
        cursor.execute("UPDATE kb_tag SET name = name")
    assert wait_for(lambda: listener.generation != before, timeout=5)


def test_it_has_no_listener_on_sqlite():
    assert listener_for({"ENGINE": "django.db.backends.sqlite3", "NAME": ":memory:"}) is None


@postgres_only
@pytest.mark.django_db(transaction=True)
def test_its_listener_stops_on_request(listener):
    listener.stop()
    assert listener.generation is None
