"""A response cache in front of Django for the public, read-mostly addresses.

Entry pages and records are read far more often than they change. This WSGI
layer answers a conditional GET with 304, and a repeated GET with the bytes
Django rendered last time, after one small query that tells whether anything
changed (caching.site_state()). A response
is reused only while those validators are unchanged, so it is never stale;
everything else (writes, the admin, query strings, a failed check) goes to
Django untouched.
"""

import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable

from django.conf import settings
from django.db import DatabaseError, connection
from django.utils.cache import parse_etags
from django.utils.http import parse_http_date_safe

from .caching import CACHE_CONTROL, site_state, validators
from .changes import ChangeListener, listener_for

# The addresses whose bytes depend only on the entries table (and the Host header).
CACHEABLE = re.compile(
    r"^/(?:errors/[0-9a-f]{16}/|api/errors/[0-9a-f]{16}/?|repos/[^/]+/[^/]+/(?:errors/[^/]+/)?)?$"
)


class ResponseCache:
    """WSGI middleware: serve 304s and unchanged responses without running Django."""

    def __init__(
        self,
        app: Callable,
        *,
        max_bytes: int | None = None,
        listener: ChangeListener | None = None,
    ):
        self.app = app
        self.max_bytes = settings.RESPONSE_CACHE_BYTES if max_bytes is None else max_bytes
        self.listener = listener
        self.stored: OrderedDict[tuple, tuple[str, str, list, bytes]] = OrderedDict()
        self.size = 0
        self.lock = threading.Lock()
        self.known: tuple[int, tuple[str, str | None]] | None = None  # (generation, validators)

    def __call__(self, environ: dict, start_response: Callable) -> Iterable[bytes]:
        if not self._cacheable(environ):
            return self.app(environ, start_response)
        try:
            etag, last_modified = self._validators()
        except DatabaseError:
            connection.close()  # let Django reconnect and report the problem its own way
            return self.app(environ, start_response)
        if _not_modified(environ, etag, last_modified):
            headers = [("ETag", etag), ("Cache-Control", CACHE_CONTROL)]
            if last_modified:
                headers.append(("Last-Modified", last_modified))
            start_response("304 Not Modified", headers)
            return []
        key = (environ["wsgi.url_scheme"], environ.get("HTTP_HOST", ""), environ["PATH_INFO"])
        hit = self._get(key, etag)
        if hit and "no-cache" not in environ.get("HTTP_CACHE_CONTROL", ""):
            status, headers, body = hit
            start_response(status, headers)
            return [body]
        return self._render_and_store(environ, start_response, key)

    @classmethod
    def from_settings(cls, app: Callable) -> "ResponseCache":
        """The cache as settings configure it, listening for changes where it can."""
        return cls(app, listener=listener_for(settings.DATABASES["default"]))

    def _validators(self) -> tuple[str, str | None]:
        # This runs outside Django's request cycle, so it keeps its thread's connection
        # open whatever CONN_MAX_AGE says; a broken one is closed in __call__.
        generation = self.listener.generation if self.listener else None
        known = self.known
        if generation is not None and known is not None and known[0] == generation:
            return known[1]
        # Read the generation before the table: a change after this query moves it on.
        current = validators(*site_state())
        if generation is not None:
            self.known = (generation, current)
        return current

    def _cacheable(self, environ: dict) -> bool:
        return (
            self.max_bytes > 0
            and environ["REQUEST_METHOD"] == "GET"
            and not environ.get("QUERY_STRING")
            and CACHEABLE.match(environ.get("PATH_INFO", "")) is not None
        )

    def _get(self, key: tuple, etag: str):
        with self.lock:
            found = self.stored.get(key)
            if found is None or found[0] != etag:
                return None
            self.stored.move_to_end(key)
            return found[1:]

    def _render_and_store(self, environ: dict, start_response: Callable, key: tuple):
        captured = {}

        def capture(status, headers, exc_info=None):
            captured.update(status=status, headers=headers)
            return start_response(status, headers, exc_info)

        result = self.app(environ, capture)
        try:
            body = b"".join(result)
        finally:
            if hasattr(result, "close"):
                result.close()
        self._store(key, captured["status"], captured["headers"], body)
        return [body]

    def _store(self, key: tuple, status: str, headers: list, body: bytes) -> None:
        names = {name.lower(): value for name, value in headers}
        # Only a plain public 200, identical for every reader, may be reused.
        if not status.startswith("200") or "set-cookie" in names or "etag" not in names:
            return
        if "cookie" in names.get("vary", "").lower() or len(body) > self.max_bytes // 4:
            return
        with self.lock:
            old = self.stored.pop(key, None)
            if old:
                self.size -= len(old[3])
            self.stored[key] = (names["etag"], status, headers, body)
            self.size += len(body)
            while self.size > self.max_bytes:
                _, evicted = self.stored.popitem(last=False)
                self.size -= len(evicted[3])


def _not_modified(environ: dict, etag: str, last_modified: str | None) -> bool:
    # The same rules as Django's condition decorator for a GET (RFC 9110, 13.2.2).
    if_none_match = environ.get("HTTP_IF_NONE_MATCH")
    if if_none_match:
        tags = parse_etags(if_none_match)
        return "*" in tags or any(tag.removeprefix("W/") == etag for tag in tags)
    since = parse_http_date_safe(environ.get("HTTP_IF_MODIFIED_SINCE", ""))
    current = parse_http_date_safe(last_modified or "")
    return since is not None and current is not None and current <= since
