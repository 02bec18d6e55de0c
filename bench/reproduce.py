"""Benchmark: seconds per scenario run by the worker's code path, fresh vs warm.

Run ``.venv/bin/python bench/reproduce.py [--repeat 3] [--workers 2]``.  On the
demo set (SQLite in memory), each run goes through what a worker's task calls,
``errorkb.verification.runs.perform_run``: claim, run, record.  Prints the
median seconds per run with ``VERIFY_START=fresh`` (a new interpreter per run)
and ``warm`` (a fork of the process's fork server, started once per worker
process and timed on its own line), their ratio against the targets, and a
full sweep of every scenario's failure and fix, warm, on ``--workers`` parallel
runs.  Numbers are printed, never asserted: they depend on the machine.
"""

from __future__ import annotations

import argparse
import statistics
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from io import StringIO

import in_memory  # noqa: F401  (Django on SQLite in memory, set up before the rest)
from django.core.management import call_command
from django.test import override_settings

from errorkb.verification.models import Scenario
from errorkb.verification.runs import perform_run
from errorkb.verification.sync import sync_scenarios
from trainer import launch
from trainer.runner import run_scenario
from trainer.scenarios import SCENARIOS

SAMPLE = (
    "init-changed-architecture",
    "supervised-dev-full-model",
    "hand-built-dev-full-optimizer",
)
TARGET_WARM_S = 0.5
TARGET_RATIO = 8


def load_demo() -> None:
    call_command("migrate", verbosity=0)
    call_command(
        "import_errors", str(in_memory.ROOT / "errorkb/kb/fixtures/demo.json"), stdout=StringIO()
    )
    sync_scenarios()


def worker_run_times(start: str, names, repeat: int) -> list[float]:
    """Seconds of each run the worker's task performs, ``repeat`` times over ``names``."""
    times = []
    with override_settings(VERIFY_START=start):
        for _ in range(repeat):
            for name in names:
                entry = Scenario.objects.get(name=name).entries.first()
                started = time.monotonic()
                run = perform_run(
                    task_id=f"bench-{uuid.uuid4().hex}",
                    entry_id=entry.id,
                    scenario_name=name,
                    variant="failure",
                    device="cpu",
                )
                times.append(time.monotonic() - started)
                assert run.status in ("reproduced", "unsupported"), (run.status, run.reason)
    return times


def start_fork_server() -> float:
    """Seconds until this process's fork server listens (a worker pays it once, idle)."""
    started = time.monotonic()
    launch.prestart()
    launch.starter().server.wait_ready()
    return time.monotonic() - started


def worker_run_seconds(repeat: int = 3) -> tuple[float, float]:
    """Median seconds per run by the worker's code path: (fresh, warm). Needs the demo set."""
    fresh = statistics.median(worker_run_times("fresh", SAMPLE, repeat))
    start_fork_server()
    return fresh, statistics.median(worker_run_times("warm", SAMPLE, repeat))


def sweep(workers: int) -> tuple[float, dict[str, int]]:
    """Every scenario's failure and fix, warm, ``workers`` at a time."""
    jobs = [(s.name, variant) for s in SCENARIOS for variant in ("failure", "fixed")]
    started = time.monotonic()
    with ThreadPoolExecutor(workers) as pool:
        outcomes = list(
            pool.map(lambda job: run_scenario(job[0], variant=job[1], start="warm"), jobs)
        )
    counts: dict[str, int] = {}
    for outcome in outcomes:
        status = str(getattr(outcome["status"], "value", outcome["status"]))
        counts[status] = counts.get(status, 0) + 1
    return time.monotonic() - started, counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    load_demo()
    fresh = worker_run_times("fresh", SAMPLE, args.repeat)
    server_s = start_fork_server()
    warm_times = worker_run_times("warm", SAMPLE, args.repeat)
    fresh_s, warm_s = statistics.median(fresh), statistics.median(warm_times)
    ratio = fresh_s / warm_s
    runs = f"{len(fresh)} runs of {len(SAMPLE)} scenarios"
    print(f"worker's code path (perform_run), median of {runs} each way:")
    print(f"  fresh interpreter:  {fresh_s:.3f} s per run")
    ok = "ok" if warm_s <= TARGET_WARM_S else "MISSED"
    print(f"  warm fork server:   {warm_s:.3f} s per run (target <= {TARGET_WARM_S} s: {ok})")
    ok = "ok" if ratio >= TARGET_RATIO else "MISSED"
    print(f"  ratio fresh/warm:   {ratio:.1f}x (target >= {TARGET_RATIO}x: {ok})")
    print(f"  fork server start:  {server_s:.3f} s, once per worker process")
    sweep_s, counts = sweep(args.workers)
    sweep_line = f"full sweep, {len(SCENARIOS)} scenarios x failure and fix, {args.workers} at once"
    print(f"{sweep_line}, warm: {sweep_s:.1f} s {counts}")


if __name__ == "__main__":
    main()
