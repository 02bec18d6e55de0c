"""Run one scenario in an isolated process and return its outcome as a dict.

Isolation, per run:

- a fresh interpreter (``python -m trainer.child``), never a fork of a process
  that has run torch operations (forking torch's thread pool can deadlock);
- its own process group, and ``PR_SET_PDEATHSIG`` so it dies with the runner;
- its own temporary directory, owned by a small reaper process
  (:mod:`trainer.reaper`) that removes it afterwards even when the scenario
  crashes or the runner itself is SIGKILLed;
- a wall-time limit (the group is SIGKILLed) and an address-space limit
  (``RLIMIT_AS``; not on CUDA, whose driver reserves huge address ranges);
- mount faults happen in the child's private mount namespace, which dies with it.

This module does not import torch; the knowledge base calls it directly.
"""

from __future__ import annotations

import json
import os
import platform
import selectors
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trainer import __version__, scenarios

if TYPE_CHECKING:
    from trainer.forkserver import ForkServer

VARIANTS = ("failure", "fixed")
STATUSES = ("reproduced", "not_reproduced", "fixed", "unsupported", "error")
DEFAULT_TIMEOUT_S = 120.0  # one run takes a few seconds; this only stops a hang
DEFAULT_MEMORY_BYTES = 4 << 30  # torch maps ~0.7 GiB at import; 4 GiB leaves room
LOG_TAIL_LINES = 40
_PACKAGE_PARENT = str(Path(__file__).resolve().parent.parent)


def expected_status(variant: str) -> str:
    """The status a run of ``variant`` must reach to prove its claim."""
    return "fixed" if variant == "fixed" else "reproduced"


def new_outcome(scenario: scenarios.Scenario, variant: str, device: str) -> dict[str, Any]:
    """An outcome with every key present; the scenario process fills in what it saw."""
    return {
        "scenario": scenario.name,
        "variant": variant,
        "status": "error",
        "texts": [],  # every text burn prints in the run, in order: panics and log lines
        "message": None,  # the first of them
        "errno": None,
        "exception_chain": [],
        "device": device,
        "torch_version": None,
        "python_version": platform.python_version(),
        "trainer_version": __version__,
        "epochs_run": 0,
        "duration_s": None,
        "log_tail": [],
        "reason": None,
        "release": scenario.release,
        "setup": scenario.setup,
        "proves": list(scenario.proves),
        "disproves": list(scenario.disproves),
        "expected": [e.pattern for e in scenario.expected],
        "expected_errno": scenario.expected_errno,
        "expected_status": expected_status(variant),
    }


def run_scenario(
    name: str,
    *,
    variant: str = "failure",
    device: str = "cpu",
    timeout_s: float = DEFAULT_TIMEOUT_S,
    memory_bytes: int | None = DEFAULT_MEMORY_BYTES,
    starter: ForkServer | None = None,
) -> dict[str, Any]:
    """Reproduce scenario ``name`` (or its fix) in a fresh, isolated process.

    With a ``starter`` (:class:`trainer.forkserver.ForkServer`) the process is
    forked from a server that has imported torch but run nothing, which saves
    the import on every run; otherwise it is a fresh interpreter.
    """
    scenario = scenarios.get(name)
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {VARIANTS}, not {variant!r}")
    started = time.monotonic()
    with isolated_directory() as (root, reaper):
        spec = {
            "scenario": name,
            "variant": variant,
            "device": device,
            "root": str(root),
            "parent_pid": os.getpid() if starter is None else None,
            "memory_bytes": None if device == "cuda" else memory_bytes,
        }
        if starter is None:
            stdout, stderr, failure = _run_child(spec, reaper, timeout_s)
        else:
            stdout, stderr, failure = _run_forked(spec, reaper, timeout_s, starter)
    outcome = _parse_outcome(stdout) or new_outcome(scenario, variant, device)
    if failure is not None:
        outcome.update(status="error", message=failure)
    outcome["duration_s"] = round(time.monotonic() - started, 3)
    outcome["log_tail"] = stderr.splitlines()[-LOG_TAIL_LINES:]
    return outcome


