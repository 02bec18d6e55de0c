"""How a scenario process is started: fresh, or forked from a kept server; one module.

:func:`trainer.runner.run_scenario` is the single entry point: it makes the run's reaped
directory and limits, then starts the scenario process here, in one of two ways.

- **Fresh** (:func:`run_fresh`): ``python -m trainer.child`` in a new interpreter.
- **Warm** (:class:`ForkServer`): a server that imports torch once and forks each
  scenario process from it. A fresh interpreter spends most of a run importing torch.
  The server imports torch and the trainer but runs no tensor operation -- forking a
  process whose torch thread pools are running can deadlock -- and forks one process
  per request. Each request is one connection on a Unix socket carrying the run's spec
  and, as passed file descriptors, the pipes for its stdout and stderr, so the runner
  sees exactly what a fresh process would give it. Per request the server forks a
  *watcher*, which forks the scenario process in a new session (so the runner can kill
  its group), reports its pid, then waits: it reports the exit status, or kills the
  group if the runner hangs up. The server lives as long as its owner: at EOF on its
  stdin, a pipe only the owner writes (it exited, or was SIGKILLed), it removes its
  directory and exits. It runs as ``python -m trainer.launch ADDRESS``.

Why not the standard library's forkserver context: a run needs its stdout and stderr
pipes handed to the forked process, a new session per run, and a watcher that kills
the run's group when the runner hangs up; multiprocessing's server forks workers for
its own pickled calls and offers none of these.

The verification worker keeps one server per process (:class:`WarmStarts`,
:func:`starter`), started on first use (or earlier, by :func:`prestart`, when the
worker's pool process starts), reused for every run and started again if it died.
When no server can be had, the run starts fresh and a warning says so (and for a while
no new server is tried): a run is never lost to its start. Every isolation guarantee
stays the server's and the runner's: each run is forked from a server that imported
torch but ran nothing, in its own session, with its own reaped directory and limits.
"""

from __future__ import annotations

import json
import logging
import os
import select
import selectors
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

# -- what every scenario process shares; the fresh start -----------------------

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


# -- the fork server: the warm start ------------------------------------------

_STATUS = struct.Struct("<ii")  # (pid, 0) first, then (pid, wait status)
PREFIX = "trainer-forkserver-"


class ServerUnavailable(RuntimeError):
    """The fork server did not start, or is gone: no scenario process was started."""


class ForkServer:
    """Starts and owns the server process; ``launch`` starts one scenario process.

    With ``wait=False`` it returns at once, while the server imports torch;
    :meth:`wait_ready` (called by the first run) waits for it.
    """

    def __init__(self, *, wait: bool = True, start_timeout_s: float = 60.0):
        self._dir = tempfile.mkdtemp(prefix=PREFIX)
        self.address = str(Path(self._dir) / "socket")
        # The server's own temp files (torch's caches) live and die with its directory.
        self._server = subprocess.Popen(
            [sys.executable, "-m", "trainer.launch", self.address],
            stdin=subprocess.PIPE,  # its lifeline: EOF when this process is gone
            env={**child_env(), "TMPDIR": self._dir},  # the same environment as a fresh run
        )
        self._deadline = time.monotonic() + start_timeout_s
        if wait:
            self.wait_ready()

    @property
    def pid(self) -> int:
        return self._server.pid

    @property
    def alive(self) -> bool:
        return self._server.poll() is None

    def wait_ready(self) -> None:
        """Return once the server listens; ServerUnavailable if it died or is too slow."""
        while not os.path.exists(self.address):
            if not self.alive or time.monotonic() > self._deadline:
                self.close()
                raise ServerUnavailable("the fork server did not start")
            time.sleep(0.02)

    def run(
        self, spec: dict[str, Any], reaper: subprocess.Popen, timeout_s: float
    ) -> tuple[str, str, int | None]:
        """Run one scenario process; returns stdout, stderr and its return code (None: it
        ran past ``timeout_s``), as :func:`run_fresh` does."""
        spec = {**spec, "parent_pid": None}  # its parent is a watcher, not the runner
        deadline = time.monotonic() + timeout_s  # from the launch: the run starts there
        (out_r, out_w), (err_r, err_w) = os.pipe(), os.pipe()
        try:
            child = self.launch(spec, out_w, err_w)
        except BaseException:
            os.close(out_r)
            os.close(err_r)
            raise
        finally:
            os.close(out_w)
            os.close(err_w)
        reaper.stdin.write(f"pgid {child.pid}\n")
        reaper.stdin.flush()
        try:
            stdout, stderr, finished = _drain(out_r, err_r, deadline=deadline)
        finally:
            kill_group(child.pid)
        if not finished:
            child.close()
            return stdout, stderr, None
        return stdout, stderr, child.wait(timeout=10)

    def launch(self, spec: dict[str, Any], stdout_fd: int, stderr_fd: int) -> WarmProcess:
        """Fork one scenario process; ServerUnavailable if the server could not."""
        self.wait_ready()
        conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            conn.connect(self.address)
            socket.send_fds(conn, [json.dumps(spec).encode()], [stdout_fd, stderr_fd])
            pid, _ = _STATUS.unpack(_recv_exact(conn, _STATUS.size))
        except OSError as err:  # refused, reset or closed before a pid came back
            conn.close()
            raise ServerUnavailable(f"the fork server is gone: {err}") from err
        return WarmProcess(pid, conn)

    def close(self) -> None:
        if self.alive:
            self._server.terminate()
        self._server.wait()
        self._server.stdin.close()
        shutil.rmtree(self._dir, ignore_errors=True)

    def __enter__(self) -> ForkServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class WarmProcess:
    """The runner's handle on a forked scenario process (pid, wait)."""

    def __init__(self, pid: int, conn: socket.socket):
        self.pid = pid
        self._conn = conn
        self.returncode: int | None = None

    def wait(self, timeout: float | None = None) -> int:
        self._conn.settimeout(timeout)
        try:
            _, status = _STATUS.unpack(_recv_exact(self._conn, _STATUS.size))
        except TimeoutError:
            raise subprocess.TimeoutExpired("forked scenario", timeout) from None
        except ConnectionError:
            status = signal.SIGKILL  # the watcher died: treat as killed
        self._conn.close()
        self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def close(self) -> None:
        """Hang up: the watcher kills the process's group, if anything is left of it."""
        self._conn.close()


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


