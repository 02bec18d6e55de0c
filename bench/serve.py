"""Benchmark: errorkb under gunicorn on PostgreSQL, against nginx serving the same bytes.

    .venv/bin/python bench/serve.py [--entries 200] [--seconds 8] [--rounds 4] [--connections 32]

It creates (or empties) the database named by --database-url, imports N entries
built from the demo dataset, serves them with gunicorn (or --server granian), saves
every response body to disk for nginx, then loads both servers with wrk over the
same paths:

  first   a reader's first GET: no validators, nothing cached on the reader's side
          (errorkb may answer from its response cache, keyed on the ETag)
  304     a reader's repeated GET with the ETag it was given, answered 304
  cold    Cache-Control: no-cache, which makes errorkb render every response
          (Django, the ORM and the templates on every request)
  reads   the cold rendering with the rendering taken out (bench/reads_app.py): Django
          without middleware doing the cold view's own reads, then answering the saved
          bytes. No rendering that makes these reads can beat this row: where it is
          below a target, only fewer or cheaper reads could meet that target

Each row's seconds are split into rounds that alternate between the two servers, so
that both are measured in the same minutes: on these machines the same run a minute
later can be twice as fast. A row's rate is its requests over its seconds, summed over
its rounds; its p99 is the highest of its rounds'.

It prints requests per second and p99 latency for each, and each as a ratio to
nginx. Targets (issue 2): a first read at >= 1/40 of nginx, a repeated read at
>= 1/10; (issue 14) a cold rendering at >= 1/60. For reference, a plain DRF
detail view measured 1/80 on these machines. Nothing here is asserted: it is a
measurement, not a test.
"""

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import psycopg

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
PYTHON = sys.executable
DEMO = ROOT / "errorkb/kb/fixtures/demo.json"
TARGETS = {"first": 40, "304": 10, "cold": 60, "reads": None}

# Each line of the listing: a path, a tab, and the ETag that server gave for it.
WRK_SCRIPT = """
local paths, etags = {}, {}
for line in io.lines("%(paths)s") do
  local path, etag = line:match("([^\t]+)\t(.*)")
  paths[#paths + 1] = path
  etags[#etags + 1] = etag
end
local i = 0
request = function()
  i = i %% #paths + 1
  local etag = etags[i]
  return wrk.format("GET", paths[i], %(headers)s)
end
"""

NGINX_CONF = """
worker_processes %(workers)d;
pid %(dir)s/nginx.pid;
error_log %(dir)s/nginx-error.log;
events { worker_connections 1024; }
http {
  access_log off;
  sendfile on;
  keepalive_requests 100000;
  etag on;
  if_modified_since before;
  client_body_temp_path %(dir)s/tmp; proxy_temp_path %(dir)s/tmp; fastcgi_temp_path %(dir)s/tmp;
  uwsgi_temp_path %(dir)s/tmp; scgi_temp_path %(dir)s/tmp;
  server {
    listen 127.0.0.1:%(port)d;
    root %(root)s;
    location /api/ { default_type application/json; }
    location / { default_type text/html; index index.html; }
  }
}
"""


def main() -> None:
    args = parse_args()
    for tool in ("wrk", "nginx"):
        if not (shutil.which(tool) or Path(f"/usr/sbin/{tool}").exists()):
            sys.exit(f"bench: {tool} is not installed (bin/setup --dev installs it as root)")
    work = Path(tempfile.mkdtemp(prefix="errorkb-bench-"))
    work.chmod(0o755)  # nginx's workers drop root: they must read the mirrored bodies
    processes = []
    try:
        env = server_env(args.database_url)
        prepare_database(args.database_url, env, work, args.entries)
        ids = entry_ids(work)
        processes.append(start_server(args, env, args.django_port, "errorkb.wsgi:application"))
        paths = {"api": [f"/api/errors/{i}" for i in ids], "page": [f"/errors/{i}/" for i in ids]}
        root = mirror(paths, args.django_port, work / "www")
        processes.append(start_nginx(work, root, args.nginx_port, args.workers))
        reads_env = env | {"READS_BODIES": str(root), "PYTHONPATH": str(ROOT)}
        app, ready = "reads_app:application", paths["api"][0]
        processes.append(start_server(args, reads_env, args.reads_port, app, BENCH, ready))
        report(measure(args, paths, work))
    finally:
        for process in processes:
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=20)
        shutil.rmtree(work, ignore_errors=True)


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=200)
    parser.add_argument("--seconds", type=int, default=8, help="per row and server")
    parser.add_argument("--rounds", type=int, default=4, help="alternations per row")
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    # One, as the README's production command: with two, each query's wait ends behind
    # the other thread's hold on the interpreter (cold records: 461 against 837 rps).
    parser.add_argument("--threads", type=int, default=1, help="gunicorn threads per worker")
    # gunicorn, as the README's production command; granian for comparison.
    parser.add_argument("--server", choices=["gunicorn", "granian"], default="gunicorn")
    parser.add_argument(
        "--database-url", default="postgres://postgres@127.0.0.1:5432/errorkb_bench"
    )
    parser.add_argument("--django-port", type=int, default=18081)
    parser.add_argument("--nginx-port", type=int, default=18082)
    parser.add_argument("--reads-port", type=int, default=18083)
    return parser.parse_args()


