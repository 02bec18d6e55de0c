"""Benchmark: errorkb at 100,000 entries and 1,000,000 runs on PostgreSQL.

    .venv/bin/python bench/scale.py [--database-url postgres://postgres@127.0.0.1:5432/errorkb_scale]
        [--entries 100000] [--repos 200] [--runs 1000000] [--rounds 200]
        [--broker-url redis://127.0.0.1:6379/14] [--skip-import] [--skip-runs]
        [--skip-requests] [--skip-enqueue] [--skip-worker] [--skip-sweep] [--keep]

Small, while developing: --entries 5000 --runs 50000 --rounds 50. In order:

1. import: the database of --database-url is dropped, created and migrated (and kept
   after the run: --skip-import --skip-runs measure the later parts on it again).
   bench/import_scale.py's generated records (across --repos repositories) go through
   `manage.py import_errors`, each file in a fresh process, as three cumulative imports
   into the same knowledge base: the first 10%, the next 40%, the last 50% (10k, 50k,
   100k at full size). The time at each size is the sum of the imports so far; growth is
   each file's seconds per record over the first's (1.0 is linear; later files import
   against a larger database). Each time is the whole command, its start included (a
   second or two: small runs show mostly that); peak memory is each import process's
   high-water mark.
2. runs: the scenario registry mirrored (sync_scenarios), each entry linked to two
   scenarios, --runs runs written with COPY spread over the entries, their scenarios,
   both variants and mixed outcomes; then every entry's state stored (store_states).
3. requests, in this process through Django's test Client: no socket and no WSGI
   server, so the figures are the application's own time per request, as a reader's
   request would pay it behind one. A first read is a fresh entry each time (nothing
   cached for it), a repeated read the same request again with the ETag it was given
   (If-None-Match); the list pages and the admin's are asked with Cache-Control:
   no-cache, rendered each time. The admin entry list is read as a superuser, with its
   verification-state filter set to each state in turn.
4. enqueue: the nightly sweep's fan-out (tasks.enqueue of every entry to verify) to the
   broker of --broker-url (Redis db 14: not the tests' 15); its queues purged after.
5. worker, on the demo set: bench/reproduce.py's worker_run_seconds in a subprocess
   (perform_run fresh vs warm, SQLite in memory); then a full sweep: a second database
   (<name>_demo) with demo.json, a real `celery -A errorkb worker -c 2 -Q cpu` on the
   broker, and the wall time of `manage.py verify --all --wait`.

Targets, printed with ratios (<= 1 meets a time target): import 100,000
records <= 120 s, linear; entry page and API record p99 <= 50 ms first read, <= 10 ms
repeated; API list page <= 50 ms; admin list with state filter p99 <= 300 ms; enqueue a
sweep of every entry <= 30 s; a warm run <= 0.5 s and >= 8x faster than fresh; a full
sweep with two worker processes <= 20 s. Nothing here is asserted: it is a measurement.
"""

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import import_scale
import scale_worker

ROOT = import_scale.ROOT
MANAGE = [sys.executable, str(ROOT / "manage.py")]
IMPORT_SHARES = (0.1, 0.4, 0.5)  # of --entries, imported one after the other
SCENARIOS_PER_ENTRY = 2
TARGETS_MS = {
    "entry page, first read": 50,
    "entry page, repeated": 10,
    "API record, first read": 50,
    "API record, repeated": 10,
    "repository page": None,  # no target set
    "API list, page 1": 50,
    "API list, page 500": 50,
    "admin list, state filter": 300,
}
TARGET_ENQUEUE_S = 30.0


def main() -> None:
    args = parse_args()
    env = bench_env(args.database_url, args.broker_url)
    if not args.skip_import:
        for statement in recreate(args):
            import_scale.admin(import_scale.server_url(args.database_url), statement)
        subprocess.run([*MANAGE, "migrate", "-v0"], env=env, cwd=ROOT, check=True)
        report_imports(imports(args, env))
    os.environ.update(env)
    setup_django()
    if not args.skip_runs:
        add_runs(args.runs, random.Random(14))
    if not args.skip_requests:
        report_requests(measure_requests(args.rounds, random.Random(15)))
    if not args.skip_enqueue:
        measure_enqueue()
    if not args.skip_worker:
        scale_worker.report_worker(args, env, skip_sweep=args.skip_sweep)


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    url = "postgres://postgres@127.0.0.1:5432/errorkb_scale"
    parser.add_argument("--database-url", default=url)
    parser.add_argument("--broker-url", default="redis://127.0.0.1:6379/14")
    parser.add_argument("--entries", type=int, default=100_000)
    parser.add_argument("--repos", type=int, default=200)
    parser.add_argument("--runs", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=200, help="requests per figure")
    parser.add_argument("--repeat", type=int, default=3, help="runs per scenario, fresh and warm")
    for part in ("import", "runs", "requests", "enqueue", "worker", "sweep"):
        parser.add_argument(f"--skip-{part}", action="store_true")
    return parser.parse_args()


