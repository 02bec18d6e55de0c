"""Verification runs: planning them, claiming one for a task, recording what the trainer saw.

The trainer is reached through trainer.runner only: each reproduction runs in a
new, isolated process (a fork of the worker's fork server, or a fresh interpreter:
settings.VERIFY_START) and comes back as an outcome, read with trainer.outcome.
"""

import os
import socket
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from errorkb.kb.changes import entries_changed
from errorkb.kb.models import ErrorEntry
from trainer import runner
from trainer.outcome import Outcome, OutcomeError

from . import fingerprints
from .models import Confirmation, Scenario, VerificationRun
from .state.judging import judge
from .state.stored import store_state

Run = VerificationRun
MAX_ATTEMPTS = 3  # starts of one task, counting those whose worker was lost


@dataclass(frozen=True, slots=True)  # a sweep may hold 400,000
class PlannedRun:
    entry_id: str
    scenario_name: str
    variant: str
    device: str
    reason: str = fingerprints.REQUESTED  # why it is planned: fingerprints' reasons

    def as_kwargs(self) -> dict:
        return {
            "entry_id": self.entry_id,
            "scenario_name": self.scenario_name,
            "variant": self.variant,
            "device": self.device,
        }


def plan_entry(entry: ErrorEntry, devices: list[str], scenarios=None) -> list[PlannedRun]:
    """Every run that verifies the entry: each linked scenario, failure and fix, per device.

    `scenarios`: its active scenarios, when the caller fetched them (fanout.py does).
    """
    scenarios = entry.scenarios.active() if scenarios is None else scenarios
    return [
        PlannedRun(entry.id, scenario.name, variant, device)
        for scenario in scenarios
        for device in devices
        for variant in _variants(entry, scenario)
    ]


def _variants(entry: ErrorEntry, scenario: Scenario) -> list[str]:
    # A proof of absence stands on the failure run alone: there is no fix to prove.
    if scenario.proves_absence_of(entry):
        return [Run.Variant.FAILURE]
    return list(Run.Variant.values)


def perform_run(
    *, task_id: str, entry_id: str, scenario_name: str, variant: str, device: str
) -> Run | None:
    """Run one reproduction for a task, once: a redelivered task finds its run."""
    entry = ErrorEntry.objects.filter(id=entry_id).first()
    scenario = Scenario.objects.filter(name=scenario_name).first()
    if entry is None or scenario is None:
        return None  # deleted since it was enqueued: nothing to prove
    run, should_run = claim_run(task_id, entry, scenario, variant, device)
    if not should_run:
        return run
    try:
        outcome = runner.run_scenario(
            scenario_name, variant=variant, device=device, start=settings.VERIFY_START
        )
    except KeyError:
        return fail_run(task_id, "the trainer's registry no longer has this scenario")
    return record_outcome(run, outcome)


@transaction.atomic
def claim_run(
    task_id: str, entry: ErrorEntry, scenario: Scenario, variant: str, device: str
) -> tuple[Run, bool]:
    """The task's run, and whether to start it (again)."""
    run, created = Run.objects.select_for_update().get_or_create(
        task_id=task_id,
        defaults={
            "entry": entry,
            "scenario": scenario,
            "variant": variant,
            "device": device,
            "attempts": 1,
            "started_at": timezone.now(),
            "host": socket.gethostname(),
            "worker_pid": os.getpid(),
            "inputs": inputs_here(entry, scenario, variant, device),
        },
    )
    if created:
        return run, True
    if run.finished or _still_running_here(run):
        return run, False  # done, or a duplicate delivery while the first is at work
    # Unfinished yet delivered again: the worker that ran it was lost (acks_late).
    if run.attempts >= MAX_ATTEMPTS:
        _finish(run, status=Run.Status.ERROR, reason=f"its worker was lost {run.attempts} times")
        return run, False
    run.attempts += 1
    run.host = socket.gethostname()
    run.worker_pid = os.getpid()
    run.inputs = inputs_here(entry, scenario, variant, device)
    run.save(update_fields=["attempts", "host", "worker_pid", "inputs", "updated_at"])
    return run, True


def inputs_here(entry: ErrorEntry, scenario: Scenario, variant: str, device: str) -> dict:
    """The inputs a run has in this process: its code and torch, the entry's texts now."""
    return fingerprints.run_inputs(
        scenario=scenario.definition,
        entry=fingerprints.entry_digest(entry.error_message, entry.message_pattern),
        variant=variant,
        device=device,
        environment=fingerprints.local_environment(),
    )


