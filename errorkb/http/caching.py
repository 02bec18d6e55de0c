"""Conditional GET and reuse of rendered responses for public pages and the API, never stale.

A response's ETag is a hash of the release, a token that the write paths move on with
every write to what the response shows, and the full address asked for. Lists take
the content token (errorkb.kb.changes: any write); one entry's page, record and runs
take that entry's token (the same module: writes to its own rows, its related
entries' and the catalog's), so a run of one entry leaves every other entry's
validators and cached bytes standing.

A matching If-None-Match is answered 304 after that one small read, before anything
renders; a 200 whose ETag was rendered before is served from Django's cache
framework (the "pages" cache). Both are keyed on the token, so neither can be stale.

There is no Last-Modified: an HTTP date has one-second resolution and a transaction
stamps its time before it commits, so If-Modified-Since could not tell two states
apart. And Django's own condition decorator is not used because it answers
`If-None-Match: *` with 304 for a page that does not exist.
"""

import hashlib
from functools import wraps

from django.core.cache import caches
from django.http import HttpRequest, HttpResponse, HttpResponseNotModified
from django.utils.cache import parse_etags, patch_cache_control, quote_etag

from errorkb import __version__
from errorkb.kb.changes import content_token, entry_token
from errorkb.kb.record.names import ID_RE

CACHE_CONTROL = {"public": True, "max_age": 0, "must_revalidate": True}
# A page past this is rendered each time rather than crowd out many small ones.
MAX_CACHED_BYTES = 1024 * 1024


def page_etag(request: HttpRequest, token: str | None = None) -> str:
    """The quoted ETag of what this address shows now: one indexed read."""
    # The whole address: pages link to themselves by host and scheme, and a client's
    # ETag for one address proves nothing about another (an unknown entry, say).
    token = content_token() if token is None else token
    key = f"{__version__}|{token}|{request.build_absolute_uri()}"
    return quote_etag(hashlib.blake2b(key.encode(), digest_size=16).hexdigest())


def site_token(kwargs: dict) -> str:
    """Any committed write anywhere moves it: for lists, which show many entries."""
    return content_token()


def entry_view_token(kwargs: dict) -> str:
    """One entry's token, for a view given entry_id or pk, or owner, name and slug."""
    if "slug" in kwargs:
        return entry_token(slug=(kwargs["owner"], kwargs["name"], kwargs["slug"]))
    entry_id = kwargs.get("entry_id", kwargs.get("pk"))
    if not ID_RE.fullmatch(entry_id or ""):
        return "no such entry"  # a 404, never given a validator: nothing to look up
    return entry_token(entry_id)


def conditional(view, *, token=site_token):
    """Answer GET and HEAD with 304 when the reader's copy is current, else cached bytes."""

    @wraps(view)
    def wrapped(request, *args, **kwargs):
        if request.method not in ("GET", "HEAD"):
            return view(request, *args, **kwargs)
        current = token(kwargs)
        if token is site_token:
            # A list's count is kept under the same token (api.KeptCountPaginator).
            request.content_token = current
        etag = page_etag(request, current)
        wanted = {
            tag.removeprefix("W/") for tag in parse_etags(request.headers.get("If-None-Match", ""))
        }
        if etag in wanted:
            return _not_modified(etag)
        # no-cache: the reader (or a benchmark) asks for a fresh rendering.
        fresh = "no-cache" in request.headers.get("Cache-Control", "")
        response = (None if fresh else _cached(etag)) or _render(view, request, args, kwargs, etag)
        # "*" asks whether the page exists at all: only a 200 says it does.
        if "*" in wanted and response.status_code == 200:
            return _not_modified(etag)
        return response

    return wrapped


def conditional_entry(view):
    """conditional() for one entry's page, record or runs: validated by the entry's token."""
    return conditional(view, token=entry_view_token)


def _not_modified(etag: str) -> HttpResponse:
    response = HttpResponseNotModified()
    response["ETag"] = etag
    patch_cache_control(response, **CACHE_CONTROL)
    return response


def _render(view, request, args, kwargs, etag: str) -> HttpResponse:
    response = view(request, *args, **kwargs)
    if response.status_code != 200:
        return response  # no validator: a 404 must never be revalidated into a 304
    response["ETag"] = etag
    patch_cache_control(response, **CACHE_CONTROL)
    if hasattr(response, "render"):
        response.render()  # a DRF or template response: its bytes are wanted now
    _store(etag, response)
    return response


def _cached(etag: str) -> HttpResponse | None:
    found = caches["pages"].get(etag)
    if found is None:
        return None
    content, headers = found
    return HttpResponse(content, headers=headers)


def _store(etag: str, response: HttpResponse) -> None:
    # Only what is the same for every reader: no cookie, nothing varying on one.
    if response.streaming or response.cookies or len(response.content) > MAX_CACHED_BYTES:
        return
    if "cookie" in response.get("Vary", "").lower():
        return
    caches["pages"].set(etag, (response.content, dict(response.items())))
