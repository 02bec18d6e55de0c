import pytest

from errorkb.celery import app
from tests.builders import import_records, make_record
from tests.verification.builders import link_scenario


@pytest.fixture
def eager():
    """Run tasks in the test's own process. For unit tests only: see test_worker.py."""
    app.conf.task_always_eager = True
    app.conf.task_eager_propagates = True
    yield
    app.conf.task_always_eager = False
    app.conf.task_eager_propagates = False


@pytest.fixture
def entry():
    return import_records(make_record("Can save model checkpoint."))[0]


@pytest.fixture
def scenario(entry):
    return link_scenario(entry)
