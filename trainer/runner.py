"""Run one scenario in an isolated process and return its outcome (JSON form).

Isolation, per run:

- a fresh interpreter (``python -m trainer.child``), or a fork of a server that
  imported torch but never ran a torch operation (:mod:`trainer.launch`;
  ``start="warm"``); never a fork of a process that has run torch operations
  (forking torch's thread pool can deadlock);
- its own process group, and ``PR_SET_PDEATHSIG`` so it dies with the runner;
- its own temporary directory, owned by a small reaper process
  (:mod:`trainer.reaper`) that removes it afterwards even when the scenario
  crashes or the runner itself is SIGKILLed;
- a wall-time limit (the group is SIGKILLed) and an address-space limit
  (``RLIMIT_AS``; not on CUDA, whose driver reserves huge address ranges);
- mount faults happen in the child's private mount namespace, which dies with it.

A run that a signal ends (the kernel's SIGXFSZ past ``ulimit -f``, as it ends a
Rust program; SIGABRT, as Rust aborts after a panic in a destructor during cleanup)
prints no outcome: the runner builds it from the texts the process announced before
it died, and records the signal.

This module does not import torch; the knowledge base calls it directly.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Protocol

from trainer import scenarios
from trainer.launch import child_env, describe_exit, describe_signal, run_fresh, timed_out
from trainer.outcome import Outcome, OutcomeError, Status, Variant

DEFAULT_TIMEOUT_S = 120.0  # one run takes a few seconds; this only stops a hang
DEFAULT_MEMORY_BYTES = 4 << 30  # torch maps ~0.7 GiB at import; 4 GiB leaves room
LOG_TAIL_LINES = 40
STARTS = ("fresh", "warm")  # a new interpreter per run, or a fork of a kept server


class Starter(Protocol):
    """Starts the scenario process for a spec; returns stdout, stderr and its return code
    (negative: the signal that ended it; None: it ran past the time limit)."""

    def run(
        self, spec: dict[str, Any], reaper: subprocess.Popen, timeout_s: float
    ) -> tuple[str, str, int | None]: ...


def run_scenario(
    name: str,
    *,
    variant: str = Variant.FAILURE,
    device: str = "cpu",
    timeout_s: float = DEFAULT_TIMEOUT_S,
    memory_bytes: int | None = DEFAULT_MEMORY_BYTES,
    start: str = "fresh",
    starter: Starter | None = None,
) -> dict[str, Any]:
    """Reproduce scenario ``name`` (or its fix) in a new, isolated process.

    Returns :class:`trainer.outcome.Outcome` in its JSON form, as the CLI prints it.
    ``start="warm"`` forks the process from this process's kept fork server
    (:func:`trainer.launch.starter`), which has imported torch but run nothing and
    so saves the import on every run; ``"fresh"`` starts a new interpreter.  A
    ``starter`` (a :class:`trainer.launch.ForkServer` of the caller's) wins.
    """
    scenario = scenarios.get(name)
    if variant not in tuple(Variant):
        raise ValueError(f"variant must be one of {tuple(Variant)}, not {variant!r}")
    if start not in STARTS:
        raise ValueError(f"start must be one of {STARTS}, not {start!r}")
    if starter is None and start == "warm":
        from trainer import launch

        starter = launch.starter()
    started = time.monotonic()
    with isolated_directory() as (root, reaper):
        spec = {
            "scenario": name,
            "variant": variant,
            "device": device,
            "root": str(root),
            "parent_pid": os.getpid(),
            "memory_bytes": None if device == "cuda" else memory_bytes,
        }
        launch = run_fresh if starter is None else starter.run
        stdout, stderr, returncode = launch(spec, reaper, timeout_s)
    outcome = _parse_outcome(stdout)
    if outcome is None and returncode is not None and returncode < 0:
        outcome = ended_by_signal(scenario, variant, device, stdout, describe_signal(returncode))
    if outcome is None:
        outcome = Outcome.start(scenario, variant, device)
    if returncode is None:
        outcome.status, outcome.message = Status.ERROR, timed_out(timeout_s)
    elif returncode != 0 and outcome.signal is None:
        outcome.status, outcome.message = Status.ERROR, describe_exit(returncode)
    outcome.duration_s = round(time.monotonic() - started, 3)
    outcome.log_tail = stderr.splitlines()[-LOG_TAIL_LINES:]
    return outcome.to_dict()


@contextmanager
def isolated_directory() -> Iterator[tuple[Path, subprocess.Popen]]:
    """A temp dir owned by a reaper process (see :mod:`trainer.reaper`)."""
    reaper = subprocess.Popen(
        [sys.executable, "-m", "trainer.reaper"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
        env=child_env(),
    )
    try:
        root = Path(reaper.stdout.readline().strip())
        yield root, reaper
    finally:
        try:
            reaper.stdin.write("done\n")
            reaper.stdin.close()
        except BrokenPipeError:
            pass
        reaper.wait()


def ended_by_signal(
    scenario: scenarios.Scenario, variant: str, device: str, stdout: str, name: str
) -> Outcome | None:
    """The outcome of a run that signal ``name`` ended, when the scenario expects that signal:
    the texts announced before it, then what a shell reports (``File size limit exceeded``,
    ``Aborted``)."""
    if name != scenario.expected_signal:
        return None  # a crash or a kill: the harness failed
    outcome = Outcome.start(scenario, variant, device)
    for line in stdout.splitlines():
        if line.startswith('{"printed": '):
            outcome.record(**json.loads(line)["printed"])
    outcome.signal = name
    outcome.console.append(signal.strsignal(signal.Signals[name]))
    if outcome.variant == Variant.FIXED:
        outcome.status, outcome.reason = (
            Status.NOT_REPRODUCED,
            f"the fixed run was killed by {name}",
        )
    elif scenario.matches(outcome.texts, outcome.errno, outcome.signal):
        outcome.status = Status.REPRODUCED
    else:
        outcome.status = Status.NOT_REPRODUCED
        outcome.reason = "the texts printed differ from the scenario's expected texts"
    return outcome


def _parse_outcome(stdout: str) -> Outcome | None:
    """The last stdout line is the outcome JSON; anything else means the child broke."""
    lines = stdout.strip().splitlines()
    if not lines:
        return None
    try:
        return Outcome.from_json(lines[-1])
    except OutcomeError:
        return None
