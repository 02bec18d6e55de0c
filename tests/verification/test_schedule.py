"""When the next periodic sweep is due, from django-celery-beat's rows alone."""

from datetime import UTC, datetime, timedelta

import pytest
from django_celery_beat.models import ClockedSchedule, IntervalSchedule, PeriodicTask

from errorkb.verification.schedule import SWEEP_TASK, next_sweep

pytestmark = pytest.mark.django_db
LAST = datetime(2026, 11, 30, 3, 0, 4, tzinfo=UTC)


@pytest.fixture
def nightly():
    """The nightly sweep verification's migration creates, last sent at LAST."""
    task = PeriodicTask.objects.get(task=SWEEP_TASK)
    task.last_run_at = LAST
    task.save()
    return task


def every(hours: int) -> IntervalSchedule:
    return IntervalSchedule.objects.create(every=hours, period=IntervalSchedule.HOURS)


def test_the_nightly_sweep_is_due_at_the_next_three_oclock_after_it_last_ran(nightly):
    found = next_sweep()
    assert found.name == nightly.name
    assert found.due == datetime(2026, 12, 1, 3, 0, tzinfo=UTC)
    assert found.schedule.startswith("0 3 * * *")


def test_a_task_never_sent_counts_from_when_it_was_last_changed(nightly):
    PeriodicTask.objects.filter(pk=nightly.pk).update(
        last_run_at=None, date_changed=datetime(2026, 11, 20, 12, 0, tzinfo=UTC)
    )
    assert next_sweep().due == datetime(2026, 11, 21, 3, 0, tzinfo=UTC)


def test_the_sweep_due_first_is_the_next(nightly):
    PeriodicTask.objects.create(
        name="hourly sweep", task=SWEEP_TASK, interval=every(2), last_run_at=LAST
    )
    found = next_sweep()
    assert (found.name, found.due) == ("hourly sweep", LAST + timedelta(hours=2))
    assert found.schedule == "every 2 hours"


def test_disabled_spent_or_expired_tasks_are_not_scheduled(nightly):
    nightly.enabled = False
    nightly.save()
    assert next_sweep() is None
    clocked = ClockedSchedule.objects.create(clocked_time=LAST + timedelta(days=1))
    once = PeriodicTask.objects.create(
        name="once", task=SWEEP_TASK, clocked=clocked, one_off=True, total_run_count=1
    )
    assert next_sweep() is None  # sent already
    PeriodicTask.objects.filter(pk=once.pk).update(total_run_count=0)
    assert next_sweep().due == LAST + timedelta(days=1)
    PeriodicTask.objects.filter(pk=once.pk).update(expires=LAST)
    assert next_sweep() is None  # it expires before it is due


def test_other_periodic_tasks_are_not_sweeps(nightly):
    PeriodicTask.objects.filter(pk=nightly.pk).delete()
    PeriodicTask.objects.create(name="cleanup", task="celery.backend_cleanup", interval=every(1))
    assert next_sweep() is None
