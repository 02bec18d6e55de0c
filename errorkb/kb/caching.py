"""Conditional GET for pages and API responses built from entries.

A page shows more than its own entry (related entries, the repository's list),
so validators are derived from the state of the whole entries table: the
number of rows and the latest update. Any change anywhere yields a new ETag
and a later Last-Modified, so nothing is ever served stale, and the check is
one indexed aggregate query, made before any rendering.
"""

import hashlib
from datetime import datetime

from django.utils.cache import quote_etag
from django.utils.http import http_date
from django.views.decorators.cache import cache_control
from django.views.decorators.http import condition

from errorkb import __version__

from .models import ErrorEntry

CACHE_CONTROL = "public, max-age=0, must-revalidate"


def validators(count: int, latest: datetime | None) -> tuple[str, str | None]:
    """The (quoted ETag, HTTP date) that every page and API response carries."""
    stamp = latest.isoformat() if latest else "empty"
    # The release is part of the key: a new template or serializer changes the bytes too.
    key = f"{__version__}|{count}|{stamp}"
    etag = quote_etag(hashlib.blake2b(key.encode(), digest_size=12).hexdigest())
    return etag, http_date(latest.timestamp()) if latest else None


def _freshness(request) -> tuple[int, datetime | None]:
    # ETag and Last-Modified are computed separately by Django; ask the database once.
    if not hasattr(request, "_kb_freshness"):
        request._kb_freshness = ErrorEntry.objects.freshness()
    return request._kb_freshness


def kb_etag(request, *args, **kwargs) -> str:
    return validators(*_freshness(request))[0]


def kb_last_modified(request, *args, **kwargs) -> datetime | None:
    return _freshness(request)[1]


def conditional(view):
    """Serve 304 Not Modified before the view runs when the client's copy is current."""
    revalidate = cache_control(public=True, max_age=0, must_revalidate=True)
    return revalidate(condition(etag_func=kb_etag, last_modified_func=kb_last_modified)(view))