def server_env(database_url: str) -> dict:
    return {
        **os.environ,
        "DATABASE_URL": database_url,
        "DEBUG": "false",
        "SECRET_KEY": "bench-only-secret",
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "LOG_LEVEL": "WARNING",
    }


def prepare_database(url: str, env: dict, work: Path, entries: int) -> None:
    name = url.rsplit("/", 1)[1]
    admin_url = url.rsplit("/", 1)[0] + "/postgres"
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    manage = [PYTHON, str(ROOT / "manage.py")]
    subprocess.run([*manage, "migrate", "-v0"], env=env, check=True, cwd=ROOT)
    dataset = work / "dataset.json"
    dataset.write_text(json.dumps(synthetic_dataset(entries)), encoding="utf-8")
    subprocess.run([*manage, "import_errors", str(dataset)], env=env, check=True, cwd=ROOT)
    # As autovacuum would have by the first reader (this machine's server runs without
    # it): the planner's statistics of the imported rows.
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("VACUUM ANALYZE")


def synthetic_dataset(count: int) -> dict:
    """N distinct entries shaped like the demo ones, related to their neighbours."""
    sys.path.insert(0, str(ROOT))
    from errorkb.kb.ids import derive_entry_id

    demo = json.loads(DEMO.read_text(encoding="utf-8"))["records"]
    records = []
    for n in range(count):
        record = dict(demo[n % len(demo)])
        record["errorMessage"] = f"{record['errorMessage']} (variant {n})"
        record["messagePattern"] = re.escape(record["errorMessage"])
        record["slug"] = f"{record['slug']}-{n}"
        record["id"] = derive_entry_id(record["repo"], record["errorMessage"], record["filePath"])
        records.append(record)
    for n, record in enumerate(records):
        record["related"] = [records[(n + k) % count]["id"] for k in (1, 2, 3) if count > 3]
    return {"datasetVersion": "2026-11-30T00:00:00.000Z", "records": records}


def entry_ids(work: Path) -> list[str]:
    return [r["id"] for r in json.loads((work / "dataset.json").read_text())["records"]]


def start_server(args, env: dict, port: int, app: str, cwd: Path = ROOT, ready: str = "/"):
    """The WSGI `app` (module:callable) under --server, --threads threads a worker."""
    if args.server == "gunicorn":
        command = [str(Path(PYTHON).parent / "gunicorn"), app, "--bind", f"127.0.0.1:{port}"]
        command += ["--worker-class", "gthread", "--threads", str(args.threads)]
        command += ["--keep-alive", "30"]
    else:
        command = [str(Path(PYTHON).parent / "granian"), "--interface", "wsgi", app]
        command += ["--host", "127.0.0.1", "--port", str(port)]
        command += ["--blocking-threads", str(args.threads)]
    command += ["--workers", str(args.workers), "--log-level", "warning"]
    process = subprocess.Popen(command, env=env, cwd=cwd)
    wait_for(f"http://127.0.0.1:{port}{ready}")
    return process


def start_nginx(work: Path, root: Path, port: int, workers: int) -> subprocess.Popen:
    (work / "tmp").mkdir()
    conf = work / "nginx.conf"
    params = {"dir": work, "root": root, "port": port, "workers": workers}
    conf.write_text(NGINX_CONF % params, encoding="utf-8")
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    process = subprocess.Popen([nginx, "-c", str(conf), "-g", "daemon off;"])
    wait_for(f"http://127.0.0.1:{port}/api/")
    return process