def _recv_exact(conn: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = conn.recv(size - len(data))
        if not chunk:
            raise ConnectionError("fork server connection closed")
        data += chunk
    return data


# -- the server side ----------------------------------------------------------


def serve(address: str) -> None:
    import torch  # noqa: F401  -- imported, never run: safe to fork
    import torch._dynamo  # noqa: F401  -- the optimizer's first step imports it: paid here, once

    import trainer.child  # noqa: F401
    import trainer.learner  # noqa: F401

    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        listener.bind(address)
        listener.listen(16)
        _accept_until_orphaned(listener)
    finally:  # the owner is gone, or sent SIGTERM: nothing of the server stays behind
        shutil.rmtree(Path(address).parent, ignore_errors=True)


def _accept_until_orphaned(listener: socket.socket) -> None:
    """Fork a watcher per connection until stdin (the owner's lifeline) reaches EOF."""
    with selectors.DefaultSelector() as selector:
        selector.register(listener, selectors.EVENT_READ)
        selector.register(0, selectors.EVENT_READ)
        while True:
            ready = {key.fd for key, _ in selector.select(timeout=1.0)}
            _reap_watchers()
            if 0 in ready and not os.read(0, 4096):
                return
            if listener.fileno() in ready:
                conn, _ = listener.accept()
                if os.fork() == 0:
                    listener.close()
                    _watch(conn)  # never returns
                conn.close()


def _reap_watchers() -> None:
    try:
        while os.waitpid(-1, os.WNOHANG)[0] > 0:
            pass
    except ChildProcessError:
        pass


def _watch(conn: socket.socket) -> None:
    """In the watcher: fork the scenario process, report its pid and its end."""
    try:
        message, fds, _, _ = socket.recv_fds(conn, 1 << 16, 2)
        spec = json.loads(message)
        started_r, started_w = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(started_r)
            _run_scenario_process(spec, fds, started_w)
        os.close(started_w)
        for fd in fds:
            os.close(fd)
        # Its pid goes back once it leads its own process group: a kill of that group
        # sent any earlier finds no group (ESRCH), and the process would run on, writing
        # into a run directory the reaper has removed.
        os.read(started_r, 1)  # a byte, or end of file if it died first
        os.close(started_r)
        conn.sendall(_STATUS.pack(pid, 0))
        conn.sendall(_STATUS.pack(pid, _wait_or_kill(pid, conn)))
    finally:
        os._exit(0)


def _wait_or_kill(pid: int, conn: socket.socket) -> int:
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return status
        if select.select([conn], [], [], 0.05)[0]:  # the runner hung up
            try:
                os.killpg(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            return os.waitpid(pid, 0)[1]


def _run_scenario_process(spec: dict[str, Any], fds: list[int], started: int) -> None:
    code = 1
    try:
        os.setsid()
        os.write(started, b".")  # its group exists now (_watch)
        os.close(started)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)  # as in a fresh interpreter
        signal.signal(signal.SIGINT, signal.default_int_handler)
        os.dup2(os.open(os.devnull, os.O_RDONLY), 0)  # not the server's lifeline
        os.dup2(fds[0], 1)
        os.dup2(fds[1], 2)
        for fd in fds:
            os.close(fd)
        os.chdir(spec["root"])
        os.environ["TMPDIR"] = spec["root"]
        tempfile.tempdir = None  # the server's import cached its own; torch's caches go here
        from trainer.child import run_spec

        code = run_spec(spec)
    except BaseException:
        import traceback

        traceback.print_exc()
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


# -- one kept server per process --------------------------------------------

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


if __name__ == "__main__":
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the owner's to handle
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # leave through serve's cleanup
    serve(sys.argv[1])
