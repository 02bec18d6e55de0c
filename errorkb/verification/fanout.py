"""Fan-out: the runs of many entries planned at once, their devices found once.

A sweep, a bulk re-verify and `verify` plan here: entries imported since the last
mirror of the registry are linked first, the devices (a broadcast to find a GPU
worker) are found once for all, every entry that gets no run is named with the
reason, and a Sweep records the runs so that their progress can be shown.
tasks.enqueue sends the planned runs as one Celery group of batches (enqueue_batch).
"""

import uuid
from collections import defaultdict
from dataclasses import dataclass, field
from itertools import islice

from django.utils import timezone

from errorkb.kb.models import ErrorEntry

from .models import Scenario, Sweep
from .routing import verification_devices
from .runs import PlannedRun, plan_entry
from .sync import link_new_entries

NO_SCENARIO = "no scenario is linked to it"
RETIRED = "its scenarios are retired: {}"
NOT_PUBLISHED = "not published: --all verifies published entries"
CHUNK = 2000  # entries read at a time, with their links


@dataclass
class Fanout:
    """What a fan-out planned, what it could not, and the Sweep recording it."""

    runs: list[PlannedRun] = field(default_factory=list)
    entries: int = 0  # entries with at least one run
    skipped: list[tuple[ErrorEntry, str]] = field(default_factory=list)
    sweep: Sweep | None = None

    @property
    def task_ids(self) -> list[str]:
        if self.sweep is None:
            return []
        return [self.sweep.task_id(number) for number in range(len(self.runs))]


def plan_runs(entries, devices: list[str] | None = None) -> Fanout:
    """Every run of the entries (a queryset), and why the others get none.

    A few queries a chunk of entries, reading only what a plan needs: each entry's id and
    message (which scenarios prove its absence), and its links to the scenarios.
    """
    link_new_entries()
    fanout = Fanout()
    scenarios = {s.name: s for s in Scenario.objects.only("name", "active", "disproves")}
    # Whatever the caller's queryset joins or prefetches (the admin's does), only these.
    chosen = entries.select_related(None).prefetch_related(None).order_by("pk")
    chosen = chosen.only("id", "error_message").iterator(chunk_size=CHUNK)
    while chunk := list(islice(chosen, CHUNK)):
        linked = _linked(chunk, scenarios)
        for entry in chunk:
            active = [s for s in linked[entry.pk] if s.active]
            if not active:
                fanout.skipped.append((entry, why_no_runs(linked[entry.pk])))
                continue
            # Once, and only when there are runs to send: it may ask every worker.
            devices = devices or verification_devices()
            fanout.runs += plan_entry(entry, devices, active)
            fanout.entries += 1
    return fanout


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
    """A Sweep for the planned runs, whose task ids it hands out."""
    if fanout.runs:
        fanout.sweep = Sweep.objects.create(
            started_at=timezone.now(),
            source=source,
            entries=fanout.entries,
            runs=len(fanout.runs),
            task_prefix=f"{source}-{uuid.uuid4().hex[:16]}-",
        )
    return fanout
