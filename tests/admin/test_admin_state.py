"""The entry list's verification column and filter read the stored state, in SQL."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from errorkb.verification.models import EntryState, State
from tests.admin.admin_client import client_for
from tests.builders import import_records, make_record
from tests.kb.people import curator
from tests.verification.builders import link_scenario, prove

pytestmark = pytest.mark.django_db
LIST = "/admin/kb/errorentry/"


def add_entries(count: int, start: int = 0) -> list:
    records = [
        make_record(f"Entry number {n} failed.", filePath=f"src/e{n}.rs")
        for n in range(start, start + count)
    ]
    return import_records(*records)


def verify(entry) -> None:
    prove(entry, link_scenario(entry, f"proves-{entry.pk[:8]}"))


@pytest.fixture
def client():
    return client_for(curator())


def listed(client, query: dict | None = None) -> str:
    response = client.get(LIST, query or {})
    assert response.status_code == 200
    return response.content.decode()


def test_the_column_shows_the_stored_state(client):
    verified, plain = add_entries(2)
    verify(verified)
    page = listed(client)
    assert page.count('<td class="field-verification_column">verified</td>') == 1
    # A state stored by other means is what the list shows: it does not derive its own.
    EntryState.objects.filter(entry=verified).update(state=State.FLAKY)
    assert '<td class="field-verification_column">flaky</td>' in listed(client)


def test_the_filter_selects_by_the_stored_state(client):
    verified, plain = add_entries(2)
    verify(verified)
    page = listed(client, {"verification": "verified"})
    assert verified.error_message in page and plain.error_message not in page
    unverified = listed(client, {"verification": "unverified"})
    assert plain.error_message in unverified and verified.error_message not in unverified
    EntryState.objects.filter(entry=verified).update(state=State.DRIFTED)
    assert verified.error_message in listed(client, {"verification": "drifted"})
    assert verified.error_message not in listed(client, {"verification": "verified"})


def test_an_unknown_state_in_the_filter_lists_every_entry(client):
    first, second = add_entries(2)
    page = listed(client, {"verification": "nonsense"})
    assert first.error_message in page and second.error_message in page


@pytest.mark.parametrize(
    "query", [{}, {"verification": "verified"}, {"verification": "unverified"}]
)
def test_the_list_makes_as_many_queries_for_many_entries_as_for_few(client, query):
    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            listed(client, query)
        return len(captured)

    for entry in add_entries(3):
        verify(entry)
    few = queries()
    for entry in add_entries(20, start=3)[::2]:
        verify(entry)
    assert queries() == few


def test_the_change_form_shows_the_stored_state_above_the_runs(client):
    (entry,) = add_entries(1)
    verify(entry)
    EntryState.objects.filter(entry=entry).update(state=State.DRIFTED)
    page = client.get(f"/admin/kb/errorentry/{entry.pk}/change/").content.decode()
    assert '<p>State: <strong class="state-drifted">drifted</strong>.' in page
    assert "<td>reproduced</td>" in page and "<td>fixed</td>" in page  # the runs, read now
