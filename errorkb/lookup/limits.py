"""The per-client limit on anonymous lookups and searches, shared by every process.

The count lives in the database, not in a process's memory, so every web process and
every host behind the same database shares it. One statement adds one to the
client's count for the current window and reads it back (INSERT ... ON CONFLICT DO
UPDATE ... RETURNING, on SQLite and PostgreSQL alike): two concurrent requests
cannot both read the old count.
"""

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import connection, transaction
from django.http import HttpRequest
from django.utils import timezone

from errorkb.http.clients import client_key

from .models import Allowance

WINDOW = timedelta(minutes=1)


@dataclass(frozen=True)
class RateLimited(Exception):
    """The client used up its allowance; it may try again after `retry_after` seconds."""

    retry_after: int

    def __str__(self) -> str:
        return (
            f"Too many requests: anonymous clients may make {settings.LOOKUPS_PER_MINUTE} "
            f"lookups or searches a minute. Try again in {self.retry_after} s."
        )


def charge_request(request: HttpRequest, scope: str) -> None:
    """Count one anonymous request of `scope`; signed-in curators are not limited.

    The API authenticates no one (its request.user is None): every API call counts.
    """
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        charge(client_key(request), scope)


def charge(client: str, scope: str, *, now: datetime | None = None) -> None:
    """Count one request of `scope` for `client`, or raise RateLimited past the limit."""
    now = now or timezone.now()
    window = window_of(now)
    count = _add_one(client, scope, window)
    if count > settings.LOOKUPS_PER_MINUTE:
        retry_after = max(1, int((window + WINDOW - now).total_seconds() + 0.999))
        raise RateLimited(retry_after)


def window_of(moment: datetime) -> datetime:
    seconds = int(WINDOW.total_seconds())
    start = int(moment.timestamp()) // seconds * seconds
    return datetime.fromtimestamp(start, tz=moment.tzinfo)


def _add_one(client: str, scope: str, window: datetime) -> int:
    table = connection.ops.quote_name(Allowance._meta.db_table)
    sql = (
        f"INSERT INTO {table} (client, scope, started, count) VALUES (%s, %s, %s, 1) "
        f"ON CONFLICT (client, scope, started) DO UPDATE SET count = {table}.count + 1 "
        "RETURNING count"
    )
    field = Allowance._meta.get_field("started")
    stored_window = field.get_db_prep_value(window, connection)
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(sql, [client, scope, stored_window])
        (count,) = cursor.fetchone()
        if count == 1:
            # A client's first request in a window sweeps every ended window, so the
            # table holds about one row per client active this minute.
            Allowance.objects.filter(started__lt=window).delete()
    return count
