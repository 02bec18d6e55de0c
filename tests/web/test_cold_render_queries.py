"""A cold rendering (Cache-Control: no-cache) of an entry's page and record: a fixed, small
number of queries, however many tags, related entries, scenarios and runs it has."""

import pytest

from errorkb.kb.models import ErrorEntry
from tests.builders import import_records, make_record
from tests.verification.builders import link_absence, link_scenario, record_run

pytestmark = pytest.mark.django_db

# The entry's token; the entry with its repository and stored state; its tags; its links
# from it and to it; its scenarios; its runs.
API_QUERIES = 7
PAGE_QUERIES = 7


def build(*, runs: int) -> dict:
    """An entry linked both ways, with tags, two scenarios and `runs` runs of each."""
    before, after = make_record("Before failed."), make_record("After failed.")
    mine = make_record("Mine failed.", tags=["rust", "panic", "io"], related=[after["id"]])
    before["related"] = [mine["id"]]
    import_records(before, after, mine)
    entry = ErrorEntry.objects.get(id=mine["id"])
    proof, absence = link_scenario(entry), link_absence(entry, "disk-quiet")
    for n in range(runs):
        record_run(entry, proof, "reproduced", "Mine failed.", minutes_ago=n)
        record_run(entry, absence, "reproduced", "Something else.", minutes_ago=n)
    return mine


def cold_get(client, url: str):
    return client.get(url, HTTP_CACHE_CONTROL="no-cache")


@pytest.mark.parametrize("runs", [1, 12])
def test_it_renders_the_api_record_cold_in_a_fixed_number_of_queries(
    client, django_assert_num_queries, runs
):
    mine = build(runs=runs)
    with django_assert_num_queries(API_QUERIES):
        response = cold_get(client, f"/api/errors/{mine['id']}")
    assert response.status_code == 200
    body = response.json()
    assert body["record"]["tags"] == ["rust", "panic", "io"]
    assert [e["errorMessage"] for e in body["relatedEntries"]] == [
        "After failed.",
        "Before failed.",
    ]
    assert len(body["verification"]["scenarios"]) == 2


@pytest.mark.parametrize("runs", [1, 12])
def test_it_renders_the_entry_page_cold_in_a_fixed_number_of_queries(
    client, django_assert_num_queries, runs
):
    mine = build(runs=runs)
    for url in (f"/errors/{mine['id']}/", f"/repos/acme/rocket/errors/{mine['slug']}/"):
        client.get(url)  # the first read of this content renders its body and keeps it
        with django_assert_num_queries(PAGE_QUERIES):
            response = cold_get(client, url)
        assert response.status_code == 200, url
        assert "Before failed." in response.content.decode(), url


def test_it_answers_404_for_an_unknown_address_cold(client):
    build(runs=0)
    for url in ("/errors/0123456789abcdef/", "/repos/acme/rocket/errors/nope/"):
        assert cold_get(client, url).status_code == 404, url
    assert cold_get(client, "/api/errors/0123456789abcdef").status_code == 404
