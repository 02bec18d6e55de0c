"""The one rate limiter: how many requests of a kind one anonymous client may make.

Lookups and searches (a minute each, settings.LOOKUPS_PER_MINUTE) and problem reports
(an hour, settings.REPORTS_PER_HOUR) are counted the same way. The count lives in the
database, not in a process's memory, so every web process and every host behind the
same database shares it. One statement adds one to the client's count for the current
window and reads it back (INSERT ... ON CONFLICT DO UPDATE ... RETURNING, on SQLite and
PostgreSQL alike): two concurrent requests cannot both read the old count.

Windows are fixed (each minute, each hour), not sliding: a client may spend one
window's allowance at its end and the next one's at the start of the next.
"""

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import connection, transaction
from django.http import HttpRequest
from django.utils import timezone

from .clients import client_key
from .models import Allowance


@dataclass(frozen=True)
class Limit:
    """At most settings.<setting> requests of `scope` per client per `window`."""

    scope: str
    setting: str
    window: timedelta
    what: str  # the requests counted, as the refusal names them

    @property
    def allowed(self) -> int:
        return getattr(settings, self.setting)

    @property
    def per(self) -> str:
        return "a minute" if self.window == timedelta(minutes=1) else "an hour"


LOOKUPS = Limit("lookup", "LOOKUPS_PER_MINUTE", timedelta(minutes=1), "lookups or searches")
SEARCHES = Limit("search", "LOOKUPS_PER_MINUTE", timedelta(minutes=1), "lookups or searches")
REPORTS = Limit("report", "REPORTS_PER_HOUR", timedelta(hours=1), "problem reports")


@dataclass(frozen=True)
class RateLimited(Exception):
    """The client used up its allowance; it may try again after `retry_after` seconds."""

    limit: Limit
    retry_after: int

    def __str__(self) -> str:
        return (
            f"Too many requests: anonymous clients may make {self.limit.allowed} "
            f"{self.limit.what} {self.limit.per}. Try again in {self.retry_after} s."
        )


def charge_request(request: HttpRequest, limit: Limit) -> None:
    """Count one anonymous request against `limit`; signed-in curators are not limited.

    The API authenticates no one (its request.user is None): every API call counts.
    """
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        charge(client_key(request), limit)


def charge(client: str, limit: Limit, *, now: datetime | None = None) -> None:
    """Count one request for `client` against `limit`, or raise RateLimited past it."""
    now = now or timezone.now()
    window = window_of(now, limit.window)
    count = _add_one(client, limit, window)
    if count > limit.allowed:
        retry_after = max(1, int((window + limit.window - now).total_seconds() + 0.999))
        raise RateLimited(limit, retry_after)


def window_of(moment: datetime, length: timedelta) -> datetime:
    seconds = int(length.total_seconds())
    start = int(moment.timestamp()) // seconds * seconds
    return datetime.fromtimestamp(start, tz=moment.tzinfo)


def _add_one(client: str, limit: Limit, window: datetime) -> int:
    table = connection.ops.quote_name(Allowance._meta.db_table)
    sql = (
        f"INSERT INTO {table} (client, scope, started, count) VALUES (%s, %s, %s, 1) "
        f"ON CONFLICT (client, scope, started) DO UPDATE SET count = {table}.count + 1 "
        "RETURNING count"
    )
    field = Allowance._meta.get_field("started")
    stored_window = field.get_db_prep_value(window, connection)
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(sql, [client, limit.scope, stored_window])
        (count,) = cursor.fetchone()
        if count == 1:
            # A client's first request in a window sweeps the ended windows of its
            # scope, so the table holds about one row per client active this window.
            Allowance.objects.filter(scope=limit.scope, started__lt=window).delete()
    return count
