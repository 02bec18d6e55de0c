"""When the scheduler (celery beat, with django-celery-beat's tables) sends the next sweep."""

from dataclasses import dataclass
from datetime import datetime

from django_celery_beat.models import PeriodicTask

SWEEP_TASK = "verification.sweep"  # tasks.sweep's name


@dataclass(frozen=True)
class NextSweep:
    """A periodic sweep task and when it is next due."""

    name: str
    due: datetime
    schedule: str  # as the admin names it: "0 3 * * * (m/h/dM/MY/d) UTC", "every hour"


def next_sweep() -> NextSweep | None:
    """The enabled periodic sweep due first, or None when no sweep is scheduled."""
    tasks = PeriodicTask.objects.filter(task=SWEEP_TASK, enabled=True).select_related(
        "interval", "crontab", "solar", "clocked"
    )
    due = [found for task in tasks if (found := _next_of(task)) is not None]
    return min(due, key=lambda found: found.due, default=None)


def _next_of(task: PeriodicTask) -> NextSweep | None:
    if task.scheduler is None or (task.one_off and task.total_run_count):
        return None  # no schedule, or a one-off that has been sent
    # Counted from where django-celery-beat's scheduler counts: the last time it sent the
    # task, else when the task was last changed. Not from now: the answer is then what
    # the database says, and a page's ETag over the database is never stale for it.
    base = task.last_run_at or task.date_changed
    schedule = task.schedule
    schedule.nowfun = lambda: base
    due = base + schedule.remaining_estimate(base)
    if task.start_time is not None:
        due = max(due, task.start_time)
    if task.expires is not None and due >= task.expires:
        return None
    return NextSweep(task.name, due, str(task.scheduler))
