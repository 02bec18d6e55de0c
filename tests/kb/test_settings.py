"""errorkb/settings.py: the environment is read there, and bad values fail at start."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PROBE = (
    "import json; from django.conf import settings; db = settings.DATABASES['default'];"
    "print(json.dumps({'engine': db['ENGINE'], 'name': str(db['NAME']),"
    " 'max_age': db['CONN_MAX_AGE'], 'health': db['CONN_HEALTH_CHECKS'],"
    " 'options': db.get('OPTIONS', {}),"
    " 'debug': settings.DEBUG, 'hosts': settings.ALLOWED_HOSTS}))"
)


def load_settings(**env) -> subprocess.CompletedProcess:
    clean = {
        k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "DEBUG", "CONN_MAX_AGE")
    }
    clean.update({"DJANGO_SETTINGS_MODULE": "errorkb.settings", "SECRET_KEY": "s", **env})
    return subprocess.run(
        [sys.executable, "-c", PROBE], cwd=ROOT, env=clean, capture_output=True, text=True
    )


def test_it_defaults_to_an_sqlite_file_in_the_project_folder():
    result = load_settings()
    assert result.returncode == 0, result.stderr
    config = json.loads(result.stdout)
    assert config["engine"] == "django.db.backends.sqlite3"
    assert config["name"] == str(ROOT / "db.sqlite3")
    assert config["debug"] is False


def test_it_keeps_postgresql_connections_with_health_checks():
    result = load_settings(DATABASE_URL="postgres://postgres@127.0.0.1:5432/errorkb")
    config = json.loads(result.stdout)
    assert config["engine"] == "django.db.backends.postgresql"
    assert config["max_age"] == 600 and config["health"] is True


def test_it_prepares_repeated_statements_on_postgresql_unless_told_not_to():
    url = "postgres://postgres@127.0.0.1:5432/errorkb"
    prepared = json.loads(load_settings(DATABASE_URL=url).stdout)["options"]
    assert prepared == {"server_side_binding": True, "prepare_threshold": 2}
    result = load_settings(DATABASE_URL=url, DATABASE_PREPARED_STATEMENTS="false")
    assert json.loads(result.stdout)["options"] == {}


def test_it_reads_allowed_hosts_as_a_list():
    result = load_settings(ALLOWED_HOSTS="errors.example.org, .example.net")
    assert json.loads(result.stdout)["hosts"] == ["errors.example.org", ".example.net"]


@pytest.mark.parametrize(
    "env, name",
    [
        ({"DEBUG": "maybe"}, "DEBUG"),
        ({"CONN_MAX_AGE": "ten"}, "CONN_MAX_AGE"),
        ({"CONN_MAX_AGE": "-1"}, "CONN_MAX_AGE"),
        ({"DATABASE_URL": "nosuchdb://x/y"}, "DATABASE_URL"),
        ({"API_PAGE_SIZE": "0"}, "API_PAGE_SIZE"),
        ({"LOG_LEVEL": "LOUD"}, "LOG_LEVEL"),
        ({"SECRET_KEY": "", "DEBUG": "false"}, "SECRET_KEY"),
    ],
)
def test_it_refuses_a_bad_value_naming_the_variable(env, name):
    result = load_settings(**env)
    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr and name in result.stderr.splitlines()[-1]
