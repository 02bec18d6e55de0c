"""A real browser reads, release by release, when burn prints a demo entry's text.

The demo dataset is imported as shipped; the pages for "Can save model checkpoint." and
"Can delete model checkpoint." must show their "Releases and set-ups" tables.
"""

import re

import pytest

from tests.builders import load_demo
from tests.e2e.chromium import BROWSER_TEST, chromium

pytestmark = BROWSER_TEST

SAVE_MODEL = "/errors/27edcc848b620ecb/"
DELETE_MODEL = "/repos/tracel-ai/burn/errors/can-delete-model-checkpoint/"
LAUNCHER = "standard supervised launcher (SupervisedTraining::launch)"
HAND_BUILT = "hand-built LearningCheckpointer, no interrupter"
LEARNER_BUILDER = "LearnerBuilder::with_file_checkpointer"
SOURCE = re.compile(
    # burn's crates moved under crates/ in 0.13.0
    r"^https://github\.com/tracel-ai/burn/blob/[0-9a-f]{40}/(crates/)?[\w/.-]+\.rs#L[1-9]\d*$"
)


@pytest.fixture
def demo():
    load_demo()


@pytest.fixture
def browser_page(demo):
    with chromium() as browser:
        yield browser.new_page(viewport={"width": 390, "height": 844})  # a phone


def release_rows(page) -> list[dict]:
    """The table as the reader sees it: one dict per row, from the rendered cells."""
    return page.locator("#applies-to tbody tr").evaluate_all(
        """rows => rows.map(tr => ({
            outcome: tr.dataset.outcome,
            versions: tr.cells[0].innerText.trim(),
            setup: tr.cells[1].innerText.trim(),
            seen: tr.cells[2].innerText.trim(),
            source: tr.cells[3].querySelector("a").href,
        }))"""
    )


def test_the_save_page_shows_burns_own_set_ups_never_print_it_and_what_each_prints_instead(
    live_server, browser_page
):
    page = browser_page
    page.goto(f"{live_server.url}{SAVE_MODEL}")

    assert page.locator("h1#message").inner_text().strip() == "Can save model checkpoint."
    assert page.locator("#releases h2").inner_text() == "Releases and set-ups"
    assert page.locator("#applies-to").is_visible()
    every = release_rows(page)
    # Only a hand-made LearnerComponentTypes of 0.20.0-pre.1 – pre.5 prints it.
    (raised,) = [row for row in every if row["outcome"] == "raised"]
    assert raised["versions"] == "0.20.0-pre.1 – 0.20.0-pre.5"
    assert raised["setup"].startswith("a hand-made LearnerComponentTypes")
    rows = [row for row in every if row["outcome"] == "not raised"]
    assert len(rows) == len(every) - 1
    assert all(row["seen"].startswith("Not printed; you see instead:") for row in rows)

    instead = {(row["versions"], row["setup"]): row["seen"] for row in rows}
    assert "Training interrupted: {reason}" in instead["main", LAUNCHER]
    assert "cannot create '" in instead["main", LAUNCHER]
    # The tagged pre-releases' writer names no path: that text came after v0.22.0-pre.2.
    assert (
        "Record I/O error: I/O error: Read-only" in instead["0.22.0-pre.1 – 0.22.0-pre.2", LAUNCHER]
    )
    assert "Recorder error:" in instead["0.20.0 – 0.21.0", LAUNCHER]
    assert "Error when saving the state: {err}" in instead["main", HAND_BUILT]
    assert "Can save the state." in instead["0.13.0 – 0.20.0-pre.5", LEARNER_BUILDER]
    assert all(SOURCE.match(row["source"]) for row in rows)
    # Readable on a phone: the table scrolls inside itself, never the page.
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def test_the_delete_page_shows_which_releases_and_set_ups_print_it(live_server, browser_page):
    page = browser_page
    page.goto(f"{live_server.url}{DELETE_MODEL}")

    assert page.locator("h1#message").inner_text().strip() == "Can delete model checkpoint."
    rows = release_rows(page)
    raised = {(row["versions"], row["setup"]) for row in rows if row["outcome"] == "raised"}
    assert raised == {
        ("0.10.0 – 0.12.1", LEARNER_BUILDER),
        ("0.13.0 – 0.20.0-pre.5", LEARNER_BUILDER),
        ("0.20.0-pre.6", "SupervisedTraining::with_file_checkpointer(recorder)"),
        ("0.20.0 – 0.21.0", HAND_BUILT),
        ("0.22.0-pre.1 – main", HAND_BUILT),
    }
    for row in rows:
        if row["outcome"] == "raised":
            assert row["seen"].startswith("Can delete model checkpoint.")
            assert 'Unknown("sending on a closed channel")' in row["seen"]
            assert "Not printed" not in row["seen"]

    launcher = [row for row in rows if row["setup"] == LAUNCHER]
    assert {row["versions"] for row in launcher} == {
        "0.20.0 – 0.21.0",
        "0.22.0-pre.1 – 0.22.0-pre.2",
        "main",
    }
    for row in launcher:
        assert row["outcome"] == "not raised"
        assert "Not printed; you see instead: Training interrupted: {reason}" in row["seen"]

    failed_delete = [row for row in rows if "the delete itself failed" in row["setup"]]
    assert any("Can send message to checkpointer thread." in r["seen"] for r in failed_delete)

    # Each row links to the burn line it cites, pinned to a commit.
    first = page.locator("#applies-to tbody tr").first.locator("a")
    assert re.fullmatch(r"(crates/)?\S+\.rs:\d+@[0-9a-f]{10}", first.inner_text().strip())
    assert all(SOURCE.match(row["source"]) for row in rows)
