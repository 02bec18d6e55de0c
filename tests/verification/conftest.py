import pytest
from celery import group

from errorkb.celery import app
from errorkb.verification.tasks import check_sweep, enqueue_batch, run_scenario, verify_entries


@pytest.fixture
def eager():
    """Run tasks in the test's own process. For unit tests only: see test_worker.py."""
    app.conf.task_always_eager = True
    app.conf.task_eager_propagates = True
    yield
    app.conf.task_always_eager = False
    app.conf.task_eager_propagates = False


@pytest.fixture
def sent(monkeypatch):
    """What the fan-out hands Celery (nothing published): each group sent, each batch of
    runs (the size of each), and each run task a worker makes of them (expanded here);
    each sweep's check (its id), and each re-verification of changed entries (their ids,
    planned here as a worker would)."""
    record = {"groups": [], "batches": [], "tasks": [], "inspects": 0}
    record.update(checks=[], reverified=[])
    send_group = group.apply_async

    def spy_group(self, *args, **kwargs):
        record["groups"].append(len(self.tasks))
        return send_group(self, *args, **kwargs)

    def unpublished(args=None, kwargs=None, task_id=None, **options):
        record["tasks"].append({**kwargs, "task_id": task_id})
        return run_scenario.AsyncResult(task_id)

    def expanded(args=None, kwargs=None, **options):
        record["batches"].append(len(kwargs["runs"]))
        enqueue_batch.run(**kwargs)  # what the worker that takes the batch does

    inspect = app.control.inspect

    def spy_inspect(*args, **kwargs):
        record["inspects"] += 1
        return inspect(*args, **kwargs)

    def checked(args=None, kwargs=None, **options):
        record["checks"].append(kwargs["sweep_id"])

    def reverified(args=None, kwargs=None, **options):
        record["reverified"].append(kwargs["entry_ids"])
        verify_entries.run(**kwargs)

    monkeypatch.setattr(group, "apply_async", spy_group)
    monkeypatch.setattr(check_sweep, "apply_async", checked)
    monkeypatch.setattr(verify_entries, "apply_async", reverified)
    monkeypatch.setattr(run_scenario, "apply_async", unpublished)
    monkeypatch.setattr(enqueue_batch, "apply_async", expanded)
    monkeypatch.setattr(app.control, "inspect", spy_inspect)
    return record
