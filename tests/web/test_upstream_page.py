"""The entry page shows the releases that raise the message, and a notice once it is gone."""

import re

import pytest

from tests.builders import import_records, make_record
from tests.scanned import BASE_RS, raised_in_row, release_sha, removed, scan_releases

pytestmark = pytest.mark.django_db

REPO = "tracel-ai/burn"
BLOB = f"https://github.com/{REPO}/blob"
COMMIT = f"https://github.com/{REPO}/commit"


def record(**overrides) -> dict:
    return make_record("Can save model checkpoint.", repo=REPO, filePath=BASE_RS, **overrides)


def page(client, data: dict, *, scanned: tuple[str, ...] = ()) -> str:
    import_records(data)
    scan_releases(REPO, *scanned)
    response = client.get(f"/errors/{data['id']}/")
    assert response.status_code == 200
    return response.content.decode()


def section(html: str, start: str, end: str) -> str:
    begin = html.index(start)
    return html[begin : html.index(end, begin)]


def rows_of(html: str) -> list[str]:
    table = section(html, 'id="raised-in-table"', "</table>")
    cells = re.findall(r"<tr>\s*<td>(.*?)</td>\s*<td>(.*?)</td>", table, re.S)
    return [f"{versions} | {re.sub(r'<[^>]+>', '', where)}" for versions, where in cells]


def test_it_shows_the_span_and_a_row_per_range_at_one_line(client):
    rows = [raised_in_row("0.13.0"), raised_in_row("0.14.0"), raised_in_row("0.15.0", 64)]
    html = page(client, record(raisedIn=rows), scanned=("0.13.0", "0.14.0", "0.15.0"))
    assert "Raised in 0.13.0 – 0.15.0" in html
    assert rows_of(html) == [f"0.13.0 – 0.14.0 | {BASE_RS}:61", f"0.15.0 | {BASE_RS}:64"]


def test_each_row_links_to_its_line_at_the_last_release_of_its_range(client):
    rows = [raised_in_row("0.13.0"), raised_in_row("0.14.0"), raised_in_row("0.15.0", 64)]
    table = section(page(client, record(raisedIn=rows)), 'id="raised-in-table"', "</table>")
    assert f'href="{BLOB}/{release_sha("0.14.0")}/{BASE_RS}#L61"' in table
    assert f'href="{BLOB}/{release_sha("0.15.0")}/{BASE_RS}#L64"' in table
    assert release_sha("0.13.0") not in table


def test_a_scanned_release_that_does_not_raise_it_splits_the_range_and_the_span(client):
    rows = [raised_in_row("0.13.0"), raised_in_row("0.15.0")]
    html = page(client, record(raisedIn=rows), scanned=("0.13.0", "0.14.0", "0.15.0"))
    assert "Raised in 0.13.0, 0.15.0" in html
    assert rows_of(html) == [f"0.13.0 | {BASE_RS}:61", f"0.15.0 | {BASE_RS}:61"]


def test_a_new_scan_reaches_a_page_already_served(client):
    rows = [raised_in_row("0.13.0"), raised_in_row("0.15.0")]
    html = page(client, record(raisedIn=rows), scanned=("0.13.0", "0.15.0"))
    assert rows_of(html) == [f"0.13.0 – 0.15.0 | {BASE_RS}:61"]
    scan_releases(REPO, "0.14.0")
    again = client.get(f"/errors/{record()['id']}/").content.decode()
    assert rows_of(again) == [f"0.13.0 | {BASE_RS}:61", f"0.15.0 | {BASE_RS}:61"]


def test_an_empty_list_says_no_scanned_release_raises_it(client):
    html = page(client, record(raisedIn=[]))
    assert "Not raised in any scanned release." in html
    assert 'id="raised-in-table"' not in html
    assert "Raised in " not in html


def test_an_entry_never_release_scanned_shows_no_section(client):
    html = page(client, record())
    assert 'id="raised-in"' not in html
    assert "Not raised in any scanned release." not in html
    assert 'id="removed-upstream"' not in html


def notice_of(html: str) -> str:
    return re.sub(r"<[^>]+>", "", section(html, 'id="removed-upstream"', "</p>")).split(">", 1)[1]


def test_a_removed_entry_has_a_notice_naming_the_commits_and_last_release(client):
    html = page(client, record(removedUpstream=removed()))
    assert notice_of(html) == (
        f"Removed upstream: not raised at {'c' * 12} — last raised in 0.15.0 ({'d' * 12})."
    )
    notice = section(html, 'id="removed-upstream"', "</p>")
    assert f'href="{COMMIT}/{"c" * 40}"' in notice
    assert f'href="{COMMIT}/{"d" * 40}"' in notice
    # Near the top: before the message's own section.
    assert html.index('id="removed-upstream"') < html.index('id="error-message"')


def test_the_notice_without_a_last_release_names_the_last_commit(client):
    html = page(client, record(removedUpstream=removed(last_release=None)))
    assert notice_of(html) == (
        f"Removed upstream: not raised at {'c' * 12} — last raised at {'d' * 12}, "
        "in no scanned release."
    )


def test_the_notice_without_a_last_release_or_commit_says_no_scan_saw_it(client):
    html = page(client, record(removedUpstream=removed(last_commit=None, last_release=None)))
    assert notice_of(html) == f"Removed upstream: not raised at {'c' * 12} — no scan saw it raised."
    assert "/commit/" + "d" * 40 not in html


def test_the_notice_without_a_last_commit_names_the_release(client):
    html = page(client, record(removedUpstream=removed(last_commit=None)))
    assert notice_of(html) == f"Removed upstream: not raised at {'c' * 12} — last raised in 0.15.0."


def test_the_notice_is_styled_from_the_stylesheet_not_inline(client):
    html = page(client, record(removedUpstream=removed()))
    assert '<p class="notice removed-upstream" id="removed-upstream" role="note">' in html
    assert "style=" not in section(html, 'id="removed-upstream"', "</p>")


BADGE = ' <span class="badge removed-upstream"'


@pytest.fixture
def one_removed_one_not():
    gone = make_record("Gone.", repo=REPO, removedUpstream=removed(), tags=["rust"])
    kept = make_record("Kept.", repo=REPO, raisedIn=[raised_in_row("0.15.0")], tags=["rust"])
    import_records(gone, kept)


@pytest.mark.parametrize("url", [f"/repos/{REPO}/", "/tags/rust/", "/", "/search/?q=rust"])
def test_the_lists_mark_only_the_removed_entry(client, one_removed_one_not, url):
    html = client.get(url).content.decode()
    assert html.count(BADGE) == 1
    assert f">Gone.</a>{BADGE}" in html
    assert ">Kept.</a>" in html
