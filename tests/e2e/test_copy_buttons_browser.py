"""On an entry page, the message, each piece of code and each fix has a Copy button that
puts its text, without line numbers, on the clipboard; also where the Clipboard API is
missing (a page served over plain http)."""

import pytest

from tests.builders import import_records, make_record
from tests.e2e.chromium import BROWSER_TEST, chromium

pytestmark = BROWSER_TEST

SOURCE = 'fn checkpoint() {\n    save(record).expect("Can save model checkpoint.");\n}'
FIX = "let record = model.into_record();\nrecorder.record(record, path)?;"
NO_CLIPBOARD_API = "Object.defineProperty(navigator, 'clipboard', {value: undefined});"


@pytest.fixture
def entry_url():
    record = make_record(
        "Can save model checkpoint.",
        sourceCode=SOURCE,
        sourceCodeStart=177,
        sourceCodeEnd=179,
        lineNumber=178,
        solutions=["Free disk space with `df -h`.", "Check the directory's permissions."],
        exampleFix=FIX,
    )
    (entry,) = import_records(record)
    return entry.get_absolute_url()


@pytest.fixture
def browser(entry_url):
    with chromium() as browser:
        yield browser


def open_page(browser, url: str, *, script: str = ""):
    context = browser.new_context(permissions=["clipboard-read", "clipboard-write"])
    page = context.new_page()
    if script:
        page.add_init_script(script)
    page.goto(url)
    return page


def copied(page, selector: str) -> str:
    page.locator(f"{selector} > button.copy").first.click()
    page.locator(f"{selector} > button.copy", has_text="Copied").first.wait_for()
    return page.evaluate("navigator.clipboard.readText()")


def test_each_copy_button_copies_its_text(live_server, browser, entry_url):
    page = open_page(browser, f"{live_server.url}{entry_url}")
    marked = page.locator("[data-copy]").count()
    assert marked >= 5  # the message, the source, the example fix, two solutions
    assert page.locator("[data-copy] > button.copy").count() == marked
    assert copied(page, "#error-message .message") == "Can save model checkpoint."
    assert copied(page, "#source [data-copy]") == SOURCE
    assert copied(page, "#example-fix [data-copy]") == FIX
    assert copied(page, "ol.solutions li:nth-child(1)") == "Free disk space with df -h."
    assert copied(page, "ol.solutions li:nth-child(2)") == "Check the directory's permissions."


def test_it_copies_without_the_clipboard_api(live_server, browser, entry_url):
    page = open_page(browser, f"{live_server.url}{entry_url}", script=NO_CLIPBOARD_API)
    page.locator("#error-message .message > button.copy").click()
    page.locator("#error-message .message > button.copy", has_text="Copied").wait_for()
    assert page.locator("textarea.copy-buffer").count() == 0  # the selection it used is gone
    reader = page.context.new_page()  # a page of the same origin, with the Clipboard API
    reader.goto(f"{live_server.url}/")
    assert reader.evaluate("navigator.clipboard.readText()") == "Can save model checkpoint."
