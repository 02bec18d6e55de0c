"""/verification/: the sweeps, the published entries by stored state, the runs per day."""

import re
from datetime import UTC, datetime, timedelta

import pytest
from django.utils import timezone
from django_celery_beat.models import PeriodicTask

from errorkb.kb.models import ErrorEntry
from errorkb.verification.fanout import plan_runs, record_sweep
from errorkb.verification.models import EntryState, State, Sweep, VerificationRun
from tests.builders import import_records, make_record
from tests.verification.builders import link_scenario, prove, record_run, sweep_in_progress

pytestmark = pytest.mark.django_db
URL = "/verification/"
NIGHTLY = "Nightly verification sweep"  # made by verification's migration 0002


def add_entries(count: int, start: int = 0) -> list[ErrorEntry]:
    records = [
        make_record(f"Rocket part {n} failed.", filePath=f"src/p{n}.rs")
        for n in range(start, start + count)
    ]
    return import_records(*records)


def store(entries, state: State, *, minutes_ago: int = 0) -> None:
    """Stored states written straight in: the page reads only the stored rows."""
    at = timezone.now() - timedelta(minutes=minutes_ago)
    EntryState.objects.bulk_create(
        [EntryState(entry=e, state=state, changed_at=at, computed_at=at) for e in entries]
    )


def fresh_get(client) -> str:
    response = client.get(URL, HTTP_CACHE_CONTROL="no-cache")
    assert response.status_code == 200
    return response.content.decode()


def group(html: str, state: State) -> str:
    start = html.index(f'id="state-{state.value}"')
    return html[start : html.index("</section>", start)]


def listed(html: str, state: State) -> list[str]:
    return re.findall(r'<li><a href="[^"]+">([^<]+)</a>', group(html, state))


def count_of(html: str, state: State) -> int:
    return int(re.search(r'data-count="(\d+)"', group(html, state)).group(1))


def test_it_is_linked_from_every_pages_header(client):
    add_entries(1)
    html = client.get("/").content.decode()
    header = html[html.index('<header class="site">') : html.index("</header>")]
    assert '<a href="/verification/" id="verification-link">Verification</a>' in header


def test_it_groups_the_published_entries_by_their_stored_state(client):
    verified, flaky, plain, draft = add_entries(4)
    prove(verified, link_scenario(verified, "proves-verified"))
    store([flaky], State.FLAKY)
    ErrorEntry.objects.filter(pk=draft.pk).update(status=ErrorEntry.Status.DRAFT)
    html = fresh_get(client)
    assert [count_of(html, state) for state in State] == [1, 0, 0, 0, 1, 0, 1]
    assert listed(html, State.VERIFIED) == [verified.error_message]
    assert listed(html, State.FLAKY) == [flaky.error_message]
    assert listed(html, State.UNVERIFIED) == [plain.error_message]  # no row: unverified
    assert draft.error_message not in html
    assert 'class="state state-flaky" title="verification state">flaky</span>' in html


def test_it_lists_the_entries_that_changed_state_most_recently_first(client):
    oldest, newest, middle = add_entries(3)
    for entry, minutes_ago in ((oldest, 300), (newest, 1), (middle, 60)):
        store([entry], State.DRIFTED, minutes_ago=minutes_ago)
    html = fresh_get(client)
    names = [e.error_message for e in (newest, middle, oldest)]
    assert listed(html, State.DRIFTED) == names


def test_each_state_lists_twenty_entries_and_counts_the_rest(client):
    entries = add_entries(25)
    store(entries[:23], State.NOT_REPRODUCING)
    html = fresh_get(client)
    assert len(listed(html, State.NOT_REPRODUCING)) == 20
    assert "and 3 more, changed earlier." in group(html, State.NOT_REPRODUCING)
    assert count_of(html, State.UNVERIFIED) == 2


def test_unverified_lists_entries_stored_unverified_before_those_never_verified(client):
    never, unlinked = add_entries(2)
    store([unlinked], State.UNVERIFIED)
    html = fresh_get(client)
    assert listed(html, State.UNVERIFIED) == [unlinked.error_message, never.error_message]


def test_it_makes_as_few_queries_for_many_entries_as_for_few(client, django_assert_max_num_queries):
    entries = add_entries(140)
    for n, state in enumerate(State):
        if state != State.UNVERIFIED:
            store(entries[n * 20 : n * 20 + 20], state, minutes_ago=n)
    # content token, counts, one list per state (two for unverified), sweeps, schedule,
    # the newest run and the chart's GROUP BY: bounded, whatever the number of entries.
    with django_assert_max_num_queries(16):
        html = fresh_get(client)
    assert [count_of(html, state) for state in State] == [20] * 7


def bars(html: str) -> dict[str, dict[str, int]]:
    """{day: {status: runs}} as the chart's SVG draws them."""
    svg = html[html.index("<svg") : html.index("</svg>")]
    found = {}
    for day, body in re.findall(r'<g class="bar" data-day="([\d-]+)"[^>]*>(.*?)</g>', svg):
        found[day] = {
            s: int(n) for s, n in re.findall(r'data-status="(\w+)" data-runs="(\d+)"', body)
        }
    return found


