"""With the system set to dark, every kind of page is dark and reads well: text at 7:1 or
more on the page, links and each state badge at 4.5:1 or more (WCAG AA) on what is behind
them. The light pages' badges read as well."""

import re

import pytest

from errorkb.kb.models import ErrorEntry
from tests.builders import load_demo
from tests.e2e.chromium import BROWSER_TEST, chromium

pytestmark = BROWSER_TEST

# What each element with text is drawn in, and on: the first ancestor with a background.
COLOURS = """selector => [...document.querySelectorAll(selector)]
.filter(element => element.textContent.trim()).map(element => {
  let behind = element;
  while (behind && getComputedStyle(behind).backgroundColor.endsWith(", 0)")) {
    behind = behind.parentElement;
  }
  const back = behind ? getComputedStyle(behind).backgroundColor : "rgb(255, 255, 255)";
  return [element.textContent.trim().slice(0, 40), getComputedStyle(element).color, back];
})"""


@pytest.fixture
def browser():
    load_demo()
    with chromium() as browser:
        yield browser


def luminance(colour: str) -> float:
    red, green, blue = (int(part) / 255 for part in re.findall(r"[0-9.]+", colour)[:3])
    linear = [
        c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in (red, green, blue)
    ]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(one: str, other: str) -> float:
    light, dark = sorted((luminance(one), luminance(other)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def pages() -> list[str]:
    entries = ErrorEntry.objects.published().select_related("repository")
    unreachable = entries.filter(error_message="Can save model checkpoint.").first()
    return [
        "/",
        entries.order_by("id").first().get_absolute_url(),
        unreachable.get_absolute_url(),
        "/lookup/",
        "/search/?q=checkpoint",
        "/verification/",
        entries.first().repository.get_absolute_url(),
    ]


def poor_contrast(page, selector: str, minimum: float) -> list[str]:
    return [
        f"{text!r}: {fore} on {back}"
        for text, fore, back in page.evaluate(COLOURS, selector)
        if contrast(fore, back) < minimum
    ]


def test_every_page_is_dark_and_reads_well_in_dark_mode(live_server, browser):
    page = browser.new_context(color_scheme="dark").new_page()
    problems = []
    for path in pages():
        page.goto(f"{live_server.url}{path}")
        ((_, _, background),) = page.evaluate(COLOURS, "body")
        assert luminance(background) < 0.02, f"{path}: {background}"
        problems += [f"{path} {p}" for p in poor_contrast(page, "body, main p, h1, h2", 7)]
        problems += [f"{path} {p}" for p in poor_contrast(page, "main a, .meta", 4.5)]
        badges = ".state, .claim-state, .badge, .notice, button"
        problems += [f"{path} {p}" for p in poor_contrast(page, badges, 4.5)]
    assert problems == [], "\n".join(problems)


def test_the_state_badges_read_well_in_light_mode_too(live_server, browser):
    page = browser.new_context(color_scheme="light").new_page()
    problems, badges = [], 0
    for path in pages():
        page.goto(f"{live_server.url}{path}")
        badges += page.locator(".state").count()
        problems += [
            f"{path} {p}" for p in poor_contrast(page, ".state, .claim-state, .badge", 4.5)
        ]
    assert badges > 3
    assert problems == []


def test_the_api_docs_are_dark_in_dark_mode(live_server, browser):
    page = browser.new_context(color_scheme="dark").new_page()
    page.goto(f"{live_server.url}/api/docs/")
    page.wait_for_selector(".opblock")
    ((_, _, background),) = page.evaluate(COLOURS, "body")
    assert luminance(background) < 0.02
    drawn = page.evaluate("getComputedStyle(document.querySelector('.swagger-ui')).filter")
    assert "invert" in drawn
