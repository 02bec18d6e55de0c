"""A real browser loads every kind of page without a 404: the icon each names is there,
and so is /favicon.ico for the pages that name none."""

import pytest

from errorkb.kb.models import ErrorEntry
from tests.builders import load_demo
from tests.e2e.chromium import BROWSER_TEST, chromium

pytestmark = BROWSER_TEST


@pytest.fixture
def browser():
    load_demo()
    with chromium() as browser:
        yield browser


def pages() -> list[str]:
    entry = ErrorEntry.objects.published().select_related("repository").order_by("id").first()
    return [
        "/",
        entry.get_absolute_url(),
        "/lookup/",
        "/search/?q=checkpoint",
        "/verification/",
        "/api/docs/",
        "/admin/login/",
    ]


def test_no_page_asks_for_anything_that_is_not_there(live_server, browser):
    page = browser.new_page()
    failed = []
    page.on("response", lambda r: failed.append(f"{r.status} {r.url}") if r.status >= 400 else None)
    page.on("console", lambda m: failed.append(m.text) if m.type == "error" else None)
    icons = set()
    for path in pages():
        page.goto(f"{live_server.url}{path}", wait_until="networkidle")
        icons |= set(
            page.eval_on_selector_all("link[rel~=icon]", "links => links.map(l => l.href)")
        )
    assert failed == []
    assert f"{live_server.url}/static/kb/favicon.svg" in icons
    for icon in [*icons, f"{live_server.url}/favicon.ico"]:
        response = page.request.get(icon)
        assert response.ok, icon
        assert response.headers["content-type"].startswith("image/"), icon
