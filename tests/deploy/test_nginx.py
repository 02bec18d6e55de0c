"""The production set-up's reverse proxy (deploy/nginx/errorkb.conf): a configuration nginx
accepts, slow clients that cannot starve the site behind it, and
errorkb's security headers on every answer a reader gets through it, nginx's and
gunicorn's own included, each once."""

import importlib.util
import re
import shlex
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest
from django.conf import settings

from errorkb.kb.dataset.uploads import MAX_UPLOAD_BYTES

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("slow_clients", ROOT / "bench" / "slow_clients.py")
slow_clients = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(slow_clients)

needs_nginx = pytest.mark.skipif(
    shutil.which("nginx") is None, reason="nginx is not installed (bin/setup --dev installs it)"
)


@needs_nginx
def test_nginx_accepts_the_repositorys_configuration(tmp_path):
    config = slow_clients.local_config(tmp_path, http_port=18080, https_port=18443, app_port=18000)
    checked = slow_clients.nginx_test(config)
    assert checked.returncode == 0, checked.stderr
    assert "syntax is ok" in checked.stderr and "test is successful" in checked.stderr


@needs_nginx
def test_nginx_refuses_a_broken_configuration(tmp_path):
    # The check above would pass vacuously if nginx -t never looked at the site's file.
    config = slow_clients.local_config(tmp_path, http_port=18080, https_port=18443, app_port=18000)
    site = tmp_path / "errorkb.conf"
    site.write_text(site.read_text().replace("client_body_timeout 10s;", "client_body_timeout;"))
    checked = slow_clients.nginx_test(config)
    assert checked.returncode != 0
    assert "client_body_timeout" in checked.stderr


def test_the_configuration_bounds_what_a_reader_may_hold():
    config = slow_clients.CONFIG.read_text()
    for directive in (
        "client_header_timeout 10s;",
        "client_body_timeout 10s;",
        "send_timeout 10s;",
        "keepalive_timeout 10s;",
        "proxy_request_buffering on;",
        "proxy_buffering on;",
        "proxy_set_header X-Forwarded-Proto $scheme;",
        "proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;",
        "proxy_set_header Host $host;",
    ):
        assert directive in config, directive


def test_the_body_limit_is_the_largest_body_errorkb_reads():
    # nginx's "m" is MiB. A dataset upload is the largest body, with its form around it
    # (well under 1 MiB); a larger limit would let nginx buffer bodies errorkb refuses.
    mebibytes = int(re.search(r"client_max_body_size (\d+)m;", slow_clients.CONFIG.read_text())[1])
    limit = mebibytes * 2**20
    assert MAX_UPLOAD_BYTES < limit <= MAX_UPLOAD_BYTES + 2**20
    assert settings.DATA_UPLOAD_MAX_MEMORY_SIZE < limit  # a lookup's body


def test_the_probe_runs_gunicorn_as_the_readme_does():
    readme = (ROOT / "README.md").read_text()
    documented = next(
        shlex.split(line) for line in readme.splitlines() if line.startswith(".venv/bin/gunicorn ")
    )

    def options(command: list[str]) -> dict[str, str]:
        return dict(zip(command[2::2], command[3::2], strict=True))

    assert options(documented)["--bind"] == "127.0.0.1:8000"  # only nginx reaches it
    assert options(slow_clients.gunicorn_command(8000)) == {
        **options(documented),
        "--workers": "2",
    }


@needs_nginx
@pytest.mark.slow
def test_ordinary_requests_are_answered_within_a_second_while_four_connections_stall(capsys):
    with slow_clients.production_site(behind_nginx=True) as (scheme, port):
        found = slow_clients.probe(scheme, port, requests=6, hold=15)
    with capsys.disabled():
        slow_clients.print_probe("nginx in front of gunicorn", found)
    # HTTPS=true redirects what is not secure: a 200 also says the scheme nginx names
    # was believed from it.
    for path, status, seconds in found["requests"]:
        assert status == 200 and seconds < 1.0, (path, status, seconds)
    for stalled in found["stalls"]:
        assert stalled["held_throughout"], stalled
        # nginx, not gunicorn, waited on them, and gave up after its 10 s timeouts.
        assert stalled["closed_after"] is not None and 9.5 <= stalled["closed_after"] <= 15, stalled


# What settings.py has errorkb send on every answer (HSTS over HTTPS only).
SECURITY_HEADERS = (
    "Content-Security-Policy",
    "X-Frame-Options",
    "X-Content-Type-Options",
    "Referrer-Policy",
    "Cross-Origin-Opener-Policy",
    "Strict-Transport-Security",
)
OVER_HTTP = tuple(name for name in SECURITY_HEADERS if name != "Strict-Transport-Security")


@dataclass
class Answer:
    status: int
    headers: list[tuple[str, str]]
    body: bytes

    def values(self, name: str) -> list[str]:
        return [value for key, value in self.headers if key.lower() == name.lower()]

    def header(self, name: str) -> str:
        (value,) = self.values(name)
        return value


@dataclass
class Site:
    app_port: int  # gunicorn, as nginx reaches it
    http_port: int
    https_port: int


def exchange(port: int, request: bytes, *, scheme: str = "https") -> Answer:
    """The answer to raw request bytes, read until the server closes the connection."""
    with slow_clients.connect(scheme, port, timeout=10) as sock:
        sock.sendall(request)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    status_line, *lines = head.decode("latin-1").split("\r\n")
    headers = [tuple(part.strip() for part in line.split(":", 1)) for line in lines]
    return Answer(int(status_line.split()[1]), headers, body)


