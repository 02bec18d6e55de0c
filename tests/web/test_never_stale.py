"""Pages and API responses are never stale, whatever wrote the change.

Every test commits its writes, as a real deployment does: a version a write moves is
seen by other connections when its transaction commits.
"""

import io
import threading

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.db import connection, connections, transaction
from django.test.utils import CaptureQueriesContext

from errorkb.kb.changes import entries_changed
from errorkb.kb.models import ErrorEntry, Repository, Tag
from errorkb.verification.models import VerificationRun
from tests.admin.admin_client import client_for
from tests.builders import import_records, make_record
from tests.verification.builders import link_scenario, record_run

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def record():
    record = make_record(tags=["checkpoint"])
    import_records(record)
    return record


@pytest.fixture
def superuser():
    return User.objects.create_superuser("root", password="root-password")


def page(record) -> str:
    return f"/errors/{record['id']}/"


def api(record) -> str:
    return f"/api/errors/{record['id']}"


def read_again(client, url, etag: str):
    """A reader's revalidation with the ETag it had, and a new reader's plain GET."""
    return client.get(url, HTTP_IF_NONE_MATCH=etag), client.get(url)


def test_it_shows_a_tag_renamed_in_the_admin(client, record, superuser):
    etag = client.get(api(record))["ETag"]
    tag = Tag.objects.get(name="checkpoint")
    response = client_for(superuser).post(
        f"/admin/kb/tag/{tag.pk}/change/", {"name": "checkpointing"}
    )
    assert response.status_code == 302
    for answer in read_again(client, api(record), etag):
        assert answer.status_code == 200
        assert answer.json()["record"]["tags"] == ["checkpointing"]


def test_it_shows_a_repository_url_changed_in_the_admin(client, record, superuser):
    client.get(page(record))
    repository = Repository.objects.get()
    data = {"owner": repository.owner, "name": repository.name, "url": "https://example.org/r"}
    response = client_for(superuser).post(f"/admin/kb/repository/{repository.pk}/change/", data)
    assert response.status_code == 302
    assert 'href="https://example.org/r"' in client.get(page(record)).content.decode()


def test_it_answers_404_at_the_old_address_of_a_renamed_repository(client, record):
    old = f"/repos/acme/rocket/errors/{record['slug']}/"
    first = client.get(old)
    assert first.status_code == 200
    Repository.objects.filter(name="rocket").update(name="missile")
    assert client.get(old).status_code == 404
    assert client.get(old, HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 404
    assert client.get("/repos/acme/rocket/").status_code == 404
    assert client.get(f"/repos/acme/missile/errors/{record['slug']}/").status_code == 200


def test_it_shows_a_change_made_by_queryset_update(client, record):
    etag = client.get(page(record))["ETag"]
    # update() leaves updated_at alone and sends no signal: a bulk write says which
    # entries it changed, in its transaction, as kb's and verification's do.
    with transaction.atomic():
        ErrorEntry.objects.filter(id=record["id"]).update(documentation="Updated in bulk.")
        entries_changed([record["id"]])
    for answer in read_again(client, page(record), etag):
        assert answer.status_code == 200
        assert "Updated in bulk." in answer.content.decode()


def test_it_shows_a_change_made_by_raw_sql_once_the_versions_are_moved(client, record):
    etag = client.get(api(record))["ETag"]
    with connection.cursor() as cursor:
        table = ErrorEntry._meta.db_table
        cursor.execute(f"UPDATE {table} SET documentation = %s", ["Changed by hand."])
    # A write the application did not make moves no version: docs/http.md says to run
    # this command after one.
    call_command("bump_page_versions", stdout=io.StringIO())
    for answer in read_again(client, api(record), etag):
        assert answer.status_code == 200
        assert answer.json()["record"]["documentation"] == "Changed by hand."


def test_it_shows_a_verification_run_on_the_entry_page(client, record):
    entry = ErrorEntry.objects.get(id=record["id"])
    scenario = link_scenario(entry)
    first = client.get(page(record))
    record_run(entry, scenario, "reproduced", record["errorMessage"])
    assert VerificationRun.objects.count() == 1
    again = client.get(page(record), HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 200
    assert again.content != first.content


@pytest.mark.skipif(
    connection.vendor != "postgresql", reason="SQLite writers take turns: commits keep order"
)
def test_it_shows_a_write_that_commits_after_a_later_one(client, record):
    other = make_record("Other failure.")
    import_records(other)
    started, release = threading.Event(), threading.Event()

    def slow_writer():
        # Stamped first, committed last: as a verification run's save can be.
        try:
            with transaction.atomic():
                ErrorEntry.objects.filter(id=record["id"]).update(documentation="Slow write.")
                entries_changed([record["id"]])
                started.set()
                release.wait(10)
        finally:
            connections.close_all()

    thread = threading.Thread(target=slow_writer)
    thread.start()
    assert started.wait(10)
    entry = ErrorEntry.objects.get(id=other["id"])
    entry.documentation = "Quick write."
    entry.save()
    between = client.get(page(record))
    assert "Slow write." not in between.content.decode()
    release.set()
    thread.join(10)
    for answer in (
        client.get(page(record), HTTP_IF_NONE_MATCH=between["ETag"]),
        client.get(page(record)),
    ):
        assert answer.status_code == 200
        assert "Slow write." in answer.content.decode()


def test_it_serves_a_repeated_read_after_one_small_query(client, record):
    client.get(page(record))
    with CaptureQueriesContext(connection) as queries:
        again = client.get(page(record))
    assert again.status_code == 200 and record["errorMessage"] in again.content.decode()
    assert len(queries) == 1, [q["sql"] for q in queries]


def test_it_answers_a_wildcard_if_none_match_with_304_only_for_a_public_entry(client, record):
    for url in (page(record), api(record)):
        assert client.get(url, HTTP_IF_NONE_MATCH="*").status_code == 304
    with transaction.atomic():
        ErrorEntry.objects.filter(id=record["id"]).update(status=ErrorEntry.Status.DRAFT)
        entries_changed([record["id"]])
    unknown = "0123456789abcdef"
    for url in (page(record), api(record), f"/errors/{unknown}/", f"/api/errors/{unknown}"):
        assert client.get(url, HTTP_IF_NONE_MATCH="*").status_code == 404, url


def test_it_never_answers_304_for_an_address_the_etag_was_not_given_for(client, record):
    etag = client.get(page(record))["ETag"]
    unknown = client.get("/errors/0123456789abcdef/", HTTP_IF_NONE_MATCH=etag)
    assert unknown.status_code == 404
    assert "ETag" not in unknown


@pytest.mark.parametrize("method", ["post", "put", "patch", "delete", "options", "trace"])
def test_its_pages_answer_only_get_and_head(client, record, method):
    for url in (
        "/",
        "/repos/acme/rocket/",
        page(record),
        f"/repos/acme/rocket/errors/{record['slug']}/",
    ):
        response = getattr(client, method)(url)
        assert response.status_code == 405, (method, url)
        assert record["errorMessage"] not in response.content.decode()
        assert client.head(url).status_code == 200


def test_it_renders_afresh_when_the_reader_asks_for_no_cache(client, record):
    client.get(page(record))
    with CaptureQueriesContext(connection) as queries:
        again = client.get(page(record), HTTP_CACHE_CONTROL="no-cache")
    assert again.status_code == 200
    assert len(queries) > 1
