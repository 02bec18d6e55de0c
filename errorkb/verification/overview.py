"""What the verification page shows: the latest sweeps, the entries by state, runs per day.

Plain functions over the stored state and the runs, each a bounded number of queries
however many entries and runs there are: the page must stay fast at 100,000 entries.
"""

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta

from django.db.models import Count, F, QuerySet
from django.utils import timezone

from errorkb.kb.models import ErrorEntry

from .models import Confirmation, State, Sweep, VerificationRun
from .state.stored import ANNOTATION, with_stored_state

SHOWN_PER_STATE = 20  # entries listed in each state; the rest are counted
SHOWN_OLDEST = 10  # entries listed as the longest since one of their runs really ran
CHART_DAYS = 30
RECENT_SWEEPS = 5  # the latest sweeps looked at for progress (one count each)
RELATED = ("repository", "verification_state")  # what each listed entry shows


@dataclass(frozen=True)
class StateGroup:
    """The published entries in one state: how many, and the latest to change into it."""

    state: State
    count: int
    entries: list = field(default_factory=list)

    @property
    def more(self) -> int:
        return self.count - len(self.entries)


def state_counts(entries: QuerySet) -> dict[State, int]:
    """How many of the entries are in each state (no stored row: unverified): one GROUP BY."""
    rows = with_stored_state(entries).order_by().values(ANNOTATION).annotate(count=Count("pk"))
    counts = dict.fromkeys(State, 0)
    for row in rows:
        counts[State(row[ANNOTATION])] += row["count"]
    return counts


def entries_by_state(entries: QuerySet, *, shown: int = SHOWN_PER_STATE) -> list[StateGroup]:
    """Every state, in State's order, with its count and its `shown` latest changed entries."""
    counts = state_counts(entries)
    return [
        StateGroup(
            state, counts[state], latest_changed(entries, state, shown) if counts[state] else []
        )
        for state in State
    ]


def latest_changed(entries: QuerySet, state: State, shown: int) -> list:
    """The entries in `state` that changed into it most recently, each with its stored state."""
    stored = with_stored_state(entries.filter(verification_state__state=state))
    stored = stored.select_related(*RELATED)
    found = list(stored.order_by(F("verification_state__changed_at").desc(), "pk")[:shown])
    if state != State.UNVERIFIED or len(found) >= shown:
        return found
    # Entries never given a state never changed: the most recently edited follow.
    never = with_stored_state(entries.filter(verification_state__isnull=True))
    never = never.select_related(*RELATED).order_by("-updated_at", "pk")
    return found + list(never[: shown - len(found)])


@dataclass(frozen=True)
class DayRuns:
    """One day's runs, by status."""

    day: date
    counts: dict[str, int]

    @property
    def total(self) -> int:
        return sum(self.counts.values())


def runs_per_day(days: int = CHART_DAYS) -> list[DayRuns]:
    """The runs started on each of the `days` days up to the newest run's, oldest first.

    The window ends on the newest run's day, not today: what the page shows then follows
    from the database alone, so its ETag (the content token) can never vouch for a copy
    that midnight has made wrong. With a nightly sweep that day is today or yesterday.
    """
    runs = VerificationRun.objects.order_by("-started_at")
    newest = runs.values_list("started_at", flat=True).first()
    if newest is None:
        return []
    last = timezone.localdate(newest)
    first = last - timedelta(days=days - 1)
    since = timezone.make_aware(datetime.combine(first, time.min))
    counts = defaultdict(dict)
    for row in VerificationRun.objects.filter(started_at__gte=since).per_day_and_status():
        counts[row["day"]][row["status"]] = row["runs"]
    return [DayRuns(day, counts[day]) for day in (first + timedelta(n) for n in range(days))]


@dataclass(frozen=True)
class SweepProgress:
    """A sweep and how many of its runs have finished."""

    sweep: Sweep
    finished: int

    @property
    def running(self) -> bool:
        return self.finished < self.sweep.runs


@dataclass(frozen=True)
class PlannedBecause:
    """One reason a sweep's runs were planned: how many, and a few of their entries."""

    reason: str
    runs: int
    entries: list


def planned_because(sweep: Sweep) -> list[PlannedBecause]:
    """Why the sweep's runs were needed, each reason with the published entries it names
    (one query; a draft, or an entry deleted since, is left out: the page is public)."""
    why = sweep.why
    ids = [entry for _, _, entries in why for entry in entries]
    named = ErrorEntry.objects.published().select_related("repository").in_bulk(ids)
    return [
        PlannedBecause(reason, runs, [named[pk] for pk in entries if pk in named])
        for reason, runs, entries in why
    ]


def recent_sweeps(limit: int = RECENT_SWEEPS) -> list[SweepProgress]:
    """The latest sweeps, newest first, each with its finished runs (one count each)."""
    return [SweepProgress(sweep, sweep.finished_runs) for sweep in Sweep.objects.all()[:limit]]


@dataclass(frozen=True)
class LongestUnrun:
    """A published entry, and when the run of it that has gone longest without running
    again last really ran."""

    entry: object
    ran_at: datetime


def longest_unrun(entries: QuerySet, *, shown: int = SHOWN_OLDEST) -> list[LongestUnrun]:
    """The entries whose oldest confirmation is oldest: next in line for the rolling
    re-check. The oldest confirmations, read from their index a page at a time, until
    `shown` entries are found: a bounded read however many there are."""
    found: dict[str, datetime] = {}
    confirmations = Confirmation.objects.filter(entry__in=entries).oldest_first()
    for start in range(0, 20 * shown, 2 * shown):
        page = list(confirmations.values_list("entry_id", "ran_at")[start : start + 2 * shown])
        for entry_id, ran_at in page:
            found.setdefault(entry_id, ran_at)
        if len(found) >= shown or len(page) < 2 * shown:
            break
    chosen = list(found.items())[:shown]
    listed = entries.select_related(*RELATED).in_bulk([entry_id for entry_id, _ in chosen])
    return [
        LongestUnrun(listed[entry_id], ran_at) for entry_id, ran_at in chosen if entry_id in listed
    ]
