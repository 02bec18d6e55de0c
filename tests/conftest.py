from pathlib import Path

import pytest

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