@contextmanager
def isolated_directory() -> Iterator[tuple[Path, subprocess.Popen]]:
    """A temp dir owned by a reaper process (see :mod:`trainer.reaper`)."""
    reaper = subprocess.Popen(
        [sys.executable, "-m", "trainer.reaper"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
        env=_child_env(),
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


def _child_env() -> dict[str, str]:
    env = dict(os.environ)
    # The scenario process starts in its temp dir; make sure it still finds us.
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [_PACKAGE_PARENT, env.get("PYTHONPATH")]))
    env["PYTHONUNBUFFERED"] = "1"
    env.setdefault("OMP_NUM_THREADS", "1")  # a tiny model; parallel runs share the cores
    return env


def _run_child(
    spec: dict[str, Any], reaper: subprocess.Popen, timeout_s: float
) -> tuple[str, str, str | None]:
    """Run the scenario process; returns stdout, stderr and a harness failure, if any."""
    child = subprocess.Popen(
        [sys.executable, "-m", "trainer.child", json.dumps(spec)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=spec["root"],
        start_new_session=True,
        env={**_child_env(), "TMPDIR": spec["root"]},  # torch's caches die with the run
    )
    reaper.stdin.write(f"pgid {child.pid}\n")
    reaper.stdin.flush()
    failure = None
    try:
        stdout, stderr = child.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        _kill_group(child.pid)
        stdout, stderr = child.communicate()
        failure = f"timed out after {timeout_s:g} s"
    finally:
        _kill_group(child.pid)  # grandchildren, and the child itself on any error here
    if failure is None and child.returncode != 0:
        failure = _describe_exit(child.returncode)
    return stdout, stderr, failure


def _run_forked(
    spec: dict[str, Any], reaper: subprocess.Popen, timeout_s: float, starter: ForkServer
) -> tuple[str, str, str | None]:
    """Like :func:`_run_child`, for a process forked by the warm fork server."""
    (out_r, out_w), (err_r, err_w) = os.pipe(), os.pipe()
    try:
        child = starter.launch(spec, out_w, err_w)
    finally:
        os.close(out_w)
        os.close(err_w)
    reaper.stdin.write(f"pgid {child.pid}\n")
    reaper.stdin.flush()
    try:
        stdout, stderr, finished = _drain(out_r, err_r, deadline=time.monotonic() + timeout_s)
    finally:
        _kill_group(child.pid)
    if not finished:
        return stdout, stderr, f"timed out after {timeout_s:g} s"
    returncode = child.wait(timeout=10)
    return stdout, stderr, None if returncode == 0 else _describe_exit(returncode)


def _drain(out_fd: int, err_fd: int, *, deadline: float) -> tuple[str, str, bool]:
    """Read two pipes to EOF (or the deadline); returns their text and whether both ended."""
    chunks: dict[int, list[bytes]] = {out_fd: [], err_fd: []}
    with selectors.DefaultSelector() as selector:
        for fd in chunks:
            selector.register(fd, selectors.EVENT_READ)
        while selector.get_map() and (left := deadline - time.monotonic()) > 0:
            for key, _ in selector.select(timeout=left):
                data = os.read(key.fd, 65536)
                if data:
                    chunks[key.fd].append(data)
                else:
                    selector.unregister(key.fd)
        finished = not selector.get_map()
    for fd in chunks:
        os.close(fd)
    out, err = (b"".join(chunks[fd]).decode(errors="replace") for fd in (out_fd, err_fd))
    return out, err, finished


def _kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _describe_exit(returncode: int) -> str:
    if returncode < 0:
        return f"scenario process killed by {signal.Signals(-returncode).name}"
    return f"scenario process exited with status {returncode}"


def _parse_outcome(stdout: str) -> dict[str, Any] | None:
    """The last stdout line is the outcome JSON; anything else means the child broke."""
    lines = stdout.strip().splitlines()
    if not lines:
        return None
    try:
        outcome = json.loads(lines[-1])
    except ValueError:
        return None
    return outcome if isinstance(outcome, dict) else None
