"""Scenarios and runs for tests, made through the real domain functions."""

import itertools
import re
from datetime import timedelta

from django.utils import timezone

from errorkb.kb.models import ErrorEntry
from errorkb.verification.models import Scenario, Sweep, VerificationRun
from errorkb.verification.runs import claim_run, record_outcome
from errorkb.verification.sync import sync_scenarios
from tests.builders import BURN_MAIN

_task_ids = itertools.count(1)


def registry_item(name: str, message: str | None = None, **overrides) -> dict:
    """A scenario as the trainer's registry lists it: it proves `message` unless overridden."""
    item = {
        "name": name,
        "description": f"{name}, for tests",
        "release": "main",
        "versions": "main (0.22.0-pre)",
        "setup": "hand-built",
        "setup_summary": "a hand-built LearningCheckpointer",
        "phase": "train",
        "fault": "disk-full",
        "target": "model",
        "epoch": 3,
        "expected": [f"{re.escape(message)}: .*"] if message else [],
        "expected_errno": 28,
        "proves": [message] if message else [],
        "disproves": [],
        "citations": [f"crates/burn-train/src/learner/base.rs:178@{BURN_MAIN}"],
        "fix": "free some space",
    }
    item.update(overrides)
    return item


def link_scenario(entry: ErrorEntry, name: str = "disk-full", **fields) -> Scenario:
    """A scenario that proves the entry, linked to it; pass disproves=[...] for absence."""
    fields = {
        "message": entry.error_message,
        "expected_pattern": entry.message_pattern,
        "proves": [entry.error_message],
        "fault": "disk-full",
        **fields,
    }
    # update_or_create: the test database holds the registry (tests/conftest.py), whose
    # names tests reuse.
    scenario, _ = Scenario.objects.update_or_create(
        name=name, defaults={"synced_at": timezone.now(), "active": True, **fields}
    )
    scenario.entries.add(entry)
    return scenario


def link_absence(
    entry: ErrorEntry,
    name: str = "supervised-disk-full",
    *,
    seen: str = "Training interrupted: {reason}",
) -> Scenario:
    """A scenario whose set-up never prints the entry's message: it prints `seen` instead."""
    return link_scenario(
        entry,
        name,
        message=seen,
        expected_pattern=re.escape(seen),
        proves=[seen],
        disproves=[entry.error_message],
        release="main",
        setup="supervised",
        setup_summary="SupervisedTraining::launch with its default checkpointers",
    )


def outcome(status: str, message: str | None = None, **extra) -> dict:
    """What trainer.runner.run_scenario returns."""
    return {
        "scenario": "a-scenario",
        "variant": "failure",
        "status": status,
        "message": message,
        "errno": 28 if status == "reproduced" else None,
        "trainer_version": "0.1.0",
        "torch_version": "2.13.0+cpu",
        "python_version": "3.11.7",
        "duration_s": 1.5,
        "log_tail": ["epoch 1/4", "fault: disk-full"],
        "reason": None,
        **extra,
    }


def record_run(
    entry: ErrorEntry,
    scenario: Scenario,
    status: str,
    message: str | None = None,
    *,
    variant: str = "failure",
    device: str = "cpu",
    minutes_ago: int = 0,
    texts: list[str] | None = None,
) -> VerificationRun:
    """Claim and record a run as a worker would; older runs for a history.

    With texts, the outcome lists them all (and message is the first), as the trainer
    reports a run that printed several texts.
    """
    run, _ = claim_run(f"task-{next(_task_ids)}", entry, scenario, variant, device)
    VerificationRun.objects.filter(pk=run.pk).update(
        started_at=timezone.now() - timedelta(minutes=minutes_ago)
    )
    run.refresh_from_db()
    if texts is None:
        return record_outcome(run, outcome(status, message))
    return record_outcome(run, outcome(status, texts[0] if texts else None, texts=texts))


def prove(entry, scenario, *, device="cpu", minutes_ago=0, message=None):
    """A reproduced failure whose message matches, and a passing fix."""
    record_run(
        entry, scenario, "reproduced", message or f"{entry.error_message}: Io(..)",
        device=device, minutes_ago=minutes_ago,
    )  # fmt: skip
    record_run(entry, scenario, "fixed", variant="fixed", device=device, minutes_ago=minutes_ago)


def sweep_in_progress(
    entries: list[ErrorEntry], scenario: Scenario, *, finished: int, running: int
) -> Sweep:
    """A sweep of the entries' runs of `scenario`, as workers leave it midway: `finished`
    runs recorded (reproduced), `running` claimed and still at work."""
    sweep = Sweep.objects.create(
        started_at=timezone.now(),
        source="sweep",
        entries=len(entries),
        runs=finished + running,
        task_prefix=f"sweep-{next(_task_ids)}-",
    )
    for number in range(finished + running):
        entry = entries[number % len(entries)]
        run, _ = claim_run(sweep.task_id(number), entry, scenario, "failure", "cpu")
        if number < finished:
            record_outcome(run, outcome("reproduced", f"{entry.error_message}: Io(..)"))
    return sweep


__all__ = [
    "sweep_in_progress",
    "registry_item",
    "link_scenario",
    "link_absence",
    "record_run",
    "prove",
    "sync_scenarios",
    "outcome",
]
