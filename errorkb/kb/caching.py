"""Conditional GET for pages and API responses built from entries.

A page shows more than its own entry (related entries, the repository's list),
so validators are derived from the state of the whole entries table: the
number of rows and the latest update. Any change anywhere yields a new ETag
and a later Last-Modified, so nothing is ever served stale, and the check is
one indexed aggregate query, made before any rendering.
"""

import hashlib

from django.views.decorators.cache import cache_control
from django.views.decorators.http import condition

from errorkb import __version__

from .models import ErrorEntry


def _freshness(request) -> tuple[int, object]:
    # ETag and Last-Modified are computed separately by Django; ask the database once.
    if not hasattr(request, "_kb_freshness"):
        request._kb_freshness = ErrorEntry.objects.freshness()
    return request._kb_freshness


def kb_etag(request, *args, **kwargs) -> str:
    count, latest = _freshness(request)
    stamp = latest.isoformat() if latest else "empty"
    # The release is part of the key: a new template or serializer changes the bytes too.
    key = f"{__version__}|{count}|{stamp}"
    return hashlib.blake2b(key.encode(), digest_size=12).hexdigest()


def kb_last_modified(request, *args, **kwargs):
    return _freshness(request)[1]


def conditional(view):
    """Serve 304 Not Modified before the view runs when the client's copy is current."""
    revalidate = cache_control(public=True, max_age=0, must_revalidate=True)
    return revalidate(condition(etag_func=kb_etag, last_modified_func=kb_last_modified)(view))
