"""In a real browser, the search and lookup pages show the state of each entry they name."""

import pytest

from errorkb.verification.state.per_release import state_at
from tests.builders import import_records, make_record
from tests.e2e.chromium import BROWSER_TEST, chromium
from tests.lookup.matches.test_lookup_states import PRESS, burn_entry, registry_panic
from tests.lookup.texts import rust_panic
from tests.verification.builders import link_absence, link_scenario, prove, record_run

pytestmark = BROWSER_TEST


@pytest.fixture
def checkpoints():
    """Three entries of one word: proven, unproven and unreachable (burn never prints it)."""
    gone, late, sure = import_records(
        make_record("Checkpoint gone.", filePath="a.rs", summary="Gone: look elsewhere."),
        make_record("Checkpoint late.", filePath="b.rs", summary="Late: wait for it."),
        make_record("Checkpoint sure.", filePath="c.rs", summary="Sure: free some space."),
    )
    prove(sure, link_scenario(sure, "proof-sure"))
    absence = link_absence(gone, "absence-gone")
    record_run(gone, absence, "reproduced", "Training interrupted: disk full")
    return gone, late, sure


@pytest.fixture
def burn():
    """The entry of tests.lookup.matches.test_lookup_states: raised in 0.13.0 – 0.14.0 only."""
    return burn_entry()


@pytest.fixture
def gone_state(checkpoints):
    """The unreachable entry's state at 0.14.0, read before the browser starts."""
    return state_at(checkpoints[0], "0.14.0")


@pytest.fixture
def page(request):
    # Started after the data is made and read: the browser's event loop then holds no
    # connection.
    for name in ("checkpoints", "burn", "gone_state"):
        if name in request.fixturenames:
            request.getfixturevalue(name)
    width, height = request.param
    with chromium() as browser:
        yield browser.new_page(viewport={"width": width, "height": height})


def within_width(page, locator) -> bool:
    box = locator.bounding_box()
    return (
        box is not None and box["x"] >= 0 and box["x"] + box["width"] <= page.viewport_size["width"]
    )


def on_first_screen(page, locator) -> bool:
    box = locator.bounding_box()
    return within_width(page, locator) and box["y"] + box["height"] <= page.viewport_size["height"]


# A desktop and a phone.
SIZES = pytest.mark.parametrize("page", [(1280, 800), (390, 844)], indirect=True, ids=str)


@SIZES
def test_the_search_page_shows_each_entrys_state_proven_first(live_server, checkpoints, page):
    page.goto(f"{live_server.url}/search/?q=chekpoint")
    page.wait_for_selector(".search-result")

    assert "showing results for checkpoint" in page.locator("#searched-for").inner_text()
    results = page.locator(".search-result")
    titles = results.locator(".search-hit").all_inner_texts()
    assert titles == ["Checkpoint sure.", "Checkpoint late.", "Checkpoint gone."]
    states = [results.nth(n).locator(".hit-state .state").inner_text() for n in range(3)]
    assert states[0] == "verified: a run reproduced it"
    assert states[2].startswith("unreachable")
    assert "burn never prints it" in results.nth(2).locator(".hit-state").inner_text()
    assert results.nth(0).locator(".hit-summary").inner_text() == "Sure: free some space."
    for n in range(3):
        assert within_width(page, results.nth(n).locator(".hit-state"))
    assert on_first_screen(page, results.nth(0).locator(".hit-state"))


@SIZES
def test_the_lookup_page_shows_each_entrys_state_at_the_logs_release(
    live_server, burn, gone_state, page
):
    text = registry_panic("0.14.0") + "\n" + rust_panic("src/main.rs", 9, "Checkpoint gone.")
    page.goto(f"{live_server.url}/lookup/")
    page.fill("#lookup-text", text)
    page.click("form.lookup-form button[type=submit]")
    page.wait_for_selector(".lookup-results")

    matches = page.locator(".lookup-match")
    assert matches.count() == 2
    first, second = matches.nth(0), matches.nth(1)
    assert first.locator(".match-state").inner_text() == (
        f"verified: a run reproduced it At 0.14.0: raised in 0.14.0 with {PRESS}; reproduced."
    )
    assert first.locator("a").first.get_attribute("href").endswith("?release=0.14.0")
    # The log's one release (its registry path) is the release of its other panic too.
    assert second.locator(".match-state").inner_text() == (
        f"{gone_state.state.label} At 0.14.0: {gone_state.label}."
    )
    assert within_width(page, first.locator(".match-state"))
    assert within_width(page, second.locator(".match-state"))
    # The answer comes before the text it was read from: the cause's state on the first
    # screen, the form below.
    assert on_first_screen(page, page.locator(".story-cause .match-state"))
    assert page.locator("#your-text").bounding_box()["y"] > first.bounding_box()["y"]