def bench_env(database_url: str, broker_url: str) -> dict:
    return {
        **os.environ,
        "DATABASE_URL": database_url,
        "CELERY_BROKER_URL": broker_url,
        "DEBUG": "false",  # no query log
        "SECRET_KEY": "bench-only",
        "ALLOWED_HOSTS": "testserver,127.0.0.1,localhost",
        "LOG_LEVEL": "WARNING",
        "DJANGO_SETTINGS_MODULE": "errorkb.settings",
    }


def recreate(args) -> tuple[str, str]:
    name = args.database_url.rsplit("/", 1)[1]
    return f"DROP DATABASE IF EXISTS {name}", f"CREATE DATABASE {name}"


def setup_django() -> None:
    sys.path.insert(0, str(ROOT))
    # The bench collects no static files: the middleware's note about it is noise here.
    warnings.filterwarnings("ignore", message="No directory at")
    import django

    django.setup()


# 1. imports


def imports(args, env: dict) -> list[tuple[int, float, float]]:
    """(records so far, seconds of this file, peak MB of its process) for each file."""
    records = import_scale.generate_records(args.entries, args.repos, random.Random(args.entries))
    found, start = [], 0
    with tempfile.TemporaryDirectory() as folder:
        for share in IMPORT_SHARES:
            end = (
                start + round(share * args.entries) if share != IMPORT_SHARES[-1] else len(records)
            )
            path = Path(folder) / f"records-{start}-{end}.json"
            import_scale.write_dataset(path, records[start:end])
            seconds, peak_mb, said = import_file(path, env)
            found.append((end, seconds, peak_mb))
            print(
                f"import of records {start}-{end}: {seconds:.1f} s, {peak_mb:.0f} MB peak: {said}"
            )
            start = end
    return found


def import_file(path: Path, env: dict) -> tuple[float, float, str]:
    """Seconds and peak memory (MB) of `manage.py import_errors path` in a process of its own."""
    started = time.perf_counter()
    command = [*MANAGE, "import_errors", str(path)]
    process = subprocess.Popen(command, env=env, cwd=ROOT, stdout=subprocess.PIPE)
    peak_kb = 0
    # The child's own high-water mark, read while it runs: its rusage would count the
    # memory of this process (records and all), which it was forked from.
    while process.poll() is None:
        peak_kb = max(peak_kb, high_water_kb(process.pid))
        time.sleep(0.1)
    if process.returncode:
        sys.exit(f"import_errors {path} failed ({process.returncode})")
    return time.perf_counter() - started, peak_kb / 1024, process.stdout.read().decode().strip()


def high_water_kb(pid: int) -> int:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:  # gone meanwhile
        return 0
    line = next((line for line in status.splitlines() if line.startswith("VmHWM:")), "0 0")
    return int(line.split()[1])


def report_imports(found: list[tuple[int, float, float]]) -> None:
    print("\nimport (cumulative): records, seconds so far, growth (s/record over the first file's)")
    total, before, base = 0.0, 0, found[0][1] / found[0][0]
    for count, seconds, _peak in found:
        total += seconds
        growth = (seconds / (count - before)) / base
        print(f"  {count:>8} records: {total:>7.1f} s   growth {growth:.2f}")
        before = count
    target = import_scale.TARGET_SECONDS * found[-1][0] / import_scale.TARGET_RECORDS
    print(f"  target: {found[-1][0]} records in <= {target:.0f} s: ratio {total / target:.2f}")


# 2. runs


