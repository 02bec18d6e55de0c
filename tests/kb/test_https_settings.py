"""HTTPS behind a TLS proxy: the settings the environment sets, and the requests they let in."""

import json
import os
import re
import runpy
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
from django.test import Client

from errorkb.kb.models import Report
from tests.builders import import_records, make_record
from tests.kb.people import make_user

ROOT = Path(__file__).resolve().parents[2]
NAMES = [
    "SECURE_SSL_REDIRECT",
    "SECURE_HSTS_SECONDS",
    "SECURE_HSTS_INCLUDE_SUBDOMAINS",
    "SECURE_HSTS_PRELOAD",
    "SESSION_COOKIE_SECURE",
    "CSRF_COOKIE_SECURE",
    "CSRF_TRUSTED_ORIGINS",
    "SECURE_PROXY_SSL_HEADER",
    "TRUSTED_PROXIES",
    "AXES_CLIENT_IP_CALLABLE",
]
PROBE = (
    "import json; from django.conf import settings;"
    f"print(json.dumps({{name: getattr(settings, name) for name in {NAMES!r}}}, default=str))"
)
# What this module's tests set: the caller's environment must not say otherwise.
VARIABLES = {*NAMES, "HTTPS", "PROXY_SSL_HEADER", "DEBUG", "ALLOWED_HOSTS", "DATABASE_URL"}


def run(args: list[str], **env) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if k not in VARIABLES}
    clean.update({"DJANGO_SETTINGS_MODULE": "errorkb.settings", "SECRET_KEY": "s", **env})
    return subprocess.run(args, cwd=ROOT, env=clean, capture_output=True, text=True)


def load_settings(**env) -> dict:
    result = run([sys.executable, "-c", PROBE], **env)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_it_leaves_https_off_by_default():
    assert load_settings() == {
        "SECURE_SSL_REDIRECT": False,
        "SECURE_HSTS_SECONDS": 0,
        "SECURE_HSTS_INCLUDE_SUBDOMAINS": False,
        "SECURE_HSTS_PRELOAD": False,
        "SESSION_COOKIE_SECURE": False,
        "CSRF_COOKIE_SECURE": False,
        "CSRF_TRUSTED_ORIGINS": [],
        "SECURE_PROXY_SSL_HEADER": None,
        "TRUSTED_PROXIES": [],
        "AXES_CLIENT_IP_CALLABLE": "errorkb.http.clients.client_address",
    }


def test_it_turns_on_redirect_secure_cookies_and_a_year_of_hsts_with_one_switch():
    config = load_settings(HTTPS="true")
    assert config["SECURE_SSL_REDIRECT"] is True
    assert config["SECURE_HSTS_SECONDS"] == 365 * 24 * 3600
    assert config["SESSION_COOKIE_SECURE"] is True and config["CSRF_COOKIE_SECURE"] is True
    # Both bind more than this site: only when asked.
    assert config["SECURE_HSTS_INCLUDE_SUBDOMAINS"] is False
    assert config["SECURE_HSTS_PRELOAD"] is False


def test_it_lets_each_setting_override_the_switch():
    config = load_settings(HTTPS="true", SECURE_SSL_REDIRECT="false", SECURE_HSTS_SECONDS="3600")
    assert config["SECURE_SSL_REDIRECT"] is False
    assert config["SECURE_HSTS_SECONDS"] == 3600
    assert config["SESSION_COOKIE_SECURE"] is True


def test_it_reads_each_setting_without_the_switch():
    config = load_settings(
        SECURE_SSL_REDIRECT="1",
        SECURE_HSTS_SECONDS="600",
        SECURE_HSTS_INCLUDE_SUBDOMAINS="true",
        SECURE_HSTS_PRELOAD="yes",
        SESSION_COOKIE_SECURE="on",
        CSRF_COOKIE_SECURE="true",
    )
    assert config["SECURE_SSL_REDIRECT"] is True
    assert config["SECURE_HSTS_SECONDS"] == 600
    assert config["SECURE_HSTS_INCLUDE_SUBDOMAINS"] is True
    assert config["SECURE_HSTS_PRELOAD"] is True
    assert config["SESSION_COOKIE_SECURE"] is True and config["CSRF_COOKIE_SECURE"] is True


