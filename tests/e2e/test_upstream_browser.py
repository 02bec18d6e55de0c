"""In a real browser: what a scan of a real git history found, on the pages readers see.

The test builds a small repository (tests/upstream/history.py), scans its last commit
and its release tags with scan_source, publishes the drafts, and reads the pages.
"""

from io import StringIO

import pytest
from django.core.management import call_command

from errorkb.kb.models import ErrorEntry
from tests.e2e.chromium import BROWSER_TEST, chromium
from tests.upstream.history import NEGATIVE, REPO, REWORDED, SAVE, build_history

pytestmark = BROWSER_TEST


@pytest.fixture
def history(tmp_path):
    history = build_history(tmp_path / "rocket")
    for commit, *more in ((history.c1,), (history.c4, "--releases")):
        call_command("scan_source", "--repo", REPO, "--path", str(history.repo.path),
                     "--commit", commit, "--no-progress", *more, stdout=StringIO())  # fmt: skip
    ErrorEntry.objects.update(status=ErrorEntry.Status.PUBLISHED)  # a curator's step
    return history


@pytest.fixture
def page(history):
    with chromium() as browser:
        yield browser.new_page()


def rows(page) -> list[list[str]]:
    return page.locator("#raised-in-table tbody tr").evaluate_all(
        """rows => rows.map(tr => [
            tr.cells[0].innerText.trim(), tr.cells[1].innerText.trim(),
            tr.cells[1].querySelector("a").href])"""
    )


def test_a_message_gone_upstream_says_so_and_where_it_was_raised(live_server, history, page):
    entry = ErrorEntry.objects.get(error_message=NEGATIVE)
    page.goto(f"{live_server.url}{entry.get_absolute_url()}")

    notice = page.locator("#removed-upstream").inner_text()
    assert notice == (
        f"Removed upstream: not raised at {history.c4[:12]} — last raised in 0.3.0 "
        f"({history.c3[:12]})."
    )
    assert page.locator("#raised-span").inner_text() == "Raised in 0.1.0 – 0.3.0"
    blob = f"https://github.com/{REPO}/blob"
    assert rows(page) == [
        ["0.1.0 – 0.2.0", "py/tool.py:3", f"{blob}/{history.c2}/py/tool.py#L3"],
        ["0.3.0", "py/tools/run.py:3", f"{blob}/{history.c3}/py/tools/run.py#L3"],
    ]


def test_pasted_panics_name_the_releases_their_lines_fit(live_server, history, page):
    page.goto(f"{live_server.url}/lookup/")
    page.fill(
        "#lookup-text",
        "thread 'main' panicked at /home/me/rocket/src/learner.rs:4:10:\n"
        f'{SAVE}: Os {{ code: 28, kind: StorageFull, message: "No space left on device" }}\n'
        "thread 'main' panicked at src/learner.rs:11:44:\n"
        "Cannot load the state: Invalid magic number\n",
    )
    page.click("form.lookup-form button[type=submit]")
    page.wait_for_selector(".lookup-results")

    texts = page.locator(".lookup-match").all_inner_texts()
    assert page.locator(".lookup-match > a").all_inner_texts() == [SAVE, REWORDED]
    assert "It fits release 0.1.0." in texts[0]
    assert "It fits release 0.3.0." in texts[1]
