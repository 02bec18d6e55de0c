"""Benchmark: seconds per scenario from a fresh interpreter vs a warm fork server.

Run ``.venv/bin/python bench/reproduce.py [--repeat 3] [--workers 2]``.  Prints the median
seconds per scenario both ways, their ratio, and a full sweep of every
scenario's failure variant with warm starts on ``--workers`` parallel runs.
Numbers are printed, never asserted: they depend on the machine.
"""

from __future__ import annotations

import argparse
import statistics
import time
from concurrent.futures import ThreadPoolExecutor

from trainer.forkserver import ForkServer
from trainer.runner import run_scenario
from trainer.scenarios import SCENARIOS

SAMPLE = (
    "init-changed-architecture",
    "supervised-dev-full-model",
    "hand-built-dev-full-optimizer",
)


def median_seconds(names, repeat: int, starter: ForkServer | None) -> float:
    times = []
    for _ in range(repeat):
        for name in names:
            started = time.monotonic()
            outcome = run_scenario(name, starter=starter)
            times.append(time.monotonic() - started)
            assert outcome["status"] in ("reproduced", "unsupported"), outcome
    return statistics.median(times)


def sweep(starter: ForkServer, workers: int) -> tuple[float, dict[str, int]]:
    started = time.monotonic()
    with ThreadPoolExecutor(workers) as pool:
        outcomes = list(pool.map(lambda s: run_scenario(s.name, starter=starter), SCENARIOS))
    counts: dict[str, int] = {}
    for outcome in outcomes:
        counts[outcome["status"]] = counts.get(outcome["status"], 0) + 1
    return time.monotonic() - started, counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    fresh = median_seconds(SAMPLE, args.repeat, None)
    with ForkServer() as server:
        warm = median_seconds(SAMPLE, args.repeat, server)
        sweep_s, counts = sweep(server, args.workers)
    print(f"median per scenario, fresh interpreter: {fresh:.3f} s")
    print(f"median per scenario, warm fork server:  {warm:.3f} s")
    print(f"speed-up: {fresh / warm:.1f}x")
    sweep_line = f"full sweep, {len(SCENARIOS)} scenarios, {args.workers} workers, warm"
    print(f"{sweep_line}: {sweep_s:.1f} s {counts}")


if __name__ == "__main__":
    main()
