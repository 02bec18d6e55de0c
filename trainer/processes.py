"""What every scenario process shares, however it is started: environment, kill, exit.

Imported by :mod:`trainer.runner` (fresh starts) and :mod:`trainer.forkserver`
(warm starts); it imports neither.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

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
