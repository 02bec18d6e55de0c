"""What every scenario process shares, however it is started: environment, kill, exit.

Imported by :mod:`trainer.runner`, :mod:`trainer.forkserver` and
:mod:`trainer.warm`; it imports none of them.  :func:`run_fresh` is the fresh
start: ``python -m trainer.child`` in a new interpreter.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

_PACKAGE_PARENT = str(Path(__file__).resolve().parent.parent)


def child_env() -> dict[str, str]:
    """The environment of the trainer's helper and scenario processes."""
    env = dict(os.environ)
    # The scenario process starts in its temp dir; make sure it still finds us.
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [_PACKAGE_PARENT, env.get("PYTHONPATH")]))
    env["PYTHONUNBUFFERED"] = "1"
    env.setdefault("OMP_NUM_THREADS", "1")  # a tiny model; parallel runs share the cores
    return env


def kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def describe_exit(returncode: int) -> str:
    if returncode < 0:
        return f"scenario process killed by {signal.Signals(-returncode).name}"
    return f"scenario process exited with status {returncode}"


def timed_out(timeout_s: float) -> str:
    return f"timed out after {timeout_s:g} s"


def describe_signal(returncode: int) -> str | None:
    """The signal that ended a process, by name (``SIGXFSZ``), from its return code."""
    return signal.Signals(-returncode).name if returncode < 0 else None


def run_fresh(
    spec: dict[str, Any], reaper: subprocess.Popen, timeout_s: float
) -> tuple[str, str, int | None]:
    """Run the scenario process in a fresh interpreter; stdout, stderr and its return code
    (negative: the signal that ended it; None: it ran past ``timeout_s`` and was killed)."""
    child = subprocess.Popen(
        [sys.executable, "-m", "trainer.child", json.dumps(spec)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=spec["root"],
        start_new_session=True,
        env={**child_env(), "TMPDIR": spec["root"]},  # torch's caches die with the run
    )
    reaper.stdin.write(f"pgid {child.pid}\n")
    reaper.stdin.flush()
    try:
        stdout, stderr = child.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        kill_group(child.pid)
        stdout, stderr = child.communicate()
        return stdout, stderr, None
    finally:
        kill_group(child.pid)  # grandchildren, and the child itself on any error here
    return stdout, stderr, child.returncode
