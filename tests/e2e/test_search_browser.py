"""A real browser searches, misspelt, is told the words searched, and follows a result."""

import pytest

from errorkb.kb.models import ErrorEntry
from tests.builders import load_demo
from tests.e2e.chromium import BROWSER_TEST, chromium
from tests.e2e.test_csp_browser import Watched

pytestmark = BROWSER_TEST


@pytest.fixture
def entry_url():
    load_demo()
    entry = ErrorEntry.objects.select_related("repository").get(
        error_message="Can save model checkpoint."
    )
    return entry.get_absolute_url()


@pytest.fixture
def browser(entry_url):
    # Started after the data is read: the browser's event loop gives this thread a
    # connection of its own, which teardown would not close.
    with chromium() as browser:
        yield browser


def test_it_searches_corrects_and_follows_a_result_to_its_entry(live_server, browser, entry_url):
    watched = Watched(browser)
    page = watched.page
    assert watched.visit(f"{live_server.url}/search/") == []
    page.fill("#search-q", "save model chekpoint")
    page.click(".search-form button[type=submit]")
    page.wait_for_selector(".search-result")

    first = page.locator(".search-result").first
    assert first.locator(".search-hit").inner_text() == "Can save model checkpoint."
    marks = first.locator("mark").all_inner_texts()
    assert "checkpoint" in [mark.lower() for mark in marks]
    assert page.input_value("#search-q") == "save model chekpoint"  # the query is kept

    first.locator(".search-hit").click()
    page.wait_for_url(f"{live_server.url}{entry_url}")
    assert page.title().startswith("Can save model checkpoint.")

    page.go_back()
    first = page.locator(".search-result").first
    assert "showing results for save model checkpoint" in page.locator("#searched-for").inner_text()
    assert first.locator(".hit-state .state").is_visible()
    assert first.locator(".snippets a").count() == 0  # snippets are text, not links
    found = page.evaluate("window.__cspViolations") + watched.console + watched.errors
    assert found == []
