"""In a real browser: paste a panic into the home page's form and land on its entry."""

import pytest

from tests.builders import load_demo
from tests.e2e.chromium import BROWSER_TEST, chromium
from tests.lookup.texts import demo_panic, demo_records, wrapped

pytestmark = BROWSER_TEST


@pytest.fixture
def browser_page():
    load_demo()
    with chromium() as browser:
        yield browser.new_page()


def test_a_panic_pasted_on_the_home_page_lands_on_its_entry(live_server, browser_page):
    record = next(r for r in demo_records() if r["errorMessage"] == "Can save model checkpoint.")
    page = browser_page
    page.goto(f"{live_server.url}/")

    page.fill("#lookup-text", wrapped(demo_panic(record), before=120, after=80))
    page.click("form.lookup-form button[type=submit]")
    page.wait_for_url(f"**/repos/tracel-ai/burn/errors/{record['slug']}/")

    assert page.locator("h1").first.inner_text() == "Can save model checkpoint."


def test_a_log_with_two_panics_lists_both_and_each_links_to_its_entry(live_server, browser_page):
    by_message = {r["errorMessage"]: r for r in demo_records()}
    first = by_message["Can load model checkpoint."]
    second = by_message["Can send the end message to the checkpointer thread."]
    page = browser_page
    page.goto(f"{live_server.url}/lookup/")

    page.fill("#lookup-text", wrapped(demo_panic(first) + "\n" + demo_panic(second, 3)))
    page.click("form.lookup-form button[type=submit]")
    page.wait_for_selector(".lookup-results")

    links = page.locator(".lookup-match > a")
    assert links.all_inner_texts() == [first["errorMessage"], second["errorMessage"]]
    links.first.click()
    page.wait_for_url(f"**/repos/tracel-ai/burn/errors/{first['slug']}/")
