"""The production set-up's reverse proxy (deploy/nginx/errorkb.conf): a configuration nginx
accepts, and slow clients that cannot starve the site behind it (issue 27, item 1)."""

import importlib.util
import re
import shlex
import shutil
from pathlib import Path

import pytest
from django.conf import settings

from errorkb.kb.uploads import MAX_UPLOAD_BYTES

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
