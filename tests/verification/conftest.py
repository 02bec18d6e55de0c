import pytest
from celery import group

from errorkb.celery import app
from errorkb.verification.tasks import run_scenario


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
    """What the fan-out hands Celery: each group sent, and each task of it (not published)."""
    record = {"groups": [], "tasks": [], "inspects": 0}
    send_group = group.apply_async

    def spy_group(self, *args, **kwargs):
        record["groups"].append(len(self.tasks))
        return send_group(self, *args, **kwargs)

    def unpublished(args=None, kwargs=None, task_id=None, **options):
        record["tasks"].append({**kwargs, "task_id": task_id})
        return run_scenario.AsyncResult(task_id)

    inspect = app.control.inspect

    def spy_inspect(*args, **kwargs):
        record["inspects"] += 1
        return inspect(*args, **kwargs)

    monkeypatch.setattr(group, "apply_async", spy_group)
    monkeypatch.setattr(run_scenario, "apply_async", unpublished)
    monkeypatch.setattr(app.control, "inspect", spy_inspect)
    return record