def test_it_reads_trusted_origins_as_a_list():
    config = load_settings(CSRF_TRUSTED_ORIGINS="https://errors.example.org, https://*.example.net")
    assert config["CSRF_TRUSTED_ORIGINS"] == ["https://errors.example.org", "https://*.example.net"]


def test_it_reads_the_proxy_ssl_header_as_a_request_header_saying_https():
    config = load_settings(PROXY_SSL_HEADER="X-Forwarded-Proto")
    assert config["SECURE_PROXY_SSL_HEADER"] == ["HTTP_X_FORWARDED_PROTO", "https"]


def test_it_reads_trusted_proxies_as_addresses_and_networks():
    config = load_settings(TRUSTED_PROXIES="10.0.0.0/8, 192.0.2.1, 2001:db8::/32")
    assert config["TRUSTED_PROXIES"] == ["10.0.0.0/8", "192.0.2.1/32", "2001:db8::/32"]


@pytest.mark.parametrize(
    "env, name",
    [
        ({"HTTPS": "maybe"}, "HTTPS"),
        ({"SECURE_SSL_REDIRECT": "perhaps"}, "SECURE_SSL_REDIRECT"),
        ({"SECURE_HSTS_SECONDS": "a year"}, "SECURE_HSTS_SECONDS"),
        ({"SECURE_HSTS_SECONDS": "-1"}, "SECURE_HSTS_SECONDS"),
        ({"SECURE_HSTS_PRELOAD": "sure"}, "SECURE_HSTS_PRELOAD"),
        ({"SESSION_COOKIE_SECURE": "2"}, "SESSION_COOKIE_SECURE"),
        ({"CSRF_TRUSTED_ORIGINS": "errors.example.org"}, "CSRF_TRUSTED_ORIGINS"),
        ({"CSRF_TRUSTED_ORIGINS": "https://ok.example.org,ftp://x"}, "CSRF_TRUSTED_ORIGINS"),
        ({"CSRF_TRUSTED_ORIGINS": "https://"}, "CSRF_TRUSTED_ORIGINS"),
        ({"CSRF_TRUSTED_ORIGINS": "https://errors.example.org/"}, "CSRF_TRUSTED_ORIGINS"),
        ({"PROXY_SSL_HEADER": "X-Forwarded-Proto: https"}, "PROXY_SSL_HEADER"),
        ({"PROXY_SSL_HEADER": "X_Forwarded_Proto"}, "PROXY_SSL_HEADER"),
        ({"TRUSTED_PROXIES": "10.0.0.300"}, "TRUSTED_PROXIES"),
        ({"TRUSTED_PROXIES": "10.0.0.0/8,proxy.internal"}, "TRUSTED_PROXIES"),
        ({"TRUSTED_PROXIES": "10.0.0.1/8"}, "TRUSTED_PROXIES"),
    ],
)
def test_it_refuses_a_bad_value_naming_the_variable(env, name):
    result = run([sys.executable, "-c", PROBE], **env)
    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr and name in result.stderr.splitlines()[-1]


def documented_production() -> dict[str, str]:
    """The variables README's production example exports, with their values."""
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Production", 1)[1].split("\n## ", 1)[0]
    return dict(re.findall(r"^export (\w+)=(\S+)", section, re.MULTILINE))


def test_the_production_example_sets_https_and_the_proxy():
    documented = documented_production()
    for name in ("HTTPS", "CSRF_TRUSTED_ORIGINS", "PROXY_SSL_HEADER", "TRUSTED_PROXIES"):
        assert name in documented, f"README's production example should export {name}"


