"""Fan-out: the runs of many entries planned at once, their devices found once.

A sweep, a bulk re-verify and `verify` plan here: entries imported since the last
mirror of the registry are linked first, the devices (a broadcast to find a GPU
worker) are found once for all, every entry that gets no run is named with the
reason, and a Sweep records the runs so that their progress can be shown.
tasks.enqueue sends the planned runs as one Celery group.
"""

import uuid
from dataclasses import dataclass, field

from django.db.models import Prefetch
from django.utils import timezone

from errorkb.kb.models import ErrorEntry

from .models import Scenario, Sweep
from .routing import verification_devices
from .runs import PlannedRun, plan_entry
from .sync import link_new_entries

NO_SCENARIO = "no scenario is linked to it"
RETIRED = "its scenarios are retired: {}"
NOT_PUBLISHED = "not published: --all verifies published entries"
CHUNK = 500  # entries read at a time, with their scenarios


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
    """Every run of the entries (a queryset), and why the others get none."""
    link_new_entries()
    fanout = Fanout()
    with_scenarios = entries.order_by("pk").prefetch_related(
        Prefetch("scenarios", queryset=Scenario.objects.only("name", "active", "disproves"))
    )
    for entry in with_scenarios.iterator(chunk_size=CHUNK):
        linked = list(entry.scenarios.all())
        active = [s for s in linked if s.active]
        if not active:
            fanout.skipped.append((entry, why_no_runs(linked)))
            continue
        # Once, and only when there are runs to send: it may ask every worker.
        devices = devices or verification_devices()
        fanout.runs += plan_entry(entry, devices, active)
        fanout.entries += 1
    return fanout


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


def running_sweeps(limit: int = 5) -> list[tuple[Sweep, int]]:
    """The latest sweeps whose runs have not all finished, each with its finished count."""
    latest = [(sweep, sweep.finished_runs) for sweep in Sweep.objects.all()[:limit]]
    return [(sweep, done) for sweep, done in latest if done < sweep.runs]