def request(method: str, path: str, *extra_headers: str, host: str = "localhost") -> bytes:
    lines = [f"{method} {path} HTTP/1.1", f"Host: {host}", *extra_headers, "Connection: close"]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def policy(value: str) -> dict[str, str]:
    # django-csp writes its directives in no fixed order; their order means nothing.
    directives = (part.strip().split(" ", 1) for part in value.split(";") if part.strip())
    return {name: rest for name, rest in directives}


def security_headers(answer: Answer, names: tuple[str, ...] = SECURITY_HEADERS) -> dict:
    found = {name: answer.header(name) for name in names}
    found["Content-Security-Policy"] = policy(found["Content-Security-Policy"])
    return found


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """errorkb as the README runs it (HTTPS=true), behind nginx with this configuration."""
    folder = tmp_path_factory.mktemp("site")
    with slow_clients.gunicorn_site(folder, https=True) as app_port:
        with slow_clients.nginx_in_front(folder, app_port) as (http_port, https_port):
            yield Site(app_port, http_port, https_port)


@pytest.fixture(scope="module")
def errorkbs_headers(site):
    """The security headers errorkb itself sends, asked directly, as nginx asks it: each
    must be there, or the comparisons below would hold nginx's copies to themselves."""
    answer = exchange(site.app_port, request("GET", "/", "X-Forwarded-Proto: https"), scheme="http")
    assert answer.status == 200
    return security_headers(answer)


NGINX_CONFIG_NAME = re.search(r"server_name (\S+);", slow_clients.CONFIG.read_text())[1]
TOO_LONG_FOR_NGINX = "/" + "a" * 9000  # over nginx's 8 KiB buffer for a request line
TOO_LONG_FOR_GUNICORN = "/" + "a" * 5000  # within nginx's, over gunicorn's 4094 bytes
MANY_FIELDS = [f"X-Field-{number}: 1" for number in range(150)]  # gunicorn takes 100


@needs_nginx
@pytest.mark.parametrize(
    ("raw_request", "status", "said_by"),
    [
        (request("POST", "/api/lookup", "Content-Length: 30000000"), 413, b"nginx"),
        (request("GET", TOO_LONG_FOR_NGINX), 414, b"nginx"),
        (request("GET", TOO_LONG_FOR_GUNICORN), 414, b"URI Too Long"),
        (b"GET / HTTP/1.1\r\nConnection: close\r\n\r\n", 400, b"nginx"),  # no Host
        (request("GET", "/", "A header line without a colon"), 400, b"nginx"),
        (request("get", "/"), 400, b"nginx"),  # a method nginx cannot read
        (request("AB", "/"), 400, b"Invalid HTTP method"),  # one gunicorn refuses
        (request("GET", "/", *MANY_FIELDS), 431, b"limit request headers"),
    ],
    ids=[
        "body over the limit",
        "URI over nginx's limit",
        "URI over gunicorn's limit",
        "HTTP/1.1 without Host",
        "bad header line",
        "lowercase method",
        "method gunicorn refuses",
        "more header fields than gunicorn takes",
    ],
)
def test_answers_errorkb_does_not_make_carry_its_security_headers(
    site, errorkbs_headers, raw_request, status, said_by
):
    answer = exchange(site.https_port, raw_request)
    assert answer.status == status
    assert said_by in answer.body  # nginx's page, or gunicorn's
    assert security_headers(answer) == errorkbs_headers


@needs_nginx
@pytest.mark.parametrize(
    ("path", "status"),
    [
        ("/", 200),
        ("/api/errors/?pageSize=1", 200),
        ("/static/admin/css/base.css", 200),  # WhiteNoise's, without X-Frame-Options
        ("/no-such-page/", 404),
    ],
)
def test_errorkbs_own_answers_carry_each_security_header_once(site, errorkbs_headers, path, status):
    answer = exchange(site.https_port, request("GET", path))
    assert answer.status == status
    assert security_headers(answer) == errorkbs_headers  # one value each, or header() raises


@needs_nginx
@pytest.mark.parametrize("path", ["/", "/api/errors/"])
def test_trace_is_refused_as_errorkb_refuses_any_method_it_does_not_take(
    site, errorkbs_headers, path
):
    # nginx refuses TRACE itself (its 405 names no allowed method) unless it hands it on.
    direct = exchange(
        site.app_port, request("TRACE", path, "X-Forwarded-Proto: https"), scheme="http"
    )
    answer = exchange(site.https_port, request("TRACE", path))
    assert direct.status == answer.status == 405
    assert answer.header("Allow") == direct.header("Allow") != ""
    assert answer.body == direct.body
    assert security_headers(answer) == errorkbs_headers


@needs_nginx
@pytest.mark.parametrize("method", ["GET", "POST", "TRACE"])
def test_port_80_redirects_to_this_sites_name_whatever_host_was_sent(
    site, errorkbs_headers, method
):
    answer = exchange(
        site.http_port, request(method, "/errors/?q=1", host="evil.example"), scheme="http"
    )
    assert answer.status == 301
    assert answer.header("Location") == f"https://{NGINX_CONFIG_NAME}/errors/?q=1"
    # Browsers ignore HSTS over plain HTTP, and errorkb sends it only over HTTPS.
    assert answer.values("Strict-Transport-Security") == []
    assert security_headers(answer, OVER_HTTP) == {
        name: errorkbs_headers[name] for name in OVER_HTTP
    }


@needs_nginx
def test_nginx_names_no_version(site):
    for answer in (
        exchange(site.https_port, request("GET", "/")),  # errorkb's answer
        exchange(site.https_port, request("GET", TOO_LONG_FOR_NGINX)),  # nginx's own page
        exchange(site.http_port, request("GET", "/"), scheme="http"),
    ):
        assert answer.header("Server") == "nginx"
        assert b"nginx/" not in answer.body
