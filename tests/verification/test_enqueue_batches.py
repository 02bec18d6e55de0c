"""A fan-out hands the broker its runs in batches; a worker sends each batch's runs."""

import pytest

from errorkb.kb.models import ErrorEntry
from errorkb.verification import tasks
from errorkb.verification.routing import CPU_QUEUE, GPU_QUEUE, route_task
from errorkb.verification.runs import claim_run
from errorkb.verification.tasks import enqueue, enqueue_batch
from tests.builders import load_demo

pytestmark = pytest.mark.django_db


def test_a_sweep_sends_every_run_in_batches_with_its_planned_task_id_and_device(
    settings, sent, monkeypatch
):
    settings.VERIFY_GPU = "always"
    monkeypatch.setattr(tasks, "BATCH", 7)
    load_demo()
    fanout = enqueue(ErrorEntry.objects.all(), source="sweep")
    assert len(fanout.runs) > 30
    assert sent["groups"][0] == len(sent["batches"])  # the batches: one group, one step
    assert sum(sent["batches"]) == len(fanout.runs)
    assert all(size <= 7 for size in sent["batches"]) and len(sent["batches"]) > 4
    ids = fanout.task_ids
    planned = [run.as_kwargs() | {"task_id": t} for run, t in zip(fanout.runs, ids, strict=True)]
    assert sent["tasks"] == planned
    assert all(t["task_id"].startswith(fanout.sweep.task_prefix) for t in sent["tasks"])
    assert {t["device"] for t in sent["tasks"]} == {"cpu", "cuda"}


def test_each_run_of_a_batch_keeps_its_device_queue_and_the_batch_goes_to_every_worker():
    run = {"entry_id": "e", "scenario_name": "s", "variant": "failure", "device": "cuda"}
    assert route_task("verification.run_scenario", (), run, {}) == {"queue": GPU_QUEUE}
    cpu_run = run | {"device": "cpu"}
    assert route_task("verification.run_scenario", (), cpu_run, {}) == {"queue": CPU_QUEUE}
    # Every worker consumes the cpu queue (bin/worker): any of them can expand a batch.
    batch = {"runs": [run | {"task_id": "t-1"}]}
    assert route_task("verification.enqueue_batch", (), batch, {}) == {"queue": CPU_QUEUE}


def test_a_redelivered_batch_does_not_send_again_the_runs_already_claimed(sent, entry, scenario):
    runs = [
        {"entry_id": entry.pk, "scenario_name": scenario.name, "variant": variant,
         "device": "cpu", "task_id": f"batch-{variant}"}
        for variant in ("failure", "fixed")
    ]  # fmt: skip
    claim_run("batch-failure", entry, scenario, "failure", "cpu")  # a worker took it
    assert enqueue_batch.run(runs=runs) == 1
    assert [t["task_id"] for t in sent["tasks"]] == ["batch-fixed"]


def test_an_empty_batch_sends_nothing(sent):
    assert enqueue_batch.run(runs=[]) == 0
    assert sent["tasks"] == [] and sent["groups"] == []
