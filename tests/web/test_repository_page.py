"""A repository's page: its entries grouped by source file, then by error type."""

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.builders import import_records, make_record

pytestmark = pytest.mark.django_db

URL = "/repos/acme/rocket/"


def entries(count: int, name: str, **overrides) -> list[dict]:
    return [make_record(f"{name} number {n}.", **overrides) for n in range(count)]


def headings(html: str) -> list[str]:
    found = re.findall(r"<h([23])[^>]*>(.*?)</h\1>", html[html.index("</h1>") :])
    return [f"h{level} {re.sub(r'<[^>]+>', '', text)}" for level, text in found]


def fresh_get(client, url: str):
    # no-cache: rendered now, not served from the response cache, so queries show.
    return client.get(url, HTTP_CACHE_CONTROL="no-cache")


def test_it_groups_entries_by_file_then_by_error_type(client):
    import_records(
        make_record("Zeta panicked.", filePath="src/b.rs", errorType="panic"),
        make_record("Alpha logged.", filePath="src/b.rs", errorType="log"),
        make_record("Beta panicked.", filePath="src/a.rs", errorType="panic"),
        make_record("Gamma panicked.", filePath="src/b.rs", errorType="panic"),
    )
    html = client.get(URL).content.decode()
    assert headings(html) == ["h2 src/a.rs", "h3 panic", "h2 src/b.rs", "h3 log", "h3 panic"]
    b_panics = html[html.rindex("<h3") :]
    assert "Gamma panicked." in b_panics and "Zeta panicked." in b_panics
    assert "Alpha logged." not in b_panics


def test_it_orders_entries_by_message_within_a_group(client):
    import_records(
        make_record("Zeta panicked.", filePath="src/b.rs"),
        make_record("Gamma panicked.", filePath="src/b.rs"),
    )
    html = client.get(URL).content.decode()
    assert html.index("Gamma panicked.") < html.index("Zeta panicked.")


def test_it_puts_entries_without_a_file_in_their_own_group_last(client):
    import_records(
        make_record("No file at all.", filePath=None, lineNumber=None, githubUrl=None),
        make_record("Raised in a file.", filePath="src/z.rs"),
    )
    html = client.get(URL).content.decode()
    assert headings(html) == ["h2 src/z.rs", "h3 panic", "h2 Not tied to a file", "h3 panic"]
    assert html.index("Raised in a file.") < html.index("No file at all.")


def test_it_links_each_entry_and_its_tags(client):
    (entry,) = import_records(make_record("Out of fuel.", tags=["rust", "c++"]))
    html = client.get(URL).content.decode()
    assert f'<a href="{entry.get_absolute_url()}">Out of fuel.</a>' in html
    assert '<a href="/tags/rust/" rel="tag">rust</a>' in html
    assert '<a href="/tags/c++/" rel="tag">c++</a>' in html


def test_it_shows_only_published_entries(client):
    import_records(make_record("Shown."), make_record("Hidden.", status="draft"))
    html = client.get(URL).content.decode()
    assert "Shown." in html and "Hidden." not in html


def test_it_reads_a_fixed_number_of_queries_for_any_number_of_entries(client):
    import_records(*entries(2, "Failure", tags=["rust"]))
    with CaptureQueriesContext(connection) as few:
        assert fresh_get(client, URL).status_code == 200
    import_records(*entries(8, "Fault", tags=["rust", "panic", "fuel"], filePath="src/other.rs"))
    with CaptureQueriesContext(connection) as many:
        assert fresh_get(client, URL).status_code == 200
    assert len(many) == len(few) <= 5, [q["sql"] for q in many]


def test_it_returns_404_for_a_repository_with_only_drafts(client):
    import_records(make_record(status="draft"))
    assert client.get(URL).status_code == 404
