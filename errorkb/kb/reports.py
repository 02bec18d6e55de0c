"""Readers' problem reports on entries.

A reader is known only by the keyed hash of their address that the view hands in
(errorkb.http.clients.client_key), without storing anything that identifies them; how
many a reader may send is the view's to say (errorkb.http.throttles).
"""

from .models import ErrorEntry, Report


def submit_report(entry: ErrorEntry, message: str, contact: str, client: str) -> Report:
    """Store a reader's report on an entry."""
    return Report.objects.create(entry=entry, message=message, contact=contact, client=client)
