"""The Celery tasks, run eagerly: one run per task, bounded retries, fan-out and routing."""

import pytest
from django_celery_beat.models import PeriodicTask

from errorkb.verification.models import VerificationRun
from errorkb.verification.routing import route_task, verification_devices
from errorkb.verification.runs import MAX_ATTEMPTS, claim_run
from errorkb.verification.sync import sync_scenarios
from errorkb.verification.tasks import run_scenario, verify_entries
from tests.builders import load_demo
from tests.verification.builders import link_scenario

pytestmark = pytest.mark.django_db

FAST = "init-changed-architecture"  # no torch training before the failure: under a second


@pytest.fixture
def demo():
    load_demo()
    sync_scenarios()


@pytest.fixture
def fast_run(demo):
    from errorkb.verification.models import Scenario

    scenario = Scenario.objects.get(name=FAST)
    entry = scenario.entries.get(error_message=scenario.message)
    entry.scenarios.set([scenario])  # only the fast one: its fan-out stays two runs
    return {"entry_id": entry.id, "scenario_name": FAST, "variant": "failure", "device": "cpu"}


def test_it_records_what_the_trainer_observed(eager, fast_run):
    from errorkb.kb.models import ErrorEntry

    assert run_scenario.apply(kwargs=fast_run, task_id="t-1").get() == "reproduced"
    run = VerificationRun.objects.get(task_id="t-1")
    assert run.status == "reproduced" and run.pattern_matched is True
    assert run.message.startswith(ErrorEntry.objects.get(id=fast_run["entry_id"]).error_message)
    assert run.texts and run.message in run.texts
    assert run.torch_version.startswith("2.") and run.trainer_version and run.python_version
    assert run.finished_at and run.duration_s > 0 and run.host and run.attempts == 1


def test_it_records_one_run_when_the_same_task_is_delivered_twice(eager, fast_run):
    run_scenario.apply(kwargs=fast_run, task_id="t-same")
    run_scenario.apply(kwargs=fast_run, task_id="t-same")
    assert VerificationRun.objects.filter(task_id="t-same").count() == 1
    assert VerificationRun.objects.get(task_id="t-same").attempts == 1


def test_it_gives_up_on_a_task_whose_worker_keeps_dying(eager, fast_run):
    from errorkb.kb.models import ErrorEntry
    from errorkb.verification.models import Scenario

    entry, scenario = (
        ErrorEntry.objects.get(id=fast_run["entry_id"]),
        Scenario.objects.get(name=FAST),
    )
    for _ in range(MAX_ATTEMPTS):  # each delivery claimed the run, then its worker died
        claim_run("t-poison", entry, scenario, "failure", "cpu")
    assert run_scenario.apply(kwargs=fast_run, task_id="t-poison").get() == "error"
    run = VerificationRun.objects.get(task_id="t-poison")
    assert run.status == "error" and "lost 3 times" in run.reason
    assert run.message is None  # the trainer was not started again


def test_it_returns_quietly_when_the_entry_is_gone(eager, fast_run):
    kwargs = {**fast_run, "entry_id": "0123456789abcdef"}
    assert run_scenario.apply(kwargs=kwargs, task_id="t-gone").get() is None
    assert not VerificationRun.objects.exists()


def test_it_fans_an_entry_out_into_failure_and_fix_runs(eager, fast_run):
    assert verify_entries.apply(kwargs={"entry_ids": [fast_run["entry_id"]]}).get() == 2
    runs = VerificationRun.objects.all()
    assert sorted((r.variant, r.status) for r in runs) == [
        ("failure", "reproduced"),
        ("fixed", "fixed"),
    ]


def test_it_does_nothing_for_an_unknown_entry(eager):
    assert verify_entries.apply(kwargs={"entry_ids": ["0123456789abcdef"]}).get() == 0


def test_it_routes_cuda_runs_to_the_gpu_queue():
    cuda = {"entry_id": "x", "scenario_name": "s", "variant": "failure", "device": "cuda"}
    assert route_task("verification.run_scenario", (), cuda, {}) == {"queue": "gpu"}
    assert route_task("verification.run_scenario", (), {**cuda, "device": "cpu"}, {}) == {
        "queue": "cpu"
    }
    assert route_task("verification.sweep", (), {}, {}) == {"queue": "cpu"}


@pytest.mark.parametrize("setting, devices", [("never", ["cpu"]), ("always", ["cpu", "cuda"])])
def test_it_verifies_on_the_devices_settings_allow(settings, setting, devices):
    settings.VERIFY_GPU = setting
    assert verification_devices() == devices


def test_it_ships_an_editable_nightly_sweep():
    task = PeriodicTask.objects.get(name="Nightly verification sweep")
    assert task.task == "verification.sweep" and task.enabled
    assert (task.crontab.minute, task.crontab.hour) == ("0", "3")


def test_it_links_a_curators_scenario_even_for_another_message():
    from tests.builders import import_records, make_record

    entry = import_records(make_record())[0]
    assert link_scenario(entry).entries.get() == entry


def test_it_turns_an_entry_drifted_when_the_real_message_changed(eager, fast_run):
    from errorkb.kb.models import ErrorEntry
    from errorkb.verification.state.judging import State, verification_of

    # As if burn had reworded the panic since the entry was written.
    entry = ErrorEntry.objects.get(id=fast_run["entry_id"])
    entry.message_pattern = r"Failed to load the record\."
    entry.save()
    run_scenario.apply(kwargs=fast_run, task_id="t-drift")
    run_scenario.apply(kwargs={**fast_run, "variant": "fixed"}, task_id="t-drift-fix")
    run = VerificationRun.objects.get(task_id="t-drift")
    assert run.status == "reproduced" and run.pattern_matched is False
    assert verification_of(entry).state == State.DRIFTED


def test_a_task_forks_its_scenario_from_the_workers_fork_server_by_default(eager, fast_run):
    from trainer import launch

    starts = launch.starter()
    runs, fallbacks = starts.runs, starts.fallbacks
    assert run_scenario.apply(kwargs=fast_run, task_id="t-warm").get() == "reproduced"
    assert (starts.runs, starts.fallbacks) == (runs + 1, fallbacks)
    assert starts.server.alive  # kept for the next run


def test_a_task_starts_a_fresh_interpreter_when_the_setting_says_so(eager, fast_run, settings):
    from trainer import launch

    settings.VERIFY_START = "fresh"
    starts = launch.starter()
    runs, fallbacks = starts.runs, starts.fallbacks
    assert run_scenario.apply(kwargs=fast_run, task_id="t-fresh").get() == "reproduced"
    assert (starts.runs, starts.fallbacks) == (runs, fallbacks)
    assert VerificationRun.objects.get(task_id="t-fresh").status == "reproduced"


def test_its_workers_parent_never_imports_torch():
    # Prefork children are forked from the worker's parent: torch there could deadlock.
    import subprocess
    import sys

    probe = (
        "import django, sys; django.setup(); import errorkb.verification.tasks;"
        "from errorkb.celery import app; app.loader.import_default_modules();"
        "sys.exit('torch' in sys.modules)"
    )
    env = {"DJANGO_SETTINGS_MODULE": "errorkb.settings", "SECRET_KEY": "x", "PATH": "/usr/bin"}
    assert subprocess.run([sys.executable, "-c", probe], env=env).returncode == 0
