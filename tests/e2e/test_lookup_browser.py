"""In a real browser: paste a panic into the home page's form and land on its entry."""

import pytest

from tests.builders import load_demo, load_site_index
from tests.e2e.chromium import BROWSER_TEST, chromium
from tests.lookup.story_corpus import CORPUS
from tests.lookup.test_lookup_pastes import PASTES
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


def test_a_pasted_cascade_reads_its_first_panic_as_the_cause(live_server, browser_page):
    load_site_index()
    log = next(log for log in CORPUS if log.name == "cascade-0.20.0-backend-panic-on-the-worker")
    page = browser_page
    page.goto(f"{live_server.url}/lookup/")

    page.fill("#lookup-text", log.text)
    page.click("form.lookup-form button[type=submit]")
    page.wait_for_selector("#story")

    # The cause comes first, above what followed: the backend's panic on the worker, at
    # the burn line of 0.20.0, with no reviewed entry yet.
    cause = page.locator(".story-cause .finding")
    assert cause.locator(".role").inner_text() == "Likely cause"
    assert "Ordering is bigger than operations" in cause.locator(".finding-message").inner_text()
    assert cause.locator(".release").inner_text() == "0.20.0"
    upstream = cause.locator(".finding-upstream")
    assert "no reviewed entry yet" in upstream.inner_text()
    assert (
        upstream.locator("a")
        .get_attribute("href")
        .endswith("/crates/burn-fusion/src/stream/execution/ordering.rs#L51")
    )
    followed = page.locator(".story-rest .finding")
    assert followed.locator(".role").all_inner_texts() == ["Follows from an earlier panic"] * 3
    assert followed.locator(".finding-entry a").all_inner_texts() == [
        "Can send message to checkpointer thread.",
        "Can send the end message to the checkpointer thread.",
    ]
    top = page.evaluate(
        "[...document.querySelectorAll('.finding')].map(f => f.getBoundingClientRect().top)"
    )
    assert top == sorted(top)
    # Linked at the log's release: the entry page opens on that release's state and fix.
    followed.locator(".finding-entry a").first.click()
    page.wait_for_url(
        "**/repos/tracel-ai/burn/errors/can-send-message-to-checkpointer-thread/?release=0.20.0"
    )


def test_a_panic_in_a_dependency_names_the_crate_and_the_burn_line_that_called_it(
    live_server, browser_page
):
    load_site_index()
    # A real paste (tests/lookup/pastes/README.md): cubecl-runtime 0.8.1 panics, called from
    # burn-cubecl 0.19.1, as the backtrace's next frame says.
    text = (PASTES / "017-cubecl-runtime-buffer-too-big.txt").read_text(encoding="utf-8")
    page = browser_page
    page.goto(f"{live_server.url}/lookup/")

    page.fill("#lookup-text", text)
    page.click("form.lookup-form button[type=submit]")
    page.wait_for_selector("#story")

    cause = page.locator(".story-cause .finding")
    where = cause.locator(".finding-where").inner_text()
    assert "another crate's code (cubecl-runtime 0.8.1, from crates.io)" in where
    assert "called from" in where and "burn-cubecl-0.19.1/src/ops/numeric.rs:113:49" in where
    assert cause.locator(".release").inner_text() == "0.19.1"
    assert (
        cause.locator(".finding-upstream a")
        .get_attribute("href")
        .endswith("/crates/burn-cubecl/src/ops/numeric.rs#L113")
    )
