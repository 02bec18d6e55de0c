"""Fan-out: the runs of many entries planned at once, their devices found once.

A sweep, a bulk re-verify and `verify` plan here: entries imported since the last
mirror of the registry are linked first, the devices (a broadcast to find a GPU
worker) are found once for all, every entry that gets no run is named with the
reason, and a Sweep records the runs, and why each was needed, so that the page can
show them. tasks.enqueue sends the planned runs as one Celery group of batches.

Asked for, every run of the entries is planned. The nightly sweep plans only what
changed (`only_changed`): a run whose inputs (fingerprints.py) are those its latest
run ran on is confirmed without running again, except for the oldest 1/N of them
(`recheck_nights`), so that every run really runs again at least once every N nights.
"""

import heapq
import uuid
from collections import Counter, defaultdict
from dataclasses import dataclass, field, replace
from itertools import islice

from django.utils import timezone

from errorkb.kb.models import ErrorEntry

from . import fingerprints
from .models import Confirmation, Scenario, Sweep, VerificationRun
from .routing import verification_devices
from .runs import PlannedRun, plan_entry
from .sync import link_new_entries

NO_SCENARIO = "no scenario is linked to it"
RETIRED = "its scenarios are retired: {}"
NOT_PUBLISHED = "not published: --all verifies published entries"
CHUNK = 2000  # entries read at a time, with their links
EXAMPLES = 5  # entries named for each reason runs were planned


@dataclass
class Fanout:
    """What a fan-out planned, what it could not, and the Sweep recording it."""

    runs: list[PlannedRun] = field(default_factory=list)
    entries: int = 0  # entries with at least one run
    skipped: list[tuple[ErrorEntry, str]] = field(default_factory=list)
    confirmed: int = 0  # runs not planned: their inputs are those they last ran on
    sweep: Sweep | None = None

    @property
    def reasons(self) -> dict[str, int]:
        """How many runs were planned for each reason, the most common first."""
        return dict(Counter(run.reason for run in self.runs).most_common())

    @property
    def examples(self) -> dict[str, list[str]]:
        """A few of the entries planned for each reason."""
        named = defaultdict(list)
        for run in self.runs:
            if len(named[run.reason]) < EXAMPLES and run.entry_id not in named[run.reason]:
                named[run.reason].append(run.entry_id)
        return dict(named)

    @property
    def task_ids(self) -> list[str]:
        if self.sweep is None:
            return []
        return [self.sweep.task_id(number) for number in range(len(self.runs))]


