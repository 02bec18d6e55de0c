"""Knowing when the knowledge base changed, without asking the database on every read.

On PostgreSQL a trigger (migration 0002) notifies a channel after every write
to the kb tables. ChangeListener holds one connection per server process that
LISTENs on it and moves `generation` on each notification. While the listener
is connected, a reader may reuse what it computed for the current generation;
when it is not (SQLite, a lost connection, not started yet), `generation` is
None and the reader must ask the database itself.
"""

import logging
import os
import threading

import psycopg

log = logging.getLogger(__name__)

CHANNEL = "errorkb_changed"
RECONNECT_SECONDS = 1.0
POLL_SECONDS = 1.0  # how soon a stopped listener notices


class ChangeListener:
    """A daemon thread that counts change notifications from PostgreSQL."""

    def __init__(self, conninfo: dict):
        self.conninfo = conninfo
        self._generation = 0
        self._listening = threading.Event()
        self._pid: int | None = None
        self._lock = threading.Lock()
        self._stopped = threading.Event()

    @property
    def generation(self) -> int | None:
        """A number that moves on every change, or None when changes cannot be seen."""
        self._ensure_started()
        return self._generation if self._listening.is_set() else None

    def wait_until_listening(self, timeout: float) -> bool:
        self._ensure_started()
        return self._listening.wait(timeout)

    def stop(self) -> None:
        """Close the connection within POLL_SECONDS; generation becomes None."""
        self._stopped.set()
        self._listening.clear()

    def _ensure_started(self) -> None:
        # A thread does not survive fork: start one in each server process that reads.
        if self._pid == os.getpid():
            return
        with self._lock:
            if self._pid != os.getpid():
                self._pid = os.getpid()
                self._listening = threading.Event()
                threading.Thread(target=self._run, name="kb-change-listener", daemon=True).start()

    def _run(self) -> None:
        while not self._stopped.is_set():
            try:
                self._listen()
            except psycopg.Error as exc:
                log.warning("change listener lost its connection: %s", exc)
            self._listening.clear()
            self._stopped.wait(RECONNECT_SECONDS)

    def _listen(self) -> None:
        with psycopg.connect(**self.conninfo, autocommit=True) as conn:
            conn.execute(f"LISTEN {CHANNEL}")
            # Anything may have changed while nobody listened: start a new generation.
            self._generation += 1
            self._listening.set()
            while not self._stopped.is_set():
                for _ in conn.notifies(timeout=POLL_SECONDS):
                    self._generation += 1


def listener_for(db: dict) -> ChangeListener | None:
    """A listener for a database of settings.DATABASES when it is PostgreSQL, else None."""
    if db["ENGINE"] != "django.db.backends.postgresql":
        return None
    conninfo = {
        "dbname": db["NAME"],
        "user": db.get("USER") or None,
        "password": db.get("PASSWORD") or None,
        "host": db.get("HOST") or None,
        "port": db.get("PORT") or None,
    }
    return ChangeListener({k: v for k, v in conninfo.items() if v is not None})
