"""The API's entry list at depth: each page read by its ids first, in a fixed number of queries."""

import pytest

from errorkb.kb.models import ErrorEntry, Tag
from errorkb.verification.models import EntryState, State
from tests.builders import import_records, make_record

pytestmark = pytest.mark.django_db


def add_entries(count: int, start: int = 0, **overrides) -> list[ErrorEntry]:
    records = [
        make_record(f"Entry number {n} failed.", filePath=f"src/e{n}.rs", **overrides)
        for n in range(start, start + count)
    ]
    return import_records(*records)


def ids_of(client, query: str) -> list[str]:
    response = client.get(f"/api/errors/?{query}")
    assert response.status_code == 200
    return [record["id"] for record in response.json()["results"]]


def test_every_page_holds_the_next_ids_in_order(client):
    entries = add_entries(7)
    expected = sorted(entry.pk for entry in entries)
    pages = [ids_of(client, f"pageSize=3&page={n}") for n in (1, 2, 3)]
    assert pages == [expected[0:3], expected[3:6], expected[6:7]]


def test_a_deep_page_of_a_filtered_list_keeps_the_filter(client):
    entries = add_entries(6)
    add_entries(3, start=6, status="draft")
    drifted = sorted(entry.pk for entry in entries[::2])
    now = entries[0].updated_at
    EntryState.objects.bulk_create(
        EntryState(entry_id=pk, state=State.DRIFTED, changed_at=now, computed_at=now)
        for pk in drifted
    )
    body = client.get("/api/errors/?verificationState=drifted&pageSize=2&page=2").json()
    assert body["count"] == 3
    assert [record["id"] for record in body["results"]] == drifted[2:3]


def test_a_page_past_the_last_is_404(client):
    add_entries(2)
    assert client.get("/api/errors/?pageSize=2&page=2").status_code == 404


def test_the_list_makes_as_many_queries_for_a_deep_page_as_for_the_first(
    client, django_assert_max_num_queries
):
    # Every entry tagged and linked: the prefetches are as many for 3 rows as for 60.
    add_entries(60, tags=["rust", "panic"])
    assert Tag.objects.count() == 2
    # The validator, the count, the page (its ids in a subquery), its tags and links.
    for page in (1, 6):
        with django_assert_max_num_queries(5):
            assert len(ids_of(client, f"pageSize=10&page={page}")) == 10
