"""Benchmark: ordinary requests while four connections stall, through nginx and without it.

    .venv/bin/python bench/slow_clients.py [--hold 12] [--requests 10]

It starts errorkb as the README's production recipe runs it, on loopback: gunicorn with
two one-thread workers (`--worker-class gthread --threads 1`), DEBUG off, on an SQLite
file holding the demo entries. Once it runs behind nginx with the repository's
configuration (deploy/nginx/errorkb.conf, its names, ports and certificate made local: a
self-signed certificate in a temporary folder) and HTTPS=true; once with gunicorn alone
on the port, on plain HTTP, as the README used to run it. Each time it opens four
stalled connections, two that send half their headers and two that declare a 2 MiB body
and send 1 KB of it, then makes ordinary requests (the entries' JSON, the home page) and
prints the latency of each; then whether the stalls were still held once those were
answered, and when the server closed each (nginx: after its 10 s timeouts) or that it
still held them --hold seconds after they began.

tests/deploy/test_nginx.py runs the nginx half and asserts what is printed here.
"""

import argparse
import os
import select
import shutil
import socket
import ssl
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYTHON = ROOT / ".venv" / "bin" / "python"
GUNICORN = ROOT / ".venv" / "bin" / "gunicorn"
CONFIG = ROOT / "deploy" / "nginx" / "errorkb.conf"
DEMO = ROOT / "errorkb" / "kb" / "fixtures" / "demo.json"
ENTRIES = "/api/errors/"  # the first page of the demo's entries, as JSON
READ_TIMEOUT_S = 5.0  # an ordinary request that waits longer is counted as starved


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def local_config(folder: Path, *, http_port: int, https_port: int, app_port: int) -> Path:
    """The repository's nginx configuration with its ports and certificate made local, in
    a main configuration that runs as this user from `folder`."""
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"]
        + ["-subj", "/CN=localhost", "-keyout", str(folder / "key.pem")]
        + ["-out", str(folder / "cert.pem")],
        check=True,
        capture_output=True,
    )
    site = CONFIG.read_text()
    for old, new in [
        ("listen [::]:80;", ""),
        ("listen [::]:443 ssl http2;", ""),
        ("listen 80;", f"listen 127.0.0.1:{http_port};"),
        ("listen 443 ssl http2;", f"listen 127.0.0.1:{https_port} ssl http2;"),
        ("/etc/letsencrypt/live/errors.example.org/fullchain.pem", str(folder / "cert.pem")),
        ("/etc/letsencrypt/live/errors.example.org/privkey.pem", str(folder / "key.pem")),
        ("server 127.0.0.1:8000;", f"server 127.0.0.1:{app_port};"),
    ]:
        assert old in site, old
        site = site.replace(old, new)
    (folder / "errorkb.conf").write_text(site)
    # As root, nginx's workers would switch to a user that cannot read this folder.
    user = "user root;" if os.geteuid() == 0 else ""
    main = f"""{user}
worker_processes 1;
pid {folder}/nginx.pid;
error_log {folder}/error.log;
events {{ worker_connections 256; }}
http {{
    access_log off;
    client_body_temp_path {folder}/body;
    proxy_temp_path {folder}/proxy;
    fastcgi_temp_path {folder}/fastcgi;
    uwsgi_temp_path {folder}/uwsgi;
    scgi_temp_path {folder}/scgi;
    include {folder}/errorkb.conf;
}}
"""
    (folder / "nginx.conf").write_text(main)
    return folder / "nginx.conf"


def nginx_test(config: Path) -> subprocess.CompletedProcess:
    """`nginx -t` of a configuration made by local_config."""
    folder = config.parent
    command = ["nginx", "-t", "-p", str(folder), "-e", str(folder / "error.log"), "-c", str(config)]
    return subprocess.run(command, capture_output=True, text=True)


def site_environment(folder: Path, *, https: bool) -> dict[str, str]:
    """The README's production settings, on an SQLite file in `folder`. With `https`, the
    site redirects plain HTTP, so its answers through nginx show that the scheme nginx
    names is believed from it (a trusted proxy)."""
    return {
        **os.environ,
        "DEBUG": "false",
        "HTTPS": "true" if https else "false",
        "SECRET_KEY": "slow-clients-benchmark-key-" + "x" * 40,
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "DATABASE_URL": f"sqlite:///{folder / 'db.sqlite3'}",
        "CELERY_BROKER_DIR": str(folder / "broker"),
        "PROXY_SSL_HEADER": "X-Forwarded-Proto",
        "TRUSTED_PROXIES": "127.0.0.1",
        "LOG_LEVEL": "WARNING",
    }


