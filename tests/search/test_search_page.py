"""The /search/ page: the form, results linking to entries, errors and the limit shown."""

import pytest

from errorkb.search import index
from tests.builders import import_records, make_record, raised_row
from tests.verification.builders import link_scenario, prove

pytestmark = pytest.mark.django_db


@pytest.fixture
def entry():
    (entry,) = import_records(
        make_record("Turbine <overheated>.", slug="turbine", solutions=["Cool the turbine."])
    )
    return entry


def test_it_shows_the_empty_form_without_a_query(client):
    response = client.get("/search/")
    assert response.status_code == 200
    assert b'name="q"' in response.content and b"search-results" not in response.content


def test_it_shows_results_with_snippets_linking_to_their_entries(client, entry):
    response = client.get("/search/", {"q": "turbine"})
    assert response.status_code == 200
    page = response.content.decode()
    assert f'href="{entry.get_absolute_url()}"' in page
    assert "<mark>Turbine</mark> &lt;overheated&gt;." in page
    assert "Cool the <mark>turbine</mark>." in page and "<dt>Solutions</dt>" in page
    assert 'value="turbine"' in page  # the query is kept


def test_it_keeps_a_hostile_query_as_text(client, entry):
    page = client.get("/search/", {"q": '"><script>x</script>'}).content.decode()
    assert "<script>x" not in page and "&lt;script&gt;x" in page


def test_it_says_when_nothing_matches(client, entry):
    page = client.get("/search/", {"q": "qqqqxxzz"}).content.decode()
    assert "No published entry matches" in page


@pytest.mark.parametrize("params", [{"q": ""}, {"q": "x" * 501}, {"q": "turbine", "page": "0"}])
def test_it_shows_errors_with_a_400(client, entry, params):
    response = client.get("/search/", params)
    assert response.status_code == 400
    assert b'role="alert"' in response.content


def test_it_links_the_next_page(client):
    import_records(*(make_record(f"Rocket {n}.", filePath=f"{n}.rs") for n in range(25)))
    first = client.get("/search/", {"q": "rocket"}).content.decode()
    assert 'rel="next" href="?q=rocket&amp;page=2"' in first and 'rel="prev"' not in first
    second = client.get("/search/", {"q": "rocket", "page": 2}).content.decode()
    assert second.count('class="search-hit"') == 5 and 'rel="prev"' in second


def test_it_says_when_more_match_than_it_ranks(client, monkeypatch):
    monkeypatch.setattr(index, "MAX_RANKED", 2)
    import_records(*(make_record(f"Rocket {n}.", filePath=f"{n}.rs") for n in range(3)))
    page = client.get("/search/", {"q": "rocket"}).content.decode()
    assert "More than 2 entries found: the first 2 are ranked here" in page
    assert page.count('class="search-hit"') == 2 and 'rel="next"' not in page


def test_it_answers_429_past_the_limit(client, settings, entry):
    settings.LOOKUPS_PER_MINUTE = 1
    assert client.get("/search/", {"q": "turbine"}).status_code == 200
    assert client.get("/search/").status_code == 200  # the empty form costs nothing
    response = client.get("/search/", {"q": "turbine"})
    assert response.status_code == 429
    assert int(response["Retry-After"]) >= 1
    assert b"Too many requests" in response.content


def test_it_answers_only_get_and_head(client):
    assert client.post("/search/", {"q": "turbine"}).status_code == 405


def test_its_snippets_are_plain_text_and_not_links(client):
    import_records(
        make_record(
            "Valve stuck.",
            documentation="Call `open_valve` on the [pump](https://example.com/pump) first.",
            solutions=["Oil the **valve** stem."],
        )
    )
    page = client.get("/search/", {"q": "valve"}).content.decode()
    snippets = page[page.index('<dl class="snippets">') : page.index("</dl>")]
    assert "`" not in snippets and "**" not in snippets and "example.com" not in snippets
    assert "<a " not in snippets
    assert snippets.count("<dt>") == 2  # the first two fields that match, no more
    assert "<dt>Error message</dt>" in snippets
    assert "Call open_<mark>valve</mark> on the pump first." in snippets


def test_it_says_which_words_it_searched_for_when_it_corrected_them(client):
    import_records(make_record("Can save model checkpoint."))
    page = client.get("/search/", {"q": "save chekpoint"}).content.decode()
    assert 'id="searched-for"' in page
    assert "showing results for <strong>save checkpoint</strong>" in page
    typed = client.get("/search/", {"q": "save checkpoint"}).content.decode()
    assert 'id="searched-for"' not in typed


def test_it_shows_each_entrys_state_and_summary(client):
    (entry,) = import_records(
        make_record(
            "Valve stuck.",
            summary="The valve jammed: oil it.",
            appliesTo=[raised_row(versions="0.19.0 – 0.19.1", setup="hand-built pump")],
        )
    )
    prove(entry, link_scenario(entry, release="v0.19.1", setup="hand-built"))
    page = client.get("/search/", {"q": "valve"}).content.decode()
    assert '<span class="state state-verified">verified: a run reproduced it</span>' in page
    assert "raised in 0.19.0 – 0.19.1 with hand-built pump (reproduced)" in page
    assert '<p class="hit-summary">The valve jammed: oil it.</p>' in page
