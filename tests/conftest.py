from pathlib import Path

import pytest
from pytest_django.plugin import blocking_manager_key

from errorkb.verification.sync import sync_scenarios
from tests.builders import import_records, make_record
from tests.verification.builders import link_scenario

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def django_db_modify_db_settings(django_db_modify_db_settings_parallel_suffix):
    """On SQLite, a test database in a file: the Celery worker tests share it with a worker."""
    from django.conf import settings

    database = settings.DATABASES["default"]
    if database["ENGINE"] == "django.db.backends.sqlite3":
        (ROOT / "var").mkdir(exist_ok=True)
        database.setdefault("TEST", {})["NAME"] = str(ROOT / "var" / "test-db.sqlite3")


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker):
    """The test database, migrated, with the trainer's scenarios mirrored, as bin/setup does."""
    with django_db_blocker.unblock():
        sync_scenarios()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item, nextitem):
    result = yield
    # A transactional test ends with Django's flush, which empties every table: the
    # scenarios are mirrored again for the tests after it. It runs here, after the test's
    # fixtures are torn down, because the flush is the last of them (after the last test,
    # the test database is gone too).
    if nextitem is not None and _transactional(item):
        with item.config.stash[blocking_manager_key].unblock():
            sync_scenarios()
    return result


def _transactional(item) -> bool:
    marker = item.get_closest_marker("django_db")
    if marker is not None and marker.kwargs.get("transaction"):
        return True
    return bool({"transactional_db", "live_server"} & set(item.fixturenames))


@pytest.fixture(autouse=True)
def fast_password_hashing(settings):
    """Tests make many users: a fast hasher keeps them from spending seconds on each."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def entry():
    """A published entry (verification and the pages about it)."""
    return import_records(make_record("Can save model checkpoint."))[0]


@pytest.fixture
def scenario(entry):
    """A scenario linked to `entry` that proves its message."""
    return link_scenario(entry)


@pytest.fixture(autouse=True)
def full_allowance():
    """Each test's clients start with their whole allowance: the throttles' counts live in
    files (settings.CACHES), which outlast a test."""
    from django.core.cache import caches

    caches["throttles"].clear()