def test_the_chart_draws_a_bar_per_day_stacked_by_the_runs_statuses(client):
    (entry,) = add_entries(1)
    scenario = link_scenario(entry)
    record_run(entry, scenario, "reproduced", entry.error_message, minutes_ago=2 * 1440)
    record_run(entry, scenario, "reproduced", entry.error_message, minutes_ago=2 * 1440)
    record_run(entry, scenario, "error", minutes_ago=2 * 1440)
    record_run(entry, scenario, "fixed", variant="fixed")
    drawn = bars(fresh_get(client))
    assert len(drawn) == 30
    today = timezone.localdate(VerificationRun.objects.latest("started_at").started_at)
    two_days_ago = (today - timedelta(days=2)).isoformat()
    assert drawn[two_days_ago] == {"reproduced": 2, "error": 1}
    assert drawn[today.isoformat()] == {"fixed": 1}
    assert sum(1 for runs in drawn.values() if runs) == 2
    assert max(drawn) == today.isoformat()  # the window ends on the newest run's day


def test_the_chart_has_titles_axis_labels_and_a_table(client):
    (entry,) = add_entries(1)
    record_run(entry, link_scenario(entry), "not_reproduced")
    html = fresh_get(client)
    day = timezone.localdate().isoformat()
    assert f"<title>{day}: 1 run (1 not reproduced)</title>" in html
    assert '<text class="axis"' in html
    row = re.search(rf'<tr><th scope="row">{day}</th>(.*?)</tr>', html).group(1)
    assert re.findall(r"<td>(\d+)</td>", row) == ["0", "0", "1", "0", "0", "0", "1"]


def test_without_runs_or_sweeps_it_says_so(client):
    add_entries(1)
    html = fresh_get(client)
    assert "<p>No runs yet.</p>" in html
    assert "No sweep has run yet." in html


def test_it_shows_when_the_nightly_sweep_is_next_due(client):
    add_entries(1)
    task = PeriodicTask.objects.get(name=NIGHTLY)
    task.last_run_at = datetime(2026, 11, 30, 3, 0, 4, tzinfo=UTC)
    task.save()
    html = fresh_get(client)
    assert (
        f'Next: {NIGHTLY}, due <time datetime="2026-12-01T03:00:00+00:00">'
        "2026-12-01 03:00 UTC</time>"
    ) in html


def test_it_says_when_no_sweep_is_scheduled(client):
    add_entries(1)
    etag = client.get(URL)["ETag"]
    task = PeriodicTask.objects.get(name=NIGHTLY)
    task.enabled = False
    task.save()
    # A save of the schedule moves the content token too: no 304 for the old answer.
    response = client.get(URL, HTTP_IF_NONE_MATCH=etag)
    assert response.status_code == 200
    assert '<p id="next-sweep">No sweep is scheduled.</p>' in response.content.decode()


def test_it_shows_a_running_sweeps_progress_and_moves_as_runs_finish(client):
    entries = add_entries(2)
    scenario = link_scenario(entries[0])
    scenario.entries.add(entries[1])
    sweep = sweep_in_progress(entries, scenario, finished=3, running=2)
    first = client.get(URL)
    html = first.content.decode()
    assert '<progress value="3" max="5">' in html
    assert "3 of 5 runs finished" in html
    assert "the scheduled sweep, started" in html

    run = VerificationRun.objects.get(task_id=sweep.task_id(3))
    run.status = VerificationRun.Status.FIXED
    run.save()
    again = client.get(URL, HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 200  # a run finished: the ETag moved
    assert "4 of 5 runs finished" in again.content.decode()


def test_a_finished_sweep_shows_no_progress_bar(client):
    entries = add_entries(1)
    sweep_in_progress(entries, link_scenario(entries[0]), finished=2, running=0)
    html = fresh_get(client)
    assert "2 runs for 1 entry, all finished." in html
    assert "<progress" not in html


def test_an_older_sweep_still_running_is_shown_below_the_last(client):
    entries = add_entries(1)
    scenario = link_scenario(entries[0])
    older = sweep_in_progress(entries, scenario, finished=1, running=3)
    sweep_in_progress(entries, scenario, finished=2, running=0)
    html = fresh_get(client)
    last = html[html.index('id="last-sweep"') : html.index("</p>", html.index('id="last-sweep"'))]
    assert "all finished." in last
    also = html[html.index("Also running:") :]
    assert f'data-sweep="{older.pk}"' in also and "1 of 4 runs finished" in also


def test_it_never_names_a_draft_among_the_entries_a_sweep_ran(client):
    published, draft = add_entries(2)
    scenario = link_scenario(published, "proves-both")
    scenario.entries.add(draft)
    for entry in (published, draft):
        prove(entry, scenario)
    ErrorEntry.objects.filter(pk=draft.pk).update(status=ErrorEntry.Status.DRAFT)
    # The texts of both changed: a re-verify of changed entries covers drafts too.
    ErrorEntry.objects.update(message_pattern="changed")
    record_sweep(plan_runs(ErrorEntry.objects.all(), ["cpu"], only_changed=True), "changed")
    html = fresh_get(client)
    start = html.index('<div id="sweep-reasons"')
    reasons = html[start : html.index("</div>", start)]
    assert "4 the entry&#x27;s message or pattern changed" in re.sub(r"<[^>]+>", "", reasons)
    assert published.error_message in reasons and draft.error_message not in html
    assert draft.pk not in html


@pytest.mark.parametrize(
    ("reasons", "examples"),
    [
        (["not", "a", "dict"], {}),
        ({"never run": "three"}, {}),
        ({"never run": 3}, {"never run": 7}),
    ],
)
def test_a_sweep_row_of_another_shape_leaves_the_page_whole(client, reasons, examples):
    (entry,) = add_entries(1)
    Sweep.objects.create(
        started_at=timezone.now(), source="sweep", runs=3, reasons=reasons, examples=examples,
        task_prefix="sweep-odd-",
    )  # fmt: skip
    html = fresh_get(client)
    assert 'id="sweep-reasons"' in html and entry.error_message in html
