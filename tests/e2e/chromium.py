"""Debian's chromium, headless, as the browser tests drive it."""

import os
import shutil
from contextlib import contextmanager

import pytest

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"

# Every browser test: a real browser against a live server on a committed database.
BROWSER_TEST = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        not os.path.exists(CHROMIUM) and not os.environ.get("CI"),
        reason="Debian's chromium is not installed (bin/setup --dev installs it as root)",
    ),
]

CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@contextmanager
def chromium():
    """A launched browser, for a fixture to yield pages from.

    Playwright's sync API runs an event loop in this thread. Start it after the test's
    data is made (by the fixtures it depends on), so Django's async guard can stand down.
    """
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    from playwright.sync_api import sync_playwright

    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            yield browser
            browser.close()
    finally:
        del os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"]
