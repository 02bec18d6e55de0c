"""/tags/<tag>/: the published entries with a tag, grouped by repository; every page links tags."""

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from tests.builders import import_records, make_record

pytestmark = pytest.mark.django_db


def fresh_get(client, url: str):
    # no-cache: rendered now, not served from the response cache, so queries show.
    return client.get(url, HTTP_CACHE_CONTROL="no-cache")


def test_it_lists_the_published_entries_with_the_tag_grouped_by_repository(client):
    import_records(
        make_record("Rocket stalled.", repo="acme/rocket", tags=["fuel"]),
        make_record("Boat sank.", repo="acme/boat", tags=["fuel", "water"]),
        make_record("Rocket flew.", repo="acme/rocket", tags=["sky"]),
        make_record("Rocket drafted.", repo="acme/rocket", tags=["fuel"], status="draft"),
    )
    html = client.get("/tags/fuel/").content.decode()
    groups = re.findall(r'<h2><a href="(/repos/[^"]+)">', html)
    assert groups == ["/repos/acme/boat/", "/repos/acme/rocket/"]
    assert html.index("Boat sank.") < html.index("Rocket stalled.")
    assert "Rocket flew." not in html and "Rocket drafted." not in html
    assert 'href="/repos/acme/rocket/errors/rocket-stalled/"' in html


def test_it_links_the_other_tags_of_each_entry(client):
    import_records(make_record("Boat sank.", tags=["fuel", "water"]))
    html = client.get("/tags/fuel/").content.decode()
    assert '<a href="/tags/water/" rel="tag">water</a>' in html


@pytest.mark.parametrize("tag", ["c#", "c++", "burn-0.19", "io_uring", "x"])
def test_it_has_a_page_for_every_tag_a_record_may_carry(client, tag):
    import_records(make_record("Boat sank.", tags=[tag]))
    url = reverse("web:tag", kwargs={"tag": tag})
    assert client.get("/").content.decode().count(f'href="{url}"') == 1
    response = client.get(url)
    assert response.status_code == 200
    assert "Boat sank." in response.content.decode()


def test_it_returns_404_for_a_tag_with_only_draft_entries(client):
    import_records(make_record(tags=["fuel"], status="draft"))
    assert client.get("/tags/fuel/").status_code == 404


@pytest.mark.parametrize("url", ["/tags/nothing/", "/tags/Rust/", "/tags/-x/", "/tags/a%00/"])
def test_it_returns_404_for_an_unknown_or_impossible_tag(client, url):
    import_records(make_record(tags=["rust"]))
    assert client.get(url).status_code == 404


def test_it_refuses_a_post(client):
    import_records(make_record(tags=["rust"]))
    assert client.post("/tags/rust/").status_code == 405


def test_it_answers_304_to_a_current_etag(client):
    import_records(make_record(tags=["rust"]))
    etag = client.get("/tags/rust/")["ETag"]
    assert client.get("/tags/rust/", HTTP_IF_NONE_MATCH=etag).status_code == 304


def test_it_reads_a_fixed_number_of_queries_for_any_number_of_entries(client):
    import_records(*[make_record(f"Failure {n}.", tags=["rust"]) for n in range(2)])
    with CaptureQueriesContext(connection) as few:
        assert fresh_get(client, "/tags/rust/").status_code == 200
    more = [make_record(f"Fault {n}.", repo=f"acme/r{n}", tags=["rust", "io"]) for n in range(8)]
    import_records(*more)
    with CaptureQueriesContext(connection) as many:
        assert fresh_get(client, "/tags/rust/").status_code == 200
    assert len(many) == len(few) <= 4, [q["sql"] for q in many]


def test_the_entry_page_links_its_tags(client):
    (entry,) = import_records(make_record("Boat sank.", tags=["fuel", "water"]))
    html = client.get(entry.get_absolute_url()).content.decode()
    tags = html[html.index('id="message"') : html.index('id="error-message"')]
    assert re.findall(r'<a href="(/tags/[^"]+)" rel="tag">', tags) == [
        "/tags/fuel/",
        "/tags/water/",
    ]


def test_the_home_pages_recent_list_links_tags_in_a_fixed_number_of_queries(client):
    import_records(make_record("Boat sank.", tags=["fuel"]))
    with CaptureQueriesContext(connection) as few:
        html = fresh_get(client, "/").content.decode()
    recent = html[html.index('id="recent"') :]
    assert '<a href="/tags/fuel/" rel="tag">fuel</a>' in recent
    import_records(*[make_record(f"Fault {n}.", tags=["rust", "io"]) for n in range(6)])
    with CaptureQueriesContext(connection) as many:
        assert fresh_get(client, "/").status_code == 200
    assert len(many) == len(few), [q["sql"] for q in many]
