"""Scenarios and runs for tests, made through the real domain functions."""

import itertools
from datetime import timedelta

from django.utils import timezone

from errorkb.kb.models import ErrorEntry
from errorkb.verification.models import Scenario, VerificationRun
from errorkb.verification.runs import claim_run, record_outcome
from errorkb.verification.sync import sync_scenarios

_task_ids = itertools.count(1)


def registry_item(name: str, message: str, **overrides) -> dict:
    """A scenario as the trainer's registry lists it."""
    item = {
        "name": name,
        "message": message,
        "description": f"{name}, for tests",
        "setup": {"checkpointer": "sync"},
        "fault": "disk-full",
        "epoch": 3,
        "expected_pattern": message.replace(".", r"\."),
        "expected_errno": 28,
        "fix": "free some space",
    }
    item.update(overrides)
    return item


def link_scenario(entry: ErrorEntry, name: str = "disk-full") -> Scenario:
    scenario = Scenario.objects.create(
        name=name,
        message=entry.error_message,
        expected_pattern=entry.message_pattern,
        fault="disk-full",
        synced_at=timezone.now(),
    )
    scenario.entries.add(entry)
    return scenario


def outcome(status: str, message: str | None = None, **extra) -> dict:
    """What trainer.runner.run_scenario returns."""
    return {
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
) -> VerificationRun:
    """Claim and record a run as a worker would; older runs for a history."""
    run, _ = claim_run(f"task-{next(_task_ids)}", entry, scenario, variant, device)
    VerificationRun.objects.filter(pk=run.pk).update(
        started_at=timezone.now() - timedelta(minutes=minutes_ago)
    )
    run.refresh_from_db()
    return record_outcome(run, outcome(status, message))


def prove(entry, scenario, *, device="cpu", minutes_ago=0, message=None):
    """A reproduced failure whose message matches, and a passing fix."""
    record_run(
        entry, scenario, "reproduced", message or f"{entry.error_message}: Io(..)",
        device=device, minutes_ago=minutes_ago,
    )  # fmt: skip
    record_run(entry, scenario, "fixed", variant="fixed", device=device, minutes_ago=minutes_ago)


__all__ = ["registry_item", "link_scenario", "record_run", "prove", "sync_scenarios", "outcome"]