def prepare_database(environment: dict[str, str]) -> None:
    for command in (["migrate", "--no-input", "-v0"], ["import_errors", str(DEMO)]):
        subprocess.run(
            [str(PYTHON), "manage.py", *command],
            cwd=ROOT,
            env=environment,
            check=True,
            capture_output=True,
        )


@contextmanager
def running(command: list[str], environment: dict[str, str], port: int, log: Path):
    """A server process until the block ends, once it accepts connections on port."""
    with open(log, "wb") as output:
        process = subprocess.Popen(command, cwd=ROOT, env=environment, stdout=output, stderr=output)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"{command[0]} did not start: {log.read_text()}") from None
                time.sleep(0.1)
        yield process
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def gunicorn_command(port: int) -> list[str]:
    # The README's production command, on loopback and with two workers.
    return [str(GUNICORN), "errorkb.wsgi", "--bind", f"127.0.0.1:{port}"] + [
        "--workers", "2", "--worker-class", "gthread", "--threads", "1",
    ]  # fmt: skip


@contextmanager
def gunicorn_site(folder: Path, *, https: bool):
    """The port of errorkb run as the README runs it, from an SQLite file in `folder`."""
    environment = site_environment(folder, https=https)
    prepare_database(environment)
    port = free_port()
    with running(gunicorn_command(port), environment, port, folder / "gunicorn.log"):
        yield port


@contextmanager
def nginx_in_front(folder: Path, app_port: int):
    """(http_port, https_port) of nginx running the repository's configuration, made local
    in `folder`, in front of errorkb on app_port."""
    http_port, https_port = free_port(), free_port()
    config = local_config(folder, http_port=http_port, https_port=https_port, app_port=app_port)
    command = ["nginx", "-p", str(folder), "-e", str(folder / "error.log")]
    command += ["-c", str(config), "-g", "daemon off;"]
    with running(command, dict(os.environ), https_port, folder / "nginx.out"):
        yield http_port, https_port