def wait_for(url: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(url, timeout=2)
            return
        except urllib.error.HTTPError:
            return  # it answers
        except OSError:
            time.sleep(0.2)
    sys.exit(f"bench: nothing answered at {url}")


def mirror(paths: dict, port: int, root: Path) -> Path:
    """Save errorkb's exact response bodies where nginx will find them."""
    for path in paths["api"] + paths["page"]:
        body = urllib.request.urlopen(f"http://127.0.0.1:{port}{path}").read()
        target = root / path.lstrip("/")
        if path.endswith("/"):
            target = target / "index.html"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(body)
    return root


def measure(args, paths: dict, work: Path) -> list[dict]:
    # Each kind: the headers wrk sends, and which server answers them against nginx.
    kinds = {
        "first": ("nil", args.django_port),
        "304": ('{["If-None-Match"] = etag}', args.django_port),
        "cold": ('{["Cache-Control"] = "no-cache"}', args.django_port),
        "reads": ("nil", args.reads_port),
    }
    rows = []
    for resource, resource_paths in paths.items():
        listings = {}
        for kind, (headers, port) in kinds.items():
            servers = (("errorkb", port), ("nginx", args.nginx_port))
            row = {"name": f"{resource} {kind}", "kind": kind}
            scripts = {}
            for server, server_port in servers:
                if server_port not in listings:
                    found = listing(work, resource, resource_paths, server, server_port)
                    listings[server_port] = found
                scripts[server] = work / f"{resource}-{kind}-{server}.lua"
                script = WRK_SCRIPT % {"paths": listings[server_port], "headers": headers}
                scripts[server].write_text(script)
            rounds = {server: [] for server, _ in servers}
            for _ in range(args.rounds):
                for server, server_port in servers:
                    rounds[server].append(wrk(scripts[server], server_port, args))
            rows.append(row | {server: combined(found) for server, found in rounds.items()})
    return rows


def combined(rounds: list[dict]) -> dict:
    seconds = sum(found["seconds"] for found in rounds)
    return {
        "rps": sum(found["requests"] for found in rounds) / seconds,
        "p99_ms": max(found["p99_ms"] for found in rounds),
        "bad": sum(found["bad"] for found in rounds),
    }


def listing(work: Path, resource: str, paths: list[str], server: str, port: int) -> Path:
    """The paths with the ETag this server gives each, for wrk."""
    lines = []
    for path in paths:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}") as response:
            lines.append(f"{path}\t{response.headers.get('ETag', '')}")
    target = work / f"{resource}-{server}-{port}.paths"
    target.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return target


def wrk(script: Path, port: int, args) -> dict:
    command = [
        "wrk",
        "--latency",
        "-t2",
        f"-c{args.connections}",
        f"-d{max(1, args.seconds // args.rounds)}s",
        "-s",
        str(script),
        f"http://127.0.0.1:{port}",
    ]
    out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    requests, duration = re.search(r"(\d+) requests in ([\d.]+\w+)", out).groups()
    p99 = to_ms(re.search(r"99%\s+([\d.]+\w+)", out).group(1))
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    return {
        "requests": int(requests),
        "seconds": to_ms(duration) / 1000,
        "p99_ms": p99,
        "bad": int(errors.group(1)) if errors else 0,
    }


def to_ms(text: str) -> float:
    number, unit = re.match(r"([\d.]+)(\w+)", text).groups()
    return float(number) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]


def report(rows: list[dict]) -> None:
    print(
        f"{'':13} {'errorkb rps':>12} {'nginx rps':>10} {'ratio':>8} {'target':>7}"
        f" {'p99 ms':>8} {'nginx p99':>9} {'p99 x':>6}"
    )
    for row in rows:
        mine, theirs = row["errorkb"], row["nginx"]
        ratio = theirs["rps"] / mine["rps"]
        target = TARGETS[row["kind"]]
        verdict = "-" if target is None else "ok" if ratio <= target else "MISS"
        slower = mine["p99_ms"] / theirs["p99_ms"]
        bad = f"  ({mine['bad']} bad responses)" if mine["bad"] else ""
        print(
            f"{row['name']:13} {mine['rps']:12.0f} {theirs['rps']:10.0f} {'1/%.1f' % ratio:>8}"
            f" {'1/%d' % target if target else '-':>7} {mine['p99_ms']:8.2f}"
            f" {theirs['p99_ms']:9.2f} {slower:6.1f}  {verdict}{bad}"
        )


if __name__ == "__main__":
    main()