def plan_runs(
    entries,
    devices: list[str] | None = None,
    *,
    only_changed: bool = False,
    recheck_nights: int = 0,
) -> Fanout:
    """The runs of the entries (a queryset), why each, and why the others get none.

    Every run, or with `only_changed` those whose inputs changed, first, then the oldest
    1/`recheck_nights` of the others (rounded up; none when 0). A few queries a chunk of
    entries, reading only what a plan needs: each entry's id and texts, its links to the
    scenarios, its confirmations.
    """
    link_new_entries()
    fanout = Fanout()
    fields = ("name", "active", "disproves", "definition")
    scenarios = {s.name: s for s in Scenario.objects.only(*fields)}
    # Whatever the caller's queryset joins or prefetches (the admin's does), only these.
    chosen = entries.select_related(None).prefetch_related(None).order_by("pk")
    chosen = chosen.only("id", "error_message", "message_pattern").iterator(chunk_size=CHUNK)
    unchanged: list[tuple] = []  # (ran_at, order, run): the confirmations to re-check from
    environments = None
    while chunk := list(islice(chosen, CHUNK)):
        linked = _linked(chunk, scenarios)
        planned = []
        for entry in chunk:
            active = [s for s in linked[entry.pk] if s.active]
            if not active:
                fanout.skipped.append((entry, why_no_runs(linked[entry.pk])))
                continue
            # Once, and only when there are runs to send: it may ask every worker.
            devices = devices or verification_devices()
            planned += plan_entry(entry, devices, active)
        if not only_changed:
            fanout.runs += planned
            continue
        environments = environments or fingerprints.environments(devices or [])
        for run, reason, ran_at in _compare(planned, chunk, scenarios, environments):
            if reason:
                fanout.runs.append(replace(run, reason=reason))
            else:
                unchanged.append((ran_at, len(unchanged), run))
    recheck = -(-len(unchanged) // recheck_nights) if recheck_nights else 0  # rounded up
    rolling = heapq.nsmallest(recheck, unchanged)
    fanout.runs += [replace(run, reason=fingerprints.ROLLING) for _, _, run in rolling]
    fanout.confirmed = len(unchanged) - len(rolling)
    fanout.entries = len({run.entry_id for run in fanout.runs})
    return fanout


def _compare(planned: list[PlannedRun], entries: list[ErrorEntry], scenarios, environments):
    """Each planned run, why it must run again (None: its inputs are unchanged), and when
    its latest run started.

    A run's fingerprint is compared with its confirmation's; only where they differ are
    the latest run's inputs read, to say which input changed.
    """
    texts = {
        entry.pk: fingerprints.entry_digest(entry.error_message, entry.message_pattern)
        for entry in entries
    }
    confirmations = Confirmation.objects.filter(entry_id__in=list(texts))
    rows = confirmations.values_list(
        "entry_id", "scenario_id", "variant", "device", "fingerprint", "ran_at"
    )
    latest = {tuple(row[:4]): row[4:] for row in rows}
    differ = []
    for run in planned:
        current = fingerprints.run_inputs(
            scenario=scenarios[run.scenario_name].definition,
            entry=texts[run.entry_id],
            variant=run.variant,
            device=run.device,
            environment=environments[run.device],
        )
        found = latest.get((run.entry_id, run.scenario_name, run.variant, run.device))
        if found is None:
            yield run, fingerprints.NEVER_RUN, None
        elif found[0] == fingerprints.fingerprint(current):
            yield run, None, found[1]
        else:
            differ.append((run, current, found[1]))
    if not differ:
        return
    rows = confirmations.filter(entry_id__in={run.entry_id for run, _, _ in differ})
    rows = rows.values_list(
        "entry_id", "scenario_id", "variant", "device", "run__inputs", "run__status"
    )
    ran = {tuple(row[:4]): row[4:] for row in rows}
    for run, current, ran_at in differ:
        inputs, status = ran[(run.entry_id, run.scenario_name, run.variant, run.device)]
        if status == VerificationRun.Status.ERROR:
            yield run, fingerprints.HARNESS_ERROR, ran_at
        else:
            yield run, fingerprints.why_again(inputs, current) or fingerprints.OTHER_CHANGE, ran_at


def _linked(entries: list[ErrorEntry], scenarios: dict[str, Scenario]) -> dict[str, list]:
    links = Scenario.entries.through.objects.filter(errorentry_id__in=[e.pk for e in entries])
    linked = defaultdict(list)
    for entry_id, name in links.order_by("scenario_id").values_list("errorentry_id", "scenario_id"):
        linked[entry_id].append(scenarios[name])
    return linked


def why_no_runs(linked: list[Scenario]) -> str:
    if not linked:
        return NO_SCENARIO
    return RETIRED.format(", ".join(sorted(s.name for s in linked)))


def record_sweep(fanout: Fanout, source: str) -> Fanout:
    """A Sweep for the planned runs, whose task ids it hands out; one with no runs too,
    when runs were confirmed without running: the page says that none was needed."""
    if fanout.runs or fanout.confirmed:
        fanout.sweep = Sweep.objects.create(
            started_at=timezone.now(),
            source=source,
            entries=fanout.entries,
            runs=len(fanout.runs),
            reasons=fanout.reasons,
            examples=fanout.examples,
            confirmed=fanout.confirmed,
            task_prefix=f"{source}-{uuid.uuid4().hex[:16]}-",
        )
    return fanout
