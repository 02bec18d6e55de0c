"""The first screen of an entry page answers: at 1280×800 and at 390×844 a real browser
reads the message, the state at the reader's release, the summary, the first fix and the
proof before scrolling, for a verified entry and for one burn's set-ups never print.

Each first screen is saved to var/screens/ to be looked at.
"""

from pathlib import Path

import pytest

from tests.builders import import_records, make_record
from tests.e2e.chromium import BROWSER_TEST, chromium
from tests.verification.builders import link_absence, link_scenario, prove, record_run
from tests.verification.checkpoint_entry import (
    DOCUMENTATION,
    INTERRUPTED,
    checkpoint_entry,
    learner_builder_absence,
    row,
)

pytestmark = BROWSER_TEST

SCREENS = Path(__file__).resolve().parents[2] / "var" / "screens"
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
DELETE = "Can delete model checkpoint."
HAND_BUILT = "hand-built LearningCheckpointer, no interrupter"


def verified_entry():
    """Raised at main with a hand-built checkpointer, and reproduced there."""
    (entry,) = import_records(
        make_record(
            DELETE,
            repo="tracel-ai/burn",
            appliesTo=[row("0.22.0-pre.1 – main", HAND_BUILT, "raised", DELETE)],
            summary=(
                "The checkpointer's worker thread died before this delete, usually of a failed "
                "save: this panic only follows that one. Find the first panic in the log, fix "
                "what it says (space, permissions), then resume from the last complete epoch."
            ),
            solutions=[
                "Read the first panic of the log: `Error when saving the state:` names the "
                "failed write.",
                "Resume from the newest epoch whose three checkpoint files are complete.",
            ],
            documentation=DOCUMENTATION,
            triggerScenarios=DOCUMENTATION,
        )
    )
    scenario = link_scenario(
        entry,
        "hand-built-dev-full-model",
        release="main",
        setup="hand-built",
        setup_summary="a hand-built LearningCheckpointer of AsyncCheckpointers",
    )
    prove(entry, scenario)
    return entry


def unreachable_entry():
    """Like "Can save model checkpoint.": absent with burn's set-ups, as runs confirmed."""
    entry = checkpoint_entry()
    record_run(entry, link_absence(entry), "reproduced", texts=[INTERRUPTED])
    absence = learner_builder_absence(entry)
    record_run(entry, absence, "reproduced", texts=["Can save the state.: RecorderError(..)"])
    return entry


CASES = {
    # (entry, release asked, the state the first screen must show)
    "verified": (verified_entry, "main", "verified"),
    "unreachable": (unreachable_entry, "0.19.1", "unreachable"),
    "unreachable-entry-wide": (unreachable_entry, None, "not_yet_reproduced"),
}
FIRST_SCREEN = ("#message", "#release-state", "#summary", "#first-fix", "#proof")


@pytest.fixture
def browser():
    with chromium() as launched:
        yield launched


def first_screen(page) -> dict:
    """Each part of the answer: whether it starts above the fold and ends within the width."""
    return page.evaluate(
        """parts => Object.fromEntries(parts.map(selector => {
            const box = document.querySelector(selector).getBoundingClientRect();
            return [selector, {top: box.top, right: box.right, height: box.height}];
        }))""",
        list(FIRST_SCREEN),
    )


def wider(page) -> list[str]:
    """The elements past the page's right edge, outside a block that scrolls itself."""
    return page.evaluate(
        """() => [...document.querySelectorAll("main *")]
            .filter(e => e.getBoundingClientRect().right > window.innerWidth)
            .filter(e => !e.closest(".highlight, pre"))
            .map(e => e.tagName + "#" + e.id + "." + e.className).slice(0, 8)"""
    )


@pytest.mark.parametrize("size", ["desktop", "phone"])
@pytest.mark.parametrize("case", list(CASES))
def test_the_first_screen_shows_the_message_state_summary_fix_and_proof(
    live_server, browser, case, size
):
    make, release, state = CASES[case]
    entry = make()
    viewport = DESKTOP if size == "desktop" else PHONE
    page = browser.new_page(viewport=viewport)
    query = f"?release={release}" if release else ""
    page.goto(f"{live_server.url}{entry.get_absolute_url()}{query}")

    for selector, box in first_screen(page).items():
        assert box["height"] > 0, selector
        assert 0 <= box["top"] < viewport["height"], selector
        assert box["right"] <= viewport["width"], selector
    assert page.locator("#message").inner_text().strip() == entry.error_message
    assert page.locator("#entry-state").get_attribute("data-state") == state
    assert page.locator("#summary").inner_text() == entry.summary
    assert entry.solutions[0].split("`")[0] in page.locator("#first-fix").inner_text()
    if release:
        assert f"burn {release}:" in page.locator("#release-state").inner_text()
    # Nothing but code scrolls sideways: every column of every table in sight.
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), wider(page)
    cells = page.locator("#claims-table td, #applies-to td, table.scenarios td")
    rights = cells.evaluate_all("cells => cells.map(c => c.getBoundingClientRect().right)")
    assert rights and max(rights) <= viewport["width"]
    SCREENS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENS / f"entry-{case}-{size}.png"))


def test_the_release_asked_for_marks_its_rows_and_its_proof(live_server, browser):
    entry = unreachable_entry()
    page = browser.new_page(viewport=PHONE)
    page.goto(f"{live_server.url}{entry.get_absolute_url()}?release=0.20.0-pre.3")
    assert page.locator("#entry-state").get_attribute("data-state") == "not_yet_reproduced"
    marked = page.locator("#claims-table tr.at-release")
    assert marked.count() == 1
    assert marked.locator("td").first.inner_text() == "0.20.0-pre.1 – 0.20.0-pre.5"
    assert "What to do in 0.20.0-pre.3" in page.locator("#first-fix").inner_text()
    # The reader's own release, typed in: the page answers for it.
    page.fill("#release-input", "0.19.1")
    page.click("#release-form button")
    page.wait_for_url("**?release=0.19.1")
    assert page.locator("#entry-state").get_attribute("data-state") == "unreachable"
    proof = page.locator("#proof").inner_text()
    assert "learner-builder-directory-at-model-path" in proof and "Can save the state." in proof
