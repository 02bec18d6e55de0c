"""Readers' problem reports on entries.

A reader is known only by the keyed hash of their address that the face hands in
(errorkb.http.clients.client_key), enough to rate-limit (errorkb.http.limits, in the
face) without storing anything that identifies them.
"""

from .models import ErrorEntry, Report


def submit_report(entry: ErrorEntry, message: str, contact: str, client: str) -> Report:
    """Store a reader's report on an entry."""
    return Report.objects.create(entry=entry, message=message, contact=contact, client=client)
