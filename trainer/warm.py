"""Warm starts for a long-lived process: one fork server, started once, kept alive.

The verification worker runs scenario after scenario.  :func:`starter` gives
it this process's :class:`WarmStarts`: a :class:`trainer.forkserver.ForkServer`
started on first use (or earlier, by :func:`prestart`, when the worker's pool
process starts), reused for every run and started again if it died.  When no
server can be had, the run starts in a fresh interpreter and a warning says so
(and for a while no new server is tried): a run is never lost to its start.

Every isolation guarantee stays the fork server's and the runner's: each run
is forked from a server that imported torch but ran nothing, in its own
session, with its own reaped directory and its limits.
"""

from __future__ import annotations

import logging
import os
import subprocess
import threading
import time
from typing import Any

from trainer.forkserver import ForkServer, ServerUnavailable
from trainer.processes import run_fresh

log = logging.getLogger(__name__)
RETRY_AFTER_S = 300.0  # after a server failed to start, runs start fresh this long


class WarmStarts:
    """A :class:`trainer.runner.Starter` that forks from a kept server, else starts fresh."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._server: ForkServer | None = None
        self._owner = os.getpid()
        self._retry_at = 0.0  # no new server before this (time.monotonic)
        self.runs = 0  # runs forked from a server
        self.fallbacks = 0  # runs started fresh because no server could be had

    @property
    def server(self) -> ForkServer | None:
        """The server now kept, if any (it may be starting, or have died)."""
        return self._server

    def prestart(self) -> None:
        """Start the server without waiting for it: it imports torch while the worker idles."""
        with self._lock:
            if self._server is None or not self._server.alive:
                self._server = ForkServer(wait=False)

    def run(
        self, spec: dict[str, Any], reaper: subprocess.Popen, timeout_s: float
    ) -> tuple[str, str, int | None]:
        for _ in range(2):  # a server found gone at launch is started again, once
            server = self._live_server()
            if server is None:
                break
            try:
                result = server.run(spec, reaper, timeout_s)
            except ServerUnavailable as err:  # nothing was started: safe to try again
                log.warning("warm start failed: %s", err)
                self._discard(server)
                continue
            self.runs += 1
            return result
        self.fallbacks += 1
        log.warning("no fork server: this scenario run starts in a fresh interpreter")
        return run_fresh(spec, reaper, timeout_s)

    def close(self) -> None:
        with self._lock:
            if self._server is not None:
                self._server.close()
            self._server = None

    def _live_server(self) -> ForkServer | None:
        with self._lock:
            if self._server is not None and not self._server.alive:
                log.warning("the fork server (pid %d) died; starting another", self._server.pid)
                self._server.close()
                self._server = None
            if self._server is None and time.monotonic() < self._retry_at:
                return None  # it failed to start a moment ago: don't pay that on every run
            try:
                if self._server is None:
                    self._server = ForkServer(wait=False)
                self._server.wait_ready()
            except (ServerUnavailable, OSError) as err:
                log.warning("the fork server could not start: %s", err)
                self._server, self._retry_at = None, time.monotonic() + RETRY_AFTER_S
            return self._server

    def _discard(self, server: ForkServer) -> None:
        with self._lock:
            if self._server is server:
                server.close()
                self._server = None


_shared: WarmStarts | None = None
_shared_lock = threading.Lock()


def starter() -> WarmStarts:
    """This process's warm starts (a forked child gets its own, never its parent's)."""
    global _shared
    with _shared_lock:
        if _shared is None or _shared._owner != os.getpid():
            _shared = WarmStarts()
        return _shared


def prestart() -> None:
    """Start this process's fork server now (the worker calls it as its pool process starts)."""
    try:
        starter().prestart()
    except OSError as err:
        log.warning("the fork server could not start: %s", err)
