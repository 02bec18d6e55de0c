"""The entry admin shows the scanner's raisedIn and removedUpstream, never edits them, filters."""

import json

import pytest

from errorkb.kb.models import ErrorEntry
from tests.admin.admin_client import change_post, client_for
from tests.builders import import_records, make_record
from tests.kb.people import curator
from tests.scanned import raised_in_row, removed

pytestmark = pytest.mark.django_db

ROWS = [raised_in_row("0.13.0"), raised_in_row("0.15.0", 64)]


@pytest.fixture
def entries():
    return import_records(
        make_record("Gone.", status="draft", raisedIn=ROWS, removedUpstream=removed()),
        make_record("Kept.", status="draft", raisedIn=[]),
        make_record("Never scanned.", status="draft"),
    )


@pytest.fixture
def admin_client():
    return client_for(curator())


def change_page(admin_client, entry) -> str:
    response = admin_client.get(f"/admin/kb/errorentry/{entry.pk}/change/")
    assert response.status_code == 200
    return response.content.decode()


def test_the_change_page_shows_the_rows_and_the_removal(admin_client, entries):
    html = change_page(admin_client, entries[0])
    table = html[
        html.index('id="raised-in"') : html.index("</table>", html.index('id="raised-in"'))
    ]
    assert "<td>0.13.0</td>" in table and "<td>0.15.0</td>" in table
    assert "crates/burn-train/src/learner/base.rs:64" in table
    assert raised_in_row("0.15.0")["commit"][:12] in table
    assert f"Not raised at <code>{'c' * 12}</code>; last raised in 0.15.0 ({'d' * 12})." in html


@pytest.mark.parametrize(
    ("which", "raised", "gone"),
    [
        (1, "Not raised in any scanned release.", "No: the last scan still finds it"),
        (2, "No release scan has looked for it yet.", "No: the last scan still finds it"),
    ],
)
def test_the_change_page_words_an_empty_or_missing_value(
    admin_client, entries, which, raised, gone
):
    html = change_page(admin_client, entries[which])
    assert raised in html and gone in html


def test_the_change_page_offers_no_input_for_them(admin_client, entries):
    html = change_page(admin_client, entries[0])
    assert 'name="raised_in"' not in html
    assert 'name="removed_upstream"' not in html


def test_a_save_posting_them_leaves_the_scanners_values(admin_client, entries):
    gone = entries[0]
    data = change_post(gone, documentation="Edited.")
    data.update(raised_in=json.dumps([]), removed_upstream="null")
    response = admin_client.post(f"/admin/kb/errorentry/{gone.pk}/change/", data)
    assert response.status_code == 302
    saved = ErrorEntry.objects.get(pk=gone.pk)
    assert saved.documentation == "Edited."
    assert saved.raised_in == ROWS
    assert saved.removed_upstream == removed()


def listed(admin_client, query: dict) -> str:
    response = admin_client.get("/admin/kb/errorentry/", query)
    assert response.status_code == 200
    return response.content.decode()


def test_the_list_filters_by_removed_upstream(admin_client, entries):
    yes = listed(admin_client, {"removed_upstream": "yes"})
    assert "Gone." in yes and "Kept." not in yes and "Never scanned." not in yes
    no = listed(admin_client, {"removed_upstream": "no"})
    assert "Gone." not in no and "Kept." in no and "Never scanned." in no
    every = listed(admin_client, {})
    assert "removed upstream" in every  # the filter's title
    assert all(message in every for message in ("Gone.", "Kept.", "Never scanned."))
