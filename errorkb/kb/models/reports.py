"""Readers' notes that something on an entry's page is wrong.

A reader is known only by the keyed hash of their address that the view hands in
(errorkb.http.clients.client_key), never by anything that identifies them; how many a
reader may send is the view's to say (errorkb.http.throttles).
"""

from django.conf import settings
from django.db import models

from .entries import ErrorEntry


class ReportQuerySet(models.QuerySet):
    def open(self):
        return self.filter(resolved_at__isnull=True)


class Report(models.Model):
    """A reader's note that something on an entry's page is wrong."""

    MAX_LENGTH = 2000

    entry = models.ForeignKey(ErrorEntry, on_delete=models.CASCADE, related_name="reports")
    message = models.TextField(max_length=MAX_LENGTH)
    contact = models.EmailField(blank=True, help_text="Optional: where to send a reply.")
    # A keyed hash of the reader's address: enough to rate-limit, nothing to identify.
    client = models.CharField(max_length=64, db_index=True, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)
    resolved_at = models.DateTimeField(null=True, blank=True)
    resolved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    objects = ReportQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"Report on {self.entry_id} at {self.created_at:%Y-%m-%d %H:%M}"
