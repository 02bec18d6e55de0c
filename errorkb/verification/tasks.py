"""Celery tasks: thin, named, keyword-only ids; the work is in runs.py."""

from celery import group, shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.db import DatabaseError

from errorkb.kb.models import ErrorEntry
from trainer.runner import DEFAULT_TIMEOUT_S

from .fanout import Fanout, plan_runs, record_sweep
from .runs import fail_run, perform_run

# Above the runner's own wall-time limit, so the runner reports a hang first.
SOFT_TIME_LIMIT = int(DEFAULT_TIMEOUT_S) + 120
TIME_LIMIT = SOFT_TIME_LIMIT + 30


@shared_task(
    name="verification.run_scenario",
    bind=True,
    acks_late=True,
    # A worker killed mid-run puts the message back; runs.claim_run bounds the retries.
    reject_on_worker_lost=True,
    soft_time_limit=SOFT_TIME_LIMIT,
    time_limit=TIME_LIMIT,
    # A database hiccup while claiming or recording: try again, a bounded number of times.
    autoretry_for=(DatabaseError,),
    max_retries=3,
    retry_backoff=True,
)
def run_scenario(self, *, entry_id: str, scenario_name: str, variant: str, device: str):
    try:
        run = perform_run(
            task_id=self.request.id,
            entry_id=entry_id,
            scenario_name=scenario_name,
            variant=variant,
            device=device,
        )
    except SoftTimeLimitExceeded:
        fail_run(self.request.id, f"the task ran past its {SOFT_TIME_LIMIT} s limit")
        return "error"
    return run.status if run else None


@shared_task(name="verification.verify_entry")
def verify_entry(*, entry_id: str) -> int:
    return len(enqueue(ErrorEntry.objects.filter(id=entry_id), source="entry").runs)


@shared_task(name="verification.sweep")
def sweep() -> int:
    """Verify every published entry that has a scenario: the nightly schedule runs this."""
    return len(enqueue(entries_to_verify(), source="sweep").runs)


def entries_to_verify():
    return ErrorEntry.objects.published().filter(scenarios__active=True).distinct()


def enqueue(entries, devices: list[str] | None = None, *, source: str) -> Fanout:
    """Plan every run of the entries (a queryset) and send them all as one group."""
    fanout = record_sweep(plan_runs(entries, devices), source)
    if fanout.runs:
        group(
            run_scenario.signature(kwargs=run.as_kwargs(), task_id=task_id)
            for run, task_id in zip(fanout.runs, fanout.task_ids, strict=True)
        ).apply_async()
    return fanout