@contextmanager
def production_site(*, behind_nginx: bool):
    """(scheme, port) of errorkb as the README runs it, behind nginx or not."""
    folder = Path(tempfile.mkdtemp(prefix="errorkb-slow-"))
    try:
        with gunicorn_site(folder, https=behind_nginx) as app_port:
            if not behind_nginx:
                yield "http", app_port
                return
            with nginx_in_front(folder, app_port) as (_, https_port):
                yield "https", https_port
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def connect(scheme: str, port: int, timeout: float) -> socket.socket:
    """A connection to the site on loopback, over TLS (any certificate) for "https"."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    if scheme == "https":
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        sock = context.wrap_socket(sock, server_hostname="localhost")
    return sock


STALLS = {
    "half the headers": b"GET /api/errors/ HTTP/1.1\r\nHost: localhost\r\nUser-Agent: slo",
    "1 KB of a 2 MiB body": b"POST /api/lookup HTTP/1.1\r\nHost: localhost\r\n"
    b"Content-Type: application/json\r\nContent-Length: 2097152\r\n\r\n"
    + b'{"text": "'
    + b"a" * 1014,
}


def stall(scheme: str, port: int, kind: str) -> socket.socket:
    """A connection that sent the start of a request and then nothing more."""
    sock = connect(scheme, port, timeout=60)
    sock.sendall(STALLS[kind])
    return sock


def ordinary_request(scheme: str, port: int, path: str) -> tuple[int | None, float]:
    """(status or None when it waited past READ_TIMEOUT_S, seconds taken)."""
    started = time.perf_counter()
    try:
        with connect(scheme, port, timeout=READ_TIMEOUT_S) as sock:
            sock.sendall(
                f"GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n".encode()
            )
            answer = b""
            while chunk := sock.recv(65536):
                answer += chunk
        status = int(answer.split(b" ", 2)[1])
    except (TimeoutError, OSError, IndexError, ValueError):
        status = None
    return status, time.perf_counter() - started


def is_closed(sock: socket.socket, wait: float = 0.2) -> tuple[bool, bytes]:
    """Whether the server has closed the connection, and what it said before it did."""
    sock.settimeout(wait)
    said = b""
    try:
        while chunk := sock.recv(4096):
            said += chunk
        return True, said
    except (TimeoutError, ssl.SSLWantReadError, BlockingIOError):
        return False, said
    except OSError:
        return True, said


def closing_times(stalled: list[socket.socket], began: float, hold: float) -> list[dict]:
    """For each stalled connection, when the server closed it (seconds after the stalls
    began) and what it said, watching until all are closed or `hold` seconds have passed."""
    fates = {sock: {"closed_after": None, "said": b""} for sock in stalled}
    while (left := hold - (time.monotonic() - began)) > 0:
        held = [sock for sock in stalled if fates[sock]["closed_after"] is None]
        if not held:
            break
        readable, _, _ = select.select(held, [], [], left)
        for sock in readable:
            closed, said = is_closed(sock, wait=0.05)
            fates[sock]["said"] += said
            if closed:
                fates[sock]["closed_after"] = time.monotonic() - began
    return [fates[sock] for sock in stalled]


def probe(scheme: str, port: int, *, requests: int, hold: float) -> dict:
    """Four stalled connections, then `requests` ordinary ones; whether the stalls were
    still held once those were answered, and when, within `hold` seconds of the stalls'
    start, the server closed each."""
    # One request first: the site's first answer loads what every later one reuses, stall
    # or no stall (about half a second), and is not what this measures.
    ordinary_request(scheme, port, ENTRIES)
    kinds = [kind for kind in STALLS for _ in range(2)]
    began = time.monotonic()  # before the first connection: no server timeout starts earlier
    stalled = [stall(scheme, port, kind) for kind in kinds]
    time.sleep(0.5)  # the stalls reach the server and take what they take
    results = []
    for number in range(requests):
        path = ENTRIES if number % 2 == 0 else "/"
        results.append((path, *ordinary_request(scheme, port, path)))
    # Answers that came only because the stalls had already been dropped would prove nothing.
    held_throughout = [not is_closed(sock)[0] for sock in stalled]
    fates = closing_times(stalled, began, hold)
    watched = time.monotonic() - began
    for sock in stalled:
        sock.close()
    return {
        "watched": watched,
        "requests": results,
        "stalls": [
            {"kind": kind, "held_throughout": held, **fate}
            for kind, held, fate in zip(kinds, held_throughout, fates, strict=True)
        ],
    }


def print_probe(title: str, found: dict) -> None:
    print(f"== {title}: ordinary requests while 4 connections stall")
    for path, status, seconds in found["requests"]:
        print(f"   GET {path:<14} {status or 'no answer':>9}   {seconds * 1000:8.1f} ms")
    latencies = sorted(seconds for _, status, seconds in found["requests"])
    answered = sum(1 for _, status, _ in found["requests"] if status == 200)
    print(f"   answered 200: {answered} of {len(latencies)}; slowest {latencies[-1] * 1000:.1f} ms")
    for stalled in found["stalls"]:
        held = "held while they were answered" if stalled["held_throughout"] else "closed early"
        if stalled["closed_after"] is None:
            fate = f"still held after {found['watched']:.1f} s"
        else:
            said = stalled["said"].split(b"\r\n", 1)[0].decode(errors="replace")
            fate = f"closed after {stalled['closed_after']:.1f} s ({said or 'nothing said'})"
        print(f"   stalled, {stalled['kind']}: {held}; {fate}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=10)
    parser.add_argument("--hold", type=float, default=12.0, help="seconds the stalls are held")
    args = parser.parse_args()
    if shutil.which("nginx") is None:
        sys.exit("nginx is not installed (bin/setup --dev installs it)")
    for behind_nginx, title in ((True, "nginx in front of gunicorn"), (False, "gunicorn alone")):
        with production_site(behind_nginx=behind_nginx) as (scheme, port):
            print_probe(title, probe(scheme, port, requests=args.requests, hold=args.hold))


if __name__ == "__main__":
    main()