def _still_running_here(run: Run) -> bool:
    """Whether the process that claimed the run is alive on this very host."""
    if run.host != socket.gethostname() or run.worker_pid in (None, os.getpid()):
        return False
    return _alive(run.worker_pid)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # it exists, under another user
    return True


def lost_runs(*, silent_for: timedelta) -> list[Run]:
    """The runs whose worker is gone, though their task was never acknowledged.

    A worker killed whole (kill -9 of its main process, the OOM killer, a machine that
    stops) leaves its runs `running`. Lost are those claimed on this host by a process
    that has exited, and those claimed anywhere longer ago than any task may run
    (`silent_for`: past its hard time limit, Celery has killed it). A run sent again
    (release) is not lost until a worker claims it again.
    """
    claimed = Run.objects.filter(status=Run.Status.RUNNING, worker_pid__isnull=False)
    here = claimed.filter(host=socket.gethostname())
    lost = {run.pk: run for run in here if not _alive(run.worker_pid)}
    for run in claimed.filter(updated_at__lt=timezone.now() - silent_for):
        lost.setdefault(run.pk, run)
    return list(lost.values())


def release(run: Run) -> bool:
    """Mark a lost run as sent again, unless a worker claimed or finished it meanwhile.

    The next delivery of its task claims it (claim_run: its process is none), as the
    broker's own redelivery would; claim_run bounds the attempts.
    """
    unchanged = {"pk": run.pk, "worker_pid": run.worker_pid, "updated_at": run.updated_at}
    released = Run.objects.filter(status=Run.Status.RUNNING, **unchanged)
    with transaction.atomic():
        if not released.update(worker_pid=None, updated_at=timezone.now()):
            return False
        entries_changed([run.entry_id])
    return True


def planned(run: Run) -> PlannedRun:
    """The run as the fan-out planned it: its task's arguments."""
    return PlannedRun(run.entry_id, run.scenario_id, run.variant, run.device)


def record_outcome(run: Run, payload: dict) -> Run:
    """Store what the trainer observed, and whether the entry's pattern still matches it."""
    try:
        outcome = Outcome.from_dict(payload)
    except OutcomeError as err:
        _finish(run, status=Run.Status.ERROR, reason=f"the trainer's outcome is malformed: {err}")
        return run
    texts = outcome.texts
    judged = judge(run.entry.message_pattern, texts)
    if run.variant == Run.Variant.FAILURE and texts:
        # Kept for the run's history; the state judges the texts again against the
        # entry's pattern as it is then (state.judging).
        run.pattern_matched = judged.pattern_matched
    run.message = judged.message
    run.texts = texts
    run.errno = outcome.errno
    run.signal = outcome.signal or ""
    run.trainer_version = outcome.trainer_version
    run.torch_version = outcome.torch_version or ""
    run.python_version = outcome.python_version
    run.log_tail = "\n".join(outcome.log_tail)
    run.duration_s = outcome.duration_s
    _finish(run, status=outcome.status, reason=outcome.reason or "")
    return run


def fail_run(task_id: str, reason: str) -> Run | None:
    """Finish a task's run as a harness error (time limit, vanished scenario)."""
    run = Run.objects.filter(task_id=task_id).first()
    if run is not None and not run.finished:
        _finish(run, status=Run.Status.ERROR, reason=reason)
    return run


def _finish(run: Run, *, status: str, reason: str) -> None:
    run.status = status
    run.reason = reason or ""
    run.finished_at = timezone.now()
    if run.duration_s is None:
        run.duration_s = round((run.finished_at - run.started_at).total_seconds(), 3)
    # The entry's stored state and its confirmation move with its run, or none does;
    # store_state locks the entry's row first, so two of its runs confirm one at a time.
    with transaction.atomic():
        run.save()
        store_state(run.entry_id)
        confirm(run)


def confirm(run: Run) -> None:
    """Make the run its scenario's latest for the entry, variant and device, unless a run
    that started later has finished first (two deliveries, one sweep late)."""
    key = {
        "entry_id": run.entry_id,
        "scenario_id": run.scenario_id,
        "variant": run.variant,
        "device": run.device,
    }
    proof = run.inputs and run.status != Run.Status.ERROR
    confirmed = {"run": run, "ran_at": run.started_at}
    confirmed["fingerprint"] = fingerprints.fingerprint(run.inputs) if proof else ""
    latest = Confirmation.objects.select_for_update().filter(**key).first()
    if latest is None:
        Confirmation.objects.create(**key, **confirmed)
    elif latest.ran_at <= run.started_at:
        for name, value in confirmed.items():
            setattr(latest, name, value)
        latest.save(update_fields=list(confirmed))
