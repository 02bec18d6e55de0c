"""A real browser reads an entry page served by a running errorkb."""

import pytest

from tests.builders import import_records, make_record
from tests.e2e.chromium import BROWSER_TEST, chromium

pytestmark = BROWSER_TEST

SOURCE = "\n".join(
    [
        "fn checkpoint() {",
        "    let record = model.into_record();",
        '    save(record).expect("Can save model checkpoint.");',
        "}",
    ]
)


@pytest.fixture
def entry():
    related = make_record("Can load model checkpoint.")
    record = make_record(
        "Can save model checkpoint.",
        sourceCode=SOURCE,
        sourceCodeStart=176,
        sourceCodeEnd=179,
        lineNumber=178,
        related=[related["id"]],
    )
    import_records(related, record)
    return record


@pytest.fixture
def browser_page(entry):
    with chromium() as browser:
        yield browser.new_page(viewport={"width": 390, "height": 844})  # a phone


def test_it_shows_an_entry_page_in_a_real_browser(live_server, entry, browser_page):
    record = entry
    page = browser_page
    page.goto(f"{live_server.url}/errors/{record['id']}/")

    assert page.title() == "Can save model checkpoint. · acme/rocket · errorkb"
    headings = page.locator("main h2").all_inner_texts()
    assert headings == [
        "Error message",
        "What it means",
        "Source",
        "Solutions",
        "Example fix",
        "When it happens",
        "Prevention",
        "States per release and set-up",
        "Related errors",
        "Verification",
    ]
    marked = page.locator("#source .hll")
    assert marked.count() == 1
    assert (
        "178" in marked.inner_text()
        and 'expect("Can save model checkpoint.")' in marked.inner_text()
    )
    # The raising line is visibly marked, not just tagged.
    background = marked.evaluate("el => getComputedStyle(el).backgroundColor")
    assert background not in ("rgba(0, 0, 0, 0)", "transparent")
    # Readable on a phone: nothing but the code block scrolls sideways.
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")

    page.click("#json-link")
    body = page.locator("body").inner_text()
    assert f'"id":"{record["id"]}"' in body.replace(" ", "")
    assert page.url.endswith(f"/api/errors/{record['id']}")
