"""The production set-up's reverse proxy (deploy/nginx/errorkb.conf): a configuration nginx
accepts, and slow clients that cannot starve the site behind it (issue 27, item 1)."""

import importlib.util
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("slow_clients", ROOT / "bench" / "slow_clients.py")
slow_clients = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(slow_clients)

# bin/setup --dev installs nginx; without it these cannot run, and CI has it.
pytestmark = pytest.mark.skipif(shutil.which("nginx") is None, reason="nginx is not installed")


def test_nginx_accepts_the_repositorys_configuration(tmp_path):
    config = slow_clients.local_config(tmp_path, http_port=18080, https_port=18443, app_port=18000)
    checked = slow_clients.nginx_test(config)
    assert checked.returncode == 0, checked.stderr
    assert "syntax is ok" in checked.stderr and "test is successful" in checked.stderr


def test_the_configuration_bounds_what_a_reader_may_hold():
    config = slow_clients.CONFIG.read_text()
    for directive in (
        "client_header_timeout 10s;",
        "client_body_timeout 10s;",
        "client_max_body_size 21m;",
        "proxy_request_buffering on;",
        "proxy_set_header X-Forwarded-Proto $scheme;",
        "proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;",
        "proxy_set_header Host $host;",
    ):
        assert directive in config, directive


@pytest.mark.slow
def test_ordinary_requests_are_answered_within_a_second_while_four_connections_stall(capsys):
    with slow_clients.production_site(behind_nginx=True) as (scheme, port):
        found = slow_clients.probe(scheme, port, requests=6, hold=12)
    with capsys.disabled():
        slow_clients.print_probe("nginx in front of gunicorn", found)
    for path, status, seconds in found["requests"]:
        assert status == 200 and seconds < 1.0, (path, status, seconds)
    # nginx, not gunicorn, waited on them, and gave up after its timeouts.
    assert [closed for _, closed, _ in found["stalls"]] == [True] * 4
