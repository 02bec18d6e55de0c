"""How many requests of a kind one anonymous client may make: DRF's throttling.

Lookups and searches (settings.LOOKUPS_PER_MINUTE of each a minute) and problem reports
(settings.REPORTS_PER_HOUR an hour) are counted per client, by its address (behind
TRUSTED_PROXIES the reader's: clients.client_key); a signed-in curator is not counted.
The counts are kept in the "throttles" cache (settings.CACHES): Redis with CACHE_URL,
shared by every process and machine; else files under var/, shared by the processes of
one machine. DRF's windows slide: at most that many in any minute (hour).

The API views name their throttle (`throttle_classes`, and `ThrottlingMixin` for the
refusal's words); the HTML views ask theirs with `check_throttle` and answer a refusal
with their own page.
"""

import math

from django.conf import settings
from django.contrib.auth import get_user
from django.core.cache import caches
from django.http import HttpRequest
from rest_framework import exceptions
from rest_framework.throttling import SimpleRateThrottle

from .clients import client_key


class ClientThrottle(SimpleRateThrottle):
    """At most settings.<setting> requests of `scope` per anonymous client per `period`."""

    cache = caches["throttles"]
    setting: str
    period: str  # "minute" or "hour", as DRF's rates spell them
    what: str  # the requests counted, as the refusal names them

    def get_rate(self) -> str:
        # Read at each request, not once at import as DRF's THROTTLE_RATES are.
        return f"{getattr(settings, self.setting)}/{self.period}"

    def get_cache_key(self, request, view) -> str | None:
        if signed_in(getattr(request, "_request", request)):  # Django's, under DRF's
            return None
        return self.cache_format % {"scope": self.scope, "ident": client_key(request)}

    def refusal(self, wait: float | None) -> exceptions.Throttled:
        """DRF's 429, in words that say how many are allowed and when to try again."""
        seconds = max(1, math.ceil(wait or 0))  # a Retry-After of 0 would invite one at once
        per = "an hour" if self.period == "hour" else f"a {self.period}"
        refused = exceptions.Throttled(
            detail=f"Too many requests: anonymous clients may make {self.num_requests} "
            f"{self.what} {per}. Try again in {seconds} s."
        )
        refused.wait = seconds  # DRF's handler sends it as Retry-After
        return refused


class LookupThrottle(ClientThrottle):
    scope, setting, period, what = "lookup", "LOOKUPS_PER_MINUTE", "minute", "lookups or searches"


class SearchThrottle(ClientThrottle):
    scope, setting, period, what = "search", "LOOKUPS_PER_MINUTE", "minute", "lookups or searches"


class ReportThrottle(ClientThrottle):
    scope, setting, period, what = "report", "REPORTS_PER_HOUR", "hour", "problem reports"


def signed_in(request: HttpRequest) -> bool:
    """Whether a curator is signed in. The API authenticates no one: once DRF has, the
    request's user is its None, and the session says who is signed in."""
    user = getattr(request, "user", None)
    if user is None and hasattr(request, "session"):
        user = get_user(request)
    return user is not None and user.is_authenticated


def check_throttle(request, throttle_class: type[ClientThrottle]) -> None:
    """Count one request of an HTML view; exceptions.Throttled past the client's allowance."""
    throttle = throttle_class()
    if not throttle.allow_request(request, None):
        raise throttle.refusal(throttle.wait())


class ThrottlingMixin:
    """An API view whose throttle's refusal says, in words, how many it allows."""

    def throttled(self, request, wait):
        throttle = self.get_throttles()[0]
        raise throttle.refusal(wait)
