"""The tokens public pages' validators are derived from."""

from django.db import models

from ..ids import ENTRY_ID_LENGTH


class ContentVersion(models.Model):
    """Rows whose tokens change with committed writes to what public pages show.

    Database triggers (errorkb.kb.freshness) write them, so
    every write path moves them on: the ORM, QuerySet.update(), the admin, raw SQL,
    another host. ROW moves with every write; CATALOG with writes to the tables that
    are not keyed by an entry (repositories, tags, scenarios, scans, ...).
    """

    ROW = 1
    CATALOG = 2

    id = models.PositiveSmallIntegerField(primary_key=True, default=ROW)
    token = models.CharField(max_length=64)

    def __str__(self) -> str:
        return self.token


class EntryVersion(models.Model):
    """One entry's token: moved by every write to a row keyed by that entry.

    No foreign key: a deleted entry's token moves too, and a trigger never waits on the
    entry's row. An entry without a row has the empty token until its first write.
    """

    entry_id = models.CharField(primary_key=True, max_length=ENTRY_ID_LENGTH)
    token = models.CharField(max_length=64)

    def __str__(self) -> str:
        return f"{self.entry_id}: {self.token}"
