"""Celery tasks: thin, named, keyword-only ids; the work is in runs.py, fanout.py, stored.py."""

from datetime import timedelta

from celery import group, shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.db import DatabaseError
from django.utils import timezone

from errorkb.kb.models import ErrorEntry
from trainer.runner import DEFAULT_TIMEOUT_S

from .fanout import Fanout, plan_runs, record_sweep
from .models import Sweep, VerificationRun
from .runs import fail_run, lost_runs, perform_run, planned, release
from .state.stored import check_sweep_states

# Above the runner's own wall-time limit, so the runner reports a hang first.
SOFT_TIME_LIMIT = int(DEFAULT_TIMEOUT_S) + 120
TIME_LIMIT = SOFT_TIME_LIMIT + 30
BATCH = 500  # runs a fan-out hands the broker in one message (enqueue_batch)
CHECK_EVERY_S = 60  # how often check_sweep looks whether a sweep's runs have all finished
CHECK_FOR = timedelta(days=1)  # after which it compares the states of a sweep still unfinished
# A run claimed longer ago than this has no live worker: Celery kills a task at TIME_LIMIT.
LOST_AFTER = timedelta(seconds=TIME_LIMIT + 60)


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


@shared_task(name="verification.send_lost_runs_again")
def send_lost_runs_again() -> int:
    """Send again the runs whose worker is gone (runs.lost_runs), under their own task ids.

    Every few minutes (the schedule: verification's migration 0002), and as each worker starts
    (errorkb/celery.py): a sweep never stays unfinished for a worker killed whole, on any
    broker. The broker's own redelivery of the same task finds the run claimed or
    finished (claim_run). Sent before it is marked: a message that could not be sent
    leaves the run lost, found again next time.
    """
    sent = 0
    for run in lost_runs(silent_for=LOST_AFTER):
        run_scenario.apply_async(kwargs=planned(run).as_kwargs(), task_id=run.task_id)
        sent += release(run)
    return sent


@shared_task(name="verification.verify_entries")
def verify_entries(*, entry_ids: list[str]) -> int:
    """Verify these entries again (their message or pattern changed: rejudge.py sends it).

    Only the runs whose inputs changed: all of theirs, unless the text changed back since.
    """
    entries = ErrorEntry.objects.filter(id__in=entry_ids)
    return len(enqueue(entries, source="changed", only_changed=True).runs)


@shared_task(name="verification.sweep")
def sweep() -> int:
    """Verify every published entry that has a scenario: the nightly schedule runs this.

    Only what changed since each run last ran, and the oldest 1/VERIFY_RECHECK_NIGHTS of
    the rest.
    """
    nights = settings.VERIFY_RECHECK_NIGHTS
    fanout = enqueue(entries_to_verify(), source="sweep", only_changed=True, recheck_nights=nights)
    return len(fanout.runs)


def entries_to_verify():
    return ErrorEntry.objects.published().filter(scenarios__active=True).distinct()


def enqueue(
    entries,
    devices: list[str] | None = None,
    *,
    source: str,
    only_changed: bool = False,
    recheck_nights: int = 0,
) -> Fanout:
    """Plan the runs of the entries (a queryset) and send them all, as one group of batches.

    Every run, or only those whose inputs changed and the oldest 1/`recheck_nights` of the
    others (fanout.plan_runs).

    Its time is the planning, the Sweep's row and the hand-over of one message per BATCH
    runs to the broker: a sweep of 100,000 entries is 800 messages, not 400,000. Each
    batch is then expanded by a worker into its runs' own tasks (enqueue_batch), each with
    the task id planned here, so the Sweep's progress counts them as they finish.
    """
    planned = plan_runs(entries, devices, only_changed=only_changed, recheck_nights=recheck_nights)
    fanout = record_sweep(planned, source)
    runs = [
        run.as_kwargs() | {"task_id": task_id}
        for run, task_id in zip(fanout.runs, fanout.task_ids, strict=True)
    ]
    if runs:
        batches = (runs[start : start + BATCH] for start in range(0, len(runs), BATCH))
        group(enqueue_batch.signature(kwargs={"runs": batch}) for batch in batches).apply_async()
        check_sweep.apply_async(kwargs={"sweep_id": fanout.sweep.pk}, countdown=CHECK_EVERY_S)
    return fanout


@shared_task(name="verification.enqueue_batch", acks_late=True, reject_on_worker_lost=True)
def enqueue_batch(*, runs: list[dict]) -> int:
    """Send a batch's runs, each as its own run_scenario task under its planned task id.

    It goes to the default queue, which every worker consumes; each run is routed by its
    device (routing.py). Safe to run twice, as a batch redelivered after its worker was
    lost: a run already claimed is not sent again, and one sent twice before either
    started is recorded once (runs are keyed by task id: runs.claim_run).
    """
    claimed = set(
        VerificationRun.objects.filter(task_id__in=[run["task_id"] for run in runs]).values_list(
            "task_id", flat=True
        )
    )
    todo = [run for run in runs if run["task_id"] not in claimed]
    if todo:
        sent = (run_scenario.signature(kwargs=_kwargs(run), task_id=run["task_id"]) for run in todo)
        group(sent).apply_async()
    return len(todo)


def _kwargs(run: dict) -> dict:
    return {name: value for name, value in run.items() if name != "task_id"}


@shared_task(name="verification.check_sweep", bind=True)
def check_sweep(self, *, sweep_id: int) -> int | None:
    """At the end of a sweep, log each of its entries whose stored state is not the derived.

    Until its runs have all finished it looks again every CHECK_EVERY_S seconds, for at
    most CHECK_FOR (a lost run never finishes); then it compares all the same. Returns
    the number of differences, None while it waits or when the sweep is gone.
    """
    sweep = Sweep.objects.filter(pk=sweep_id).first()
    if sweep is None:
        return None
    waiting = sweep.finished_runs < sweep.runs and timezone.now() < sweep.started_at + CHECK_FOR
    # Run eagerly (tests), it would call itself at once and for ever: it compares now.
    if waiting and not self.request.is_eager:
        self.apply_async(kwargs={"sweep_id": sweep_id}, countdown=CHECK_EVERY_S)
        return None
    return len(check_sweep_states(sweep))
