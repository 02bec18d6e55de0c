"""Each entry's stored verification state: a badge on lists and the entry page, and in the API."""

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from errorkb.verification.models import EntryState, State
from tests.builders import import_records, make_record
from tests.verification.builders import link_scenario, prove

pytestmark = pytest.mark.django_db
BADGE = re.compile(r'<span class="state state-(\w+)" title="verification state">([^<]+)</span>')
LISTS = ["/", "/repos/acme/rocket/", "/tags/fuel/"]


def add_entries(count: int, start: int = 0) -> list:
    records = [
        make_record(f"Rocket part {n} failed.", filePath=f"src/p{n}.rs", tags=["fuel"])
        for n in range(start, start + count)
    ]
    return import_records(*records)


def verify(entry) -> None:
    prove(entry, link_scenario(entry, f"proves-{entry.pk[:8]}"))


def fresh_get(client, url: str) -> str:
    # no-cache: rendered now, not served from the response cache.
    response = client.get(url, HTTP_CACHE_CONTROL="no-cache")
    assert response.status_code == 200
    return response.content.decode()


@pytest.mark.parametrize("url", LISTS)
def test_every_list_shows_each_entrys_state_badge(client, url):
    verified, plain = add_entries(2)
    verify(verified)
    badges = BADGE.findall(fresh_get(client, url))
    assert sorted(badges) == [("unverified", "unverified"), ("verified", "verified")]


@pytest.mark.parametrize("url", LISTS)
def test_the_badges_come_from_the_stored_state(client, url):
    (entry,) = add_entries(1)
    verify(entry)
    EntryState.objects.filter(entry=entry).update(state=State.UNREACHABLE)
    assert BADGE.findall(fresh_get(client, url)) == [
        ("unreachable", "unreachable: burn never prints it")
    ]


@pytest.mark.parametrize("url", LISTS)
def test_a_list_makes_as_many_queries_for_many_entries_as_for_few(client, url):
    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            fresh_get(client, url)
        return len(captured)

    for entry in add_entries(2):
        verify(entry)
    few = queries()
    for entry in add_entries(12, start=2)[::2]:
        verify(entry)
    assert queries() == few


def test_the_entry_pages_badge_sums_up_its_claims_per_release(client):
    (entry,) = add_entries(1)
    verify(entry)
    html = fresh_get(client, entry.get_absolute_url())
    # The badge at the top is the state its claims per release and set-up sum to, beside
    # the sentence that says where; the panel shows its runs' state.
    assert 'id="entry-state" class="claim-state claim-verified"' in html
    assert "Raised in main with" in html
    assert '<p class="verdict"><span class="state state-verified">verified</span>' in html


def test_the_api_record_carries_the_stored_state(client):
    (entry,) = add_entries(1)
    verify(entry)
    assert client.get(f"/api/errors/{entry.pk}").json()["verification"]["state"] == "verified"
    stored = EntryState.objects.get(entry=entry)
    stored.state = State.DRIFTED
    stored.save()
    verification = client.get(f"/api/errors/{entry.pk}").json()["verification"]
    assert verification["state"] == "drifted"
    assert verification["scenarios"][0]["state"] == "verified"  # the derived details


def test_the_api_list_filters_by_the_stored_state(client):
    verified, plain = add_entries(2)
    verify(verified)

    def ids(state: str) -> list[str]:
        response = client.get("/api/errors/", {"verificationState": state})
        assert response.status_code == 200
        return [record["id"] for record in response.json()["results"]]

    assert ids("verified") == [verified.pk]
    assert ids("unverified") == [plain.pk]
    assert ids("flaky") == []


def test_the_api_list_refuses_an_unknown_state(client):
    response = client.get("/api/errors/", {"verificationState": "sure"})
    assert response.status_code == 400
    assert "verificationState" in response.json()["errors"]
