"""Conditional GET for pages and API responses built from entries.

A page shows more than its own entry (related entries, the repository's list,
the entry's verification runs), so validators are derived from the state of
every table a public page reads (settings.KB_PAGE_SOURCES): the number of rows
and the latest update of each. Any change anywhere yields a new ETag and a
later Last-Modified, so nothing is ever served stale, and the check is one
statement of indexed aggregates, made before any rendering.
"""

import hashlib
from datetime import UTC, datetime
from functools import cache

from django.apps import apps
from django.conf import settings
from django.db import connection
from django.utils.cache import quote_etag
from django.utils.http import http_date
from django.views.decorators.cache import cache_control
from django.views.decorators.http import condition

from errorkb import __version__

CACHE_CONTROL = "public, max-age=0, must-revalidate"


@cache
def _state_query() -> str:
    parts = []
    for label, column in settings.KB_PAGE_SOURCES:
        table = apps.get_model(label)._meta.db_table
        parts.append(f"SELECT COUNT(*), MAX({column}) FROM {table}")
    return " UNION ALL ".join(parts)


def site_state() -> tuple[str, datetime | None]:
    """A fingerprint of every table public pages read, and the latest change among them."""
    with connection.cursor() as cursor:
        cursor.execute(_state_query())
        rows = cursor.fetchall()
    stamps = [_timestamp(latest) for _, latest in rows]
    fingerprint = "|".join(
        f"{count}@{stamp.isoformat() if stamp else '-'}"
        for (count, _), stamp in zip(rows, stamps, strict=True)
    )
    return fingerprint, max(filter(None, stamps), default=None)


def _timestamp(value) -> datetime | None:
    if isinstance(value, str):  # SQLite hands back text for a bare aggregate
        return datetime.fromisoformat(value).replace(tzinfo=UTC)
    return value


def validators(fingerprint: str, latest: datetime | None) -> tuple[str, str | None]:
    """The (quoted ETag, HTTP date) that every page and API response carries."""
    # The release is part of the key: a new template or serializer changes the bytes too.
    key = f"{__version__}|{fingerprint}"
    etag = quote_etag(hashlib.blake2b(key.encode(), digest_size=12).hexdigest())
    return etag, http_date(latest.timestamp()) if latest else None


def _request_state(request) -> tuple[str, datetime | None]:
    # ETag and Last-Modified are computed separately by Django; ask the database once.
    if not hasattr(request, "_kb_state"):
        request._kb_state = site_state()
    return request._kb_state


def kb_etag(request, *args, **kwargs) -> str:
    return validators(*_request_state(request))[0]


def kb_last_modified(request, *args, **kwargs) -> datetime | None:
    return _request_state(request)[1]


def conditional(view):
    """Serve 304 Not Modified before the view runs when the client's copy is current."""
    revalidate = cache_control(public=True, max_age=0, must_revalidate=True)
    return revalidate(condition(etag_func=kb_etag, last_modified_func=kb_last_modified)(view))
