"""Runs left `running` by a worker that is gone: found, sent again under their own task id,
and claimed by the next delivery; runs whose worker is alive are left alone."""

import json
import os
import socket
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone
from django_celery_beat.models import PeriodicTask

from errorkb.verification.models import VerificationRun
from errorkb.verification.runs import claim_run, lost_runs
from errorkb.verification.tasks import LOST_AFTER, TIME_LIMIT, send_lost_runs_again
from tests.builders import import_records, make_record
from tests.verification.builders import link_scenario
from trainer.runner import DEFAULT_TIMEOUT_S

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def claimed():
    """A run claimed by this process, as a worker's pool process claims it."""
    (entry,) = import_records(make_record())
    scenario = link_scenario(entry)
    run, _ = claim_run("t-lost", entry, scenario, "failure", "cpu")
    return run


def exited_pid() -> int:
    child = subprocess.Popen(["true"])
    child.wait()
    return child.pid


def claimed_by(run: VerificationRun, *, pid: int, host: str | None = None, ago=timedelta()):
    VerificationRun.objects.filter(pk=run.pk).update(
        worker_pid=pid, host=host or socket.gethostname(), updated_at=timezone.now() - ago
    )
    run.refresh_from_db()
    return run


def test_a_run_whose_process_exited_on_this_host_is_sent_again_under_its_task_id(claimed, sent):
    claimed_by(claimed, pid=exited_pid())
    assert send_lost_runs_again() == 1
    assert sent["tasks"] == [
        {
            "entry_id": claimed.entry_id,
            "scenario_name": claimed.scenario_id,
            "variant": "failure",
            "device": "cpu",
            "task_id": "t-lost",
        }
    ]
    claimed.refresh_from_db()
    assert (claimed.status, claimed.worker_pid) == ("running", None)  # sent, not yet claimed


def test_the_next_delivery_claims_a_run_sent_again(claimed, sent):
    claimed_by(claimed, pid=exited_pid())
    send_lost_runs_again()
    run, should_run = claim_run("t-lost", claimed.entry, claimed.scenario, "failure", "cpu")
    assert should_run and (run.attempts, run.worker_pid) == (2, os.getpid())


def test_a_run_sent_again_is_not_sent_again_while_it_waits_in_the_queue(claimed, sent):
    claimed_by(claimed, pid=exited_pid())
    send_lost_runs_again()
    assert send_lost_runs_again() == 0
    assert len(sent["tasks"]) == 1


def test_a_run_whose_process_is_alive_is_left_to_it(claimed, sent):
    claimed_by(claimed, pid=os.getppid())  # a live process on this host, not this one
    assert lost_runs(silent_for=LOST_AFTER) == []
    assert send_lost_runs_again() == 0 and sent["tasks"] == []


def test_a_run_on_another_host_is_lost_only_past_the_time_any_task_may_take(claimed, sent):
    claimed_by(claimed, pid=1234, host="elsewhere", ago=LOST_AFTER - timedelta(seconds=5))
    assert lost_runs(silent_for=LOST_AFTER) == []
    claimed_by(claimed, pid=1234, host="elsewhere", ago=LOST_AFTER + timedelta(seconds=5))
    assert [run.task_id for run in lost_runs(silent_for=LOST_AFTER)] == ["t-lost"]
    assert LOST_AFTER.total_seconds() > TIME_LIMIT  # Celery has killed such a task by then


def test_a_finished_run_is_never_lost(claimed, sent):
    claimed_by(claimed, pid=exited_pid(), ago=LOST_AFTER * 2)
    VerificationRun.objects.filter(pk=claimed.pk).update(status="reproduced")
    assert send_lost_runs_again() == 0


def test_a_run_claimed_again_meanwhile_is_not_marked_as_sent(claimed, sent):
    from errorkb.verification import runs

    claimed_by(claimed, pid=exited_pid())
    found = runs.lost_runs(silent_for=LOST_AFTER)
    claim_run("t-lost", claimed.entry, claimed.scenario, "failure", "cpu")  # a redelivery
    assert runs.release(found[0]) is False
    claimed.refresh_from_db()
    assert claimed.worker_pid == os.getpid()


def test_it_ships_a_schedule_that_sends_lost_runs_again_every_five_minutes():
    task = PeriodicTask.objects.get(task="verification.send_lost_runs_again")
    assert task.enabled and (task.interval.every, task.interval.period) == (5, "minutes")


def test_redis_gives_back_an_unacknowledged_message_just_after_the_longest_run():
    # Settings are read at start: a process of its own, with Redis as the broker.
    show = "import json; from errorkb.celery import app; print(json.dumps(app.conf.%s))"
    show %= "broker_transport_options"
    env = {**os.environ, "CELERY_BROKER_URL": "redis://127.0.0.1:6379/0"}
    printed = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", show],
        cwd=ROOT, env=env, capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    options = json.loads(printed.splitlines()[-1])
    # Past the longest run, and short enough that a lost message is back within 5 minutes.
    assert DEFAULT_TIMEOUT_S + 60 <= options["visibility_timeout"] <= 240
    assert options["unacked_restore_throttle"] == 1
