import pytest

from errorkb.celery import app


@pytest.fixture
def eager():
    """Run tasks in the test's own process. For unit tests only: see test_worker.py."""
    app.conf.task_always_eager = True
    app.conf.task_eager_propagates = True
    yield
    app.conf.task_always_eager = False
    app.conf.task_eager_propagates = False
