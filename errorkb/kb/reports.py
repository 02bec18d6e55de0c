"""Readers' problem reports: who sent one, and how many one reader may send.

A reader is known only by the keyed hash of their address that the face hands in
(errorkb.http.clients.client_key), enough to rate-limit without storing anything that
identifies them. The limit is counted in the database, so every web process shares it.
"""

from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from .models import ErrorEntry, Report

WINDOW = timedelta(hours=1)


class RateLimited(Exception):
    """This client already sent settings.REPORTS_PER_HOUR reports in the last hour."""


def submit_report(entry: ErrorEntry, message: str, contact: str, client: str) -> Report:
    """Store a reader's report on an entry, or raise RateLimited."""
    with transaction.atomic():
        # Insert first, then count: the insert takes the write lock on SQLite, so
        # concurrent submissions are counted one after another instead of failing.
        report = Report.objects.create(entry=entry, message=message, contact=contact, client=client)
        sent = Report.objects.from_client_since(client, timezone.now() - WINDOW).count()
        if sent > settings.REPORTS_PER_HOUR:
            raise RateLimited  # leaving the block rolls the insert back
    return report