def test_check_deploy_is_clean_under_the_documented_production_settings(tmp_path):
    env = documented_production()
    env["SECRET_KEY"] = secrets.token_urlsafe(50)  # the example's $(python3 ...)
    env["DATABASE_URL"] = f"sqlite:///{tmp_path / 'db.sqlite3'}"  # no database server needed
    args = [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"]
    result = run(args, **env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues (0 silenced)." in result.stdout


# In process: the settings errorkb derives from a production environment, applied to requests
# that come through a TLS proxy at 10.0.0.1 from a reader at 203.0.113.7.
PRODUCTION = {
    "HTTPS": "true",
    "ALLOWED_HOSTS": "errors.example.org",
    "CSRF_TRUSTED_ORIGINS": "https://errors.example.org",
    "PROXY_SSL_HEADER": "X-Forwarded-Proto",
    "TRUSTED_PROXIES": "10.0.0.0/8",
}
APPLIED = ["ALLOWED_HOSTS", *NAMES]
PROXIED = {
    "REMOTE_ADDR": "10.0.0.1",
    "HTTP_HOST": "errors.example.org",
    "HTTP_X_FORWARDED_FOR": "203.0.113.7",
    "HTTP_X_FORWARDED_PROTO": "https",
}
ORIGIN = {"HTTP_ORIGIN": "https://errors.example.org"}


@pytest.fixture
def production(settings, monkeypatch):
    for name, value in PRODUCTION.items():
        monkeypatch.setenv(name, value)
    derived = runpy.run_path(str(ROOT / "errorkb" / "settings.py"))
    for name in APPLIED:
        setattr(settings, name, derived[name])
    return settings


@pytest.fixture
def report_url(db):
    (entry,) = import_records(make_record("Can save model checkpoint."))
    return f"/errors/{entry.id}/report/"


def csrf_browser(url: str) -> tuple[Client, str]:
    """A browser that enforces CSRF, has loaded url through the proxy, and its token."""
    browser = Client(enforce_csrf_checks=True)
    assert browser.get(url, **PROXIED).status_code == 200
    return browser, browser.cookies["csrftoken"].value


def test_without_the_proxy_settings_a_proxied_form_fails_the_origin_check(
    settings, report_url, caplog
):
    settings.ALLOWED_HOSTS = ["errors.example.org"]
    browser, token = csrf_browser(report_url)
    data = {"message": "Off by one.", "csrfmiddlewaretoken": token}
    response = browser.post(report_url, data, **PROXIED, **ORIGIN)
    assert response.status_code == 403
    assert "Origin checking failed" in caplog.text
    assert not Report.objects.exists()


def test_it_accepts_the_report_form_through_a_tls_proxy(production, report_url, caplog):
    browser, token = csrf_browser(report_url)
    data = {"message": "Off by one.", "csrfmiddlewaretoken": token}
    response = browser.post(report_url, data, **PROXIED, **ORIGIN)
    assert response.status_code == 303, caplog.text
    assert Report.objects.count() == 1
    assert browser.cookies["csrftoken"]["secure"] is True


def test_it_accepts_the_admin_login_through_a_tls_proxy(production, db, caplog):
    make_user("curator")
    browser, token = csrf_browser("/admin/login/")
    data = {"username": "curator", "password": "curator-password", "csrfmiddlewaretoken": token}
    response = browser.post("/admin/login/?next=/admin/", data, **PROXIED, **ORIGIN)
    assert response.status_code == 302, caplog.text
    assert response["Location"] == "/admin/"
    assert browser.cookies["sessionid"]["secure"] is True


def test_it_redirects_plain_http_to_https_and_sends_hsts_over_https(production, report_url):
    plain = Client().get(report_url, **{**PROXIED, "HTTP_X_FORWARDED_PROTO": "http"})
    assert plain.status_code == 301
    assert plain["Location"] == f"https://errors.example.org{report_url}"
    secure = Client().get(report_url, **PROXIED)
    assert secure.status_code == 200
    assert secure["Strict-Transport-Security"] == "max-age=31536000"


def test_it_believes_the_scheme_header_only_from_a_trusted_proxy(production, report_url):
    # A reader reaching gunicorn directly says its plain request was HTTPS: not believed.
    direct = {**PROXIED, "REMOTE_ADDR": "203.0.113.9"}
    refused = Client().get(report_url, **direct)
    assert refused.status_code == 301
    assert refused["Location"] == f"https://errors.example.org{report_url}"
    assert "Strict-Transport-Security" not in refused
    # The same header from the proxy in TRUSTED_PROXIES is.
    assert Client().get(report_url, **PROXIED).status_code == 200
