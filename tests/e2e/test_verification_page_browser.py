"""A real browser reads /verification/ while a sweep is in progress (no worker needed:
the sweep's runs are made in the test database as workers leave them midway)."""

import pytest
from django.utils import timezone

from errorkb.kb.models import ErrorEntry
from errorkb.verification import fingerprints
from errorkb.verification.fanout import plan_runs, record_sweep
from errorkb.verification.models import EntryState, State
from tests.builders import import_records, make_record
from tests.e2e.chromium import BROWSER_TEST, chromium
from tests.e2e.test_csp_browser import Watched
from tests.verification.builders import link_scenario, prove, record_run, sweep_in_progress

pytestmark = BROWSER_TEST
SCREENSHOT = "/tmp/verification-page.png"


@pytest.fixture
def sweeping():
    records = [make_record(f"Can save part {n}.", filePath=f"src/p{n}.rs") for n in range(6)]
    entries = import_records(*records)
    scenario = link_scenario(entries[0])
    scenario.entries.add(*entries[1:3])
    # Earlier days' runs, for the chart; then tonight's sweep, 7 of 12 runs finished.
    for days_ago, status in ((1, "reproduced"), (1, "error"), (3, "fixed"), (6, "not_reproduced")):
        variant = "fixed" if status == "fixed" else "failure"
        record_run(entries[0], scenario, status, variant=variant, minutes_ago=days_ago * 1440)
    sweep_in_progress(entries[:3], scenario, finished=7, running=5)
    EntryState.objects.filter(entry=entries[3]).delete()
    EntryState.objects.update_or_create(entry=entries[4], defaults={"state": State.FLAKY, **_now()})
    return entries


def _now() -> dict:
    now = timezone.now()
    return {"changed_at": now, "computed_at": now}


@pytest.fixture
def browser(sweeping):
    with chromium() as browser:
        yield browser


def test_it_shows_a_sweep_in_progress_with_its_chart_and_states(live_server, browser):
    watched = Watched(browser)
    page = watched.page
    page.set_viewport_size({"width": 900, "height": 1400})
    problems = watched.visit(f"{live_server.url}/verification/", ready="svg")

    progress = page.locator("#last-sweep progress")
    assert progress.get_attribute("value") == "7" and progress.get_attribute("max") == "12"
    assert "7 of 12 runs finished" in page.locator("#last-sweep").inner_text()
    box = progress.bounding_box()
    assert box and box["width"] > 50  # drawn, not collapsed

    svg = page.locator("#runs svg")
    chart = svg.bounding_box()
    assert chart and chart["width"] > 300 and chart["height"] > 80
    drawn = page.locator("#runs svg g.bar rect[data-status]")
    assert drawn.count() >= 5  # today's reproduced and running, and the earlier days
    boxes = [drawn.nth(n).bounding_box() for n in range(drawn.count())]
    assert all(b and b["width"] > 0 and b["height"] > 0 for b in boxes)
    fill = page.locator("#runs svg rect.status-reproduced").first.evaluate(
        "el => getComputedStyle(el).fill"
    )
    assert fill not in ("none", "rgb(0, 0, 0)")  # the stylesheet colours it under the CSP

    assert len(page.locator("ul.state-counts li").all_inner_texts()) == 7
    groups = page.locator("section.state-group")
    listed = {
        groups.nth(n).get_attribute("id"): (
            int(groups.nth(n).get_attribute("data-count")),
            groups.nth(n).locator("li").count(),
        )
        for n in range(groups.count())
    }
    assert listed["state-flaky"] == (1, 1)
    assert sum(count for count, _ in listed.values()) == 6
    assert all(count == shown for count, shown in listed.values())
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    page.screenshot(path=SCREENSHOT, full_page=True)
    assert problems == []


@pytest.fixture
def planned_sweep(settings):
    """Last night's sweep, planned by the real planner after one entry's text changed and
    with a rolling share: nothing is sent, the page shows why runs were needed."""
    settings.VERIFY_RECHECK_NIGHTS = 4
    records = [make_record(f"Can save part {n}.", filePath=f"src/p{n}.rs") for n in range(4)]
    entries = import_records(*records)
    scenario = link_scenario(entries[0])
    for hours, entry in enumerate(entries):
        scenario.entries.add(entry)
        prove(entry, scenario, minutes_ago=60 * hours, message=f"{entry.error_message}: Io(..)")
    ErrorEntry.objects.filter(pk=entries[1].pk).update(message_pattern=r"Can save part 1\. now")
    fanout = plan_runs(ErrorEntry.objects.all(), ["cpu"], only_changed=True, recheck_nights=4)
    record_sweep(fanout, "sweep")
    return entries


def test_it_shows_why_the_last_sweeps_runs_were_needed(live_server, planned_sweep):
    with chromium() as browser:
        watched = Watched(browser)
        page = watched.page
        page.set_viewport_size({"width": 900, "height": 1400})
        problems = watched.visit(f"{live_server.url}/verification/", ready="#sweep-reasons")
        reasons = page.locator("#sweep-reasons li[data-reason]")
        shown = {
            reasons.nth(n).get_attribute("data-reason"): int(
                reasons.nth(n).get_attribute("data-runs")
            )
            for n in range(reasons.count())
        }
        # Entry 1's text changed (its two runs); of the other six, the oldest quarter (2).
        assert shown == {fingerprints.CHANGED["entry"]: 2, fingerprints.ROLLING: 2}
        text = page.locator("#sweep-reasons").inner_text()
        changed = page.locator(
            f'#sweep-reasons li[data-reason="{fingerprints.CHANGED["entry"]}"] a'
        )
        assert changed.inner_text() == planned_sweep[1].error_message  # named, linked
        assert changed.get_attribute("href") == planned_sweep[1].get_absolute_url()
        assert "4 runs stood confirmed without running" in text
        assert "at least once every 4 nights" in page.locator("#recheck").inner_text()
        oldest = page.locator("#longest-unrun li")
        assert oldest.count() == 4
        assert planned_sweep[3].error_message in oldest.first.inner_text()  # run 3 hours ago
        assert "last really run" in oldest.first.inner_text()
        assert page.locator("#sweep-reasons").bounding_box()["height"] > 20
        assert problems == []