def add_runs(count: int, rng: random.Random) -> None:
    from django.db import connection, transaction

    from errorkb.kb.models import ErrorEntry
    from errorkb.verification.models import Scenario, VerificationRun
    from errorkb.verification.sync import sync_scenarios

    started = time.perf_counter()
    sync_scenarios()
    names = list(Scenario.objects.active().values_list("name", flat=True))
    ids = list(ErrorEntry.objects.order_by("pk").values_list("pk", flat=True))
    links = {entry_id: rng.sample(names, SCENARIOS_PER_ENTRY) for entry_id in ids}
    with transaction.atomic(), connection.cursor() as cursor:
        link_table = Scenario.entries.through._meta.db_table
        with cursor.cursor.copy(
            f"COPY {link_table} (scenario_id, errorentry_id) FROM STDIN"
        ) as copy:
            for entry_id, linked in links.items():
                for name in linked:
                    copy.write_row((name, entry_id))
        columns = ", ".join(RUN_COLUMNS)
        statement = f"COPY {VerificationRun._meta.db_table} ({columns}) FROM STDIN"
        with cursor.cursor.copy(statement) as copy:
            for n in range(count):
                entry_id = ids[n % len(ids)]
                copy.write_row(run_row(n, entry_id, links[entry_id][n // len(ids) % 2], rng))
        cursor.execute("ANALYZE")
    written = time.perf_counter() - started
    over = f"{len(ids)} entries and {len(names)} scenarios"
    print(f"\nruns: {count} runs over {over} in {written:.1f} s")
    started = time.perf_counter()
    store_every_state(ids)
    print(f"  every entry's state stored (store_states) in {time.perf_counter() - started:.1f} s")
    with connection.cursor() as cursor:
        # Some servers here run no autovacuum: without a vacuum after the bulk writes no
        # index-only scan is possible (the API list's count), which production would have.
        cursor.execute("VACUUM ANALYZE")


def store_every_state(ids: list[str], threads: int = 2) -> None:
    """store_states over every entry, a share of them per thread (each its own connection)."""
    from django.db import connections

    from errorkb.verification.state.stored import store_states

    def store(share: list[str]) -> None:
        try:
            store_states(share)
        finally:
            connections.close_all()

    size = -(-len(ids) // threads)
    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(store, [ids[start : start + size] for start in range(0, len(ids), size)]))


RUN_COLUMNS = (
    "task_id", "entry_id", "scenario_id", "variant", "device", "status", "message", "texts",
    "reason", "trainer_version", "torch_version", "python_version", "host", "attempts",
    "started_at", "finished_at", "duration_s", "log_tail", "updated_at", "signal", "inputs",
)  # fmt: skip
# Outcomes of a failure run, and of a fix, with their weights: mostly good, some not.
FAILURE_OUTCOMES = (["reproduced", "not_reproduced", "unsupported", "error"], [90, 5, 3, 2])
FIX_OUTCOMES = (["fixed", "not_reproduced", "error"], [94, 4, 2])


def run_row(n: int, entry_id: str, scenario: str, rng: random.Random) -> tuple:
    from datetime import UTC, datetime, timedelta

    variant = "failure" if n // 2 % 2 == 0 else "fixed"
    outcomes, weights = FAILURE_OUTCOMES if variant == "failure" else FIX_OUTCOMES
    status = rng.choices(outcomes, weights)[0]
    started = datetime(2026, 10, 1, tzinfo=UTC) + timedelta(seconds=n * 5)
    message = "Can save model checkpoint." if status == "reproduced" else None
    texts = json.dumps([message] if message else [])
    return (f"bench-{n}", entry_id, scenario, variant, "cpu", status, message, texts, "",
            "0.1.0", "2.5.1", "3.11.7", "bench", 1, started, started + timedelta(seconds=1),
            1.0, "", started, "", "{}")  # fmt: skip


# 3. requests


def measure_requests(rounds: int, rng: random.Random) -> dict[str, list[float]]:
    from django.contrib.auth import get_user_model
    from django.test import Client

    from errorkb import wsgi  # noqa: F401  (started as a server starts it: gc.freeze() too)
    from errorkb.kb.models import ErrorEntry, Repository
    from errorkb.verification.models import State

    client = Client()
    ids = list(ErrorEntry.objects.published().values_list("pk", flat=True))
    sample = rng.sample(ids, min(len(ids) - 1, 2 * rounds))
    fresh = iter(sample)
    times = {what: [] for what in TARGETS_MS}
    # Once before measuring, on an entry outside the sample: templates compiled, URLs
    # resolved, connections open, as in a server that has answered anything at all.
    warm = next(i for i in ids if i not in sample)
    for url in (f"/errors/{warm}/", f"/api/errors/{warm}", "/api/errors/?page=2"):
        client.get(url)
    for _ in range(rounds):
        first_and_again(client, f"/errors/{next(fresh)}/", times, "entry page")
        first_and_again(client, f"/api/errors/{next(fresh)}", times, "API record")
    for repo in rng.sample(list(Repository.objects.all()), min(rounds, Repository.objects.count())):
        times["repository page"].append(timed(client, f"/repos/{repo.owner}/{repo.name}/"))
    last = min(500, -(-len(ids) // 50))
    for _ in range(rounds):
        times["API list, page 1"].append(
            timed(client, "/api/errors/?page=1", HTTP_CACHE_CONTROL="no-cache")
        )
        times["API list, page 500"].append(
            timed(client, f"/api/errors/?page={last}", HTTP_CACHE_CONTROL="no-cache")
        )
    print(f"\n(API list: page 500 is page {last}, the last there is)" if last < 500 else "")
    # One bench user, whichever run made it: --skip-import runs again on the same database.
    user, _ = get_user_model().objects.get_or_create(
        username="bench-admin", defaults={"is_staff": True, "is_superuser": True}
    )
    client.force_login(user)
    by_state = {state: [] for state in State.values}
    for n in range(rounds):
        state = State.values[n % len(State.values)]
        url = f"/admin/kb/errorentry/?verification={state}"
        by_state[state].append(timed(client, url, HTTP_CACHE_CONTROL="no-cache"))
        times["admin list, state filter"].append(by_state[state][-1])
    medians = ", ".join(f"{s} {statistics.median(v):.0f}" for s, v in by_state.items() if v)
    print(f"admin list by state, median ms: {medians}")
    return times


def first_and_again(client, url: str, times: dict, what: str) -> None:
    started = time.perf_counter()
    response = client.get(url)
    times[f"{what}, first read"].append(elapsed_ms(started, response, 200))
    etag = response.headers.get("ETag", "")
    times[f"{what}, repeated"].append(timed(client, url, 304, HTTP_IF_NONE_MATCH=etag))


def timed(client, url: str, expected: int = 200, **headers) -> float:
    started = time.perf_counter()
    return elapsed_ms(started, client.get(url, **headers), expected)


def elapsed_ms(started: float, response, expected: int) -> float:
    took = (time.perf_counter() - started) * 1000
    if response.status_code != expected:
        sys.exit(f"{response.request['PATH_INFO']}: {response.status_code}, not {expected}")
    return took


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def report_requests(times: dict[str, list[float]]) -> None:
    print(f"\n{'requests (test Client, in process)':<36} {'n':>5} {'p50 ms':>8} {'p99 ms':>8} "
          f"{'target':>7} {'ratio':>6}")  # fmt: skip
    for what, values in times.items():
        p50, p99 = statistics.median(values), percentile(values, 0.99)
        target = TARGETS_MS[what]
        ratio = f"{p99 / target:>6.2f}" if target else f"{'-':>6}"
        shown = f"{target:>4} ms" if target else f"{'-':>7}"
        print(f"{what:<36} {len(values):>5} {p50:>8.1f} {p99:>8.1f} {shown} {ratio}")


# 4. enqueue


def measure_enqueue() -> None:
    from errorkb.celery import app
    from errorkb.verification.routing import CPU_QUEUE, GPU_QUEUE
    from errorkb.verification.tasks import enqueue, entries_to_verify

    started = time.perf_counter()
    try:
        fanout = enqueue(entries_to_verify(), source="bench")
        seconds = time.perf_counter() - started
    finally:
        with app.connection_for_write() as connection:
            for queue in (CPU_QUEUE, GPU_QUEUE):
                connection.default_channel.queue_purge(queue)
    print(
        f"\nenqueue a sweep of every entry: {len(fanout.runs)} runs for {fanout.entries} "
        f"entries in {seconds:.1f} s (target <= {TARGET_ENQUEUE_S:.0f} s: "
        f"ratio {seconds / TARGET_ENQUEUE_S:.2f}); queues purged"
    )


if __name__ == "__main__":
    main()
