"""One entry's validators come from its own version: a change to it leaves other entries cached.

Every test commits its writes, as a real deployment does.
"""

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from errorkb.kb import editing
from errorkb.kb.changes import catalog_changed, entries_changed
from errorkb.kb.models import ErrorEntry, Repository, Tag
from errorkb.verification.fanout import plan_runs, record_sweep
from tests.builders import import_records, make_record
from tests.verification.builders import link_scenario, record_run

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def pair():
    """Two published entries of one repository, not linked to each other.

    The scenario and the tag the changes use exist beforehand, as they would: a new
    scenario or tag is a catalog write, which moves every entry's ETag.
    """
    mine, other = make_record("Mine failed."), make_record("Other failed.")
    import_records(mine, other)
    link_scenario(ErrorEntry.objects.get(id=mine["id"]))
    Tag.objects.create(name="fresh")
    return mine, other


def addresses(record) -> list[str]:
    return [
        f"/errors/{record['id']}/",
        f"/repos/acme/rocket/errors/{record['slug']}/",
        f"/api/errors/{record['id']}",
        f"/api/errors/{record['id']}/runs",
    ]


def etags(client, record) -> dict[str, str]:
    found = {}
    for url in addresses(record):
        response = client.get(url)
        assert response.status_code == 200, url
        found[url] = response["ETag"]
    return found


def save_by_orm(entry_id):
    entry = ErrorEntry.objects.get(id=entry_id)
    entry.documentation = "Explained again."
    entry.save()


def update_by_queryset(entry_id):
    # A bulk write sends no signal: it says which entries it changed, in its transaction.
    with transaction.atomic():
        ErrorEntry.objects.filter(id=entry_id).update(documentation="Updated in bulk.")
        entries_changed([entry_id])


def update_by_raw_sql(entry_id):
    with transaction.atomic(), connection.cursor() as cursor:
        table = ErrorEntry._meta.db_table
        cursor.execute(
            f"UPDATE {table} SET documentation = %s WHERE id = %s", ["By hand.", entry_id]
        )
        entries_changed([entry_id])


def update_by_queryset_to(entry_id, **fields):
    with transaction.atomic():
        ErrorEntry.objects.filter(id=entry_id).update(**fields)
        entries_changed([entry_id])


def record_a_run(entry_id):
    entry = ErrorEntry.objects.get(id=entry_id)
    record_run(entry, entry.scenarios.get(), "reproduced", entry.error_message)


def verify_it_as_a_sweep_does(entry_id):
    # What `manage.py verify <id>` and the admin's action do: a Sweep row for the planned
    # runs, then a run of the entry. The sweep's row is no entry page's content.
    plan = plan_runs(ErrorEntry.objects.filter(id=entry_id))
    record_sweep(plan, "verify")
    record_a_run(entry_id)


def link_a_tag(entry_id):
    entry = ErrorEntry.objects.get(id=entry_id)
    with editing.change(entry, None):
        editing.set_tags(entry, [*entry.tag_names, "fresh"])


CHANGES = [
    save_by_orm,
    update_by_queryset,
    update_by_raw_sql,
    record_a_run,
    verify_it_as_a_sweep_does,
    link_a_tag,
]


@pytest.mark.parametrize("change", CHANGES, ids=lambda change: change.__name__)
def test_it_moves_only_the_changed_entrys_etags(client, pair, change):
    mine, other = pair
    before_mine, before_other = etags(client, mine), etags(client, other)
    change(mine["id"])
    after_mine, after_other = etags(client, mine), etags(client, other)
    for url in addresses(mine):
        assert after_mine[url] != before_mine[url], url
    assert after_other == before_other


def test_it_still_serves_another_entrys_page_from_its_cache(client, pair):
    mine, other = pair
    client.get(f"/errors/{other['id']}/")
    record_a_run(mine["id"])
    with CaptureQueriesContext(connection) as queries:
        again = client.get(f"/errors/{other['id']}/")
    assert again.status_code == 200 and other["errorMessage"] in again.content.decode()
    assert len(queries) == 1, [q["sql"] for q in queries]  # the entry's token alone


def test_it_revalidates_a_page_when_an_entry_it_shows_changes(client):
    shown = make_record("Shown failed.")
    showing = make_record("Showing failed.", related=[shown["id"]])
    import_records(shown, showing)
    # Each shows the other: one by its own link, the other as linked from.
    for page, neighbour in ((showing, shown), (shown, showing)):
        url = f"/errors/{page['id']}/"
        etag = client.get(url)["ETag"]
        update_by_queryset_to(neighbour["id"], error_message="Renamed.")
        response = client.get(url, HTTP_IF_NONE_MATCH=etag)
        assert response.status_code == 200
        assert "Renamed." in response.content.decode()
        update_by_queryset_to(neighbour["id"], error_message=neighbour["errorMessage"])


def test_it_moves_every_entrys_etag_when_a_catalog_table_changes(client, pair):
    before = {record["id"]: etags(client, record) for record in pair}
    with transaction.atomic():
        Repository.objects.update(url="https://example.org/rocket")
        catalog_changed()
    for record in pair:
        after = etags(client, record)
        for url in addresses(record):
            assert after[url] != before[record["id"]][url], url
    assert 'href="https://example.org/rocket"' in client.get(addresses(pair[0])[0]).content.decode()


def test_it_answers_304_for_an_unchanged_entry_after_another_changes(client, pair):
    mine, other = pair
    before = etags(client, other)
    save_by_orm(mine["id"])
    for url, etag in before.items():
        with CaptureQueriesContext(connection) as queries:
            response = client.get(url, HTTP_IF_NONE_MATCH=etag)
        assert response.status_code == 304, url
        assert len(queries) == 1, [q["sql"] for q in queries]


def test_it_gives_an_unknown_entry_no_validator(client, pair):
    mine, _ = pair
    etag = client.get(f"/api/errors/{mine['id']}")["ETag"]
    for url in ("/errors/0123456789abcdef/", "/api/errors/0123456789abcdef", "/api/errors/nope"):
        response = client.get(url, HTTP_IF_NONE_MATCH=etag)
        assert response.status_code == 404, url
        assert "ETag" not in response, url


def test_it_renders_an_entry_page_in_a_handful_of_queries(
    client, pair, django_assert_max_num_queries
):
    mine, _ = pair
    entry = ErrorEntry.objects.get(id=mine["id"])
    record_a_run(entry.id)
    for url in addresses(mine):
        client.get(url)  # the first read of this content renders its body and keeps it
        with django_assert_max_num_queries(8):
            response = client.get(url, HTTP_CACHE_CONTROL="no-cache")
        assert response.status_code == 200, url
