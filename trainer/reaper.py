"""Owns one run's temporary directory, and removes it even if the runner is SIGKILLed.

The runner starts this tiny process (no torch) first; it creates the directory
and prints its path.  The runner then names the scenario process's group on
stdin.  When the runner says ``done``, or when stdin reaches EOF because the
runner died -- whatever killed it, SIGKILL included -- the reaper kills what is
left of the scenario's process group (only on EOF: after ``done`` the group id
may already belong to someone else) and removes the directory.

It runs in its own session, so a signal sent to the runner's group spares it.
"""

from __future__ import annotations

import os
import shutil
import signal
import sys
import tempfile
import time
from pathlib import Path

from trainer.faults.host import clear_immutable_tree

PREFIX = "trainer-run-"


def remove_tree(root: Path, *, grace_s: float = 10.0) -> None:
    """Remove ``root`` even if a scenario left immutable files in it.

    A scenario process the runner started but never named (the runner was
    killed in between) still runs there with ``root`` as its working directory:
    it is killed first, and the removal is retried while anything is left.
    """
    deadline = time.monotonic() + grace_s
    while True:
        for pid in processes_in(root):
            _kill(pid)
        shutil.rmtree(root, ignore_errors=True)
        if not root.exists():
            return
        clear_immutable_tree(root)
        shutil.rmtree(root, ignore_errors=True)
        if not root.exists() or time.monotonic() > deadline:
            return
        time.sleep(0.1)


def processes_in(root: Path) -> list[int]:
    """Pids of the processes whose working directory is ``root`` or below it."""
    found = []
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            cwd = Path(os.readlink(proc / "cwd"))
        except OSError:
            continue
        if cwd == root or root in cwd.parents:
            found.append(int(proc.name))
    return found


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def kill_group(pgid: int, *, grace_s: float = 5.0) -> None:
    """SIGKILL a process group and wait (briefly) until it is gone."""
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline:
        try:
            os.killpg(pgid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            return
        time.sleep(0.05)


def main() -> int:
    root = Path(tempfile.mkdtemp(prefix=PREFIX))
    try:
        print(root, flush=True)
    except BrokenPipeError:
        # The runner died before it read where its directory is: nothing ran there.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no flush at exit
        remove_tree(root)
        return 0
    pgid, done = None, False
    for line in sys.stdin:
        word, _, value = line.strip().partition(" ")
        if word == "pgid":
            pgid = int(value)
        elif word == "done":
            done = True
            break
    if not done and pgid is not None:
        kill_group(pgid)
    remove_tree(root)
    return 0


if __name__ == "__main__":
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the runner's to handle
    sys.exit(main())
