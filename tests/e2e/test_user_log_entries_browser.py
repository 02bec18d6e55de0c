"""A real browser reads the pages of the entries for what burn users paste: record loading,
the checkpoint-path sites, the cascade, and resuming on the wrong device.

Each page shows its releases and set-ups as its rows give them; the page of a panic that
follows an earlier one tells the reader to read the first panic in the log.
"""

import pytest

from tests.builders import load_demo
from tests.e2e.chromium import BROWSER_TEST, chromium
from tests.lookup.texts import demo_records

pytestmark = BROWSER_TEST

MESSAGES = (
    "Unable to load record.",
    "Invalid magic number",
    "Unsupported version",
    "File truncated: expected at least {min_size} bytes, got {available} bytes",
    "Metadata deserialization error: {}",
    "Error when deleting the state: {err}",
    "Error when sending response through callback channel: {err}",
    "The checkpointer thread should stop.",
    "Can delete learning agent checkpoint.",
    "Can save policy checkpoint.",
    "Can save learning agent checkpoint.",
    "Can load learning agent checkpoint.",
    "PANIC => {info}",
    "=== PANIC ===\nA fatal error happened, you can check the experiment logs here => '{}'"
    "\n=============",
    "Cannot move between autodiff and non-autodiff instances.",
)
RECORDS = [r for r in demo_records() if r["errorMessage"] in MESSAGES or "cascade" in r["tags"]]


@pytest.fixture(scope="module")
def browser():
    with chromium() as browser:
        yield browser


@pytest.mark.parametrize("record", RECORDS, ids=[r["slug"] for r in RECORDS])
def test_the_page_shows_its_releases_and_set_ups(live_server, browser, record):
    load_demo()
    page = browser.new_page(viewport={"width": 390, "height": 844})  # a phone
    page.goto(f"{live_server.url}/errors/{record['id']}/")

    heading = page.locator("h1#message").inner_text()
    assert heading.split() == record["errorMessage"].split()  # the banner's lines: one heading
    rows = page.locator("#applies-to tbody tr").evaluate_all(
        "rows => rows.map(tr => [tr.cells[0].innerText.trim(), tr.cells[1].innerText.trim()])"
    )
    assert rows == [[row["versions"], row["setup"]] for row in record["appliesTo"]]
    notice = page.locator("#read-first-panic")
    if "cascade" in record["tags"]:
        assert notice.is_visible()
        assert notice.inner_text().startswith("Read the first panic in your log.")
    else:
        assert notice.count() == 0
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    page.close()


def test_the_entries_this_file_names_are_all_in_the_demo_dataset():
    shipped = {record["errorMessage"] for record in demo_records()}
    assert set(MESSAGES) <= shipped
