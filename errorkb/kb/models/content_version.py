"""The tokens public pages' validators are derived from."""

from django.db import models

from ..ids import ENTRY_ID_LENGTH


class ContentVersion(models.Model):
    """Rows whose tokens change with writes to what public pages show (errorkb.kb.changes).

    CATALOG moves with writes to what every entry page may show and no one entry owns
    (repositories, tag names, scenarios, scans); every other row is part of the content
    version, which moves with every write: ROW on SQLite, any of CONTENT_ROWS on
    PostgreSQL, whichever no other open transaction holds.
    """

    ROW = 1
    CATALOG = 2
    CONTENT_ROWS = (ROW, *range(CATALOG + 1, CATALOG + 16))

    id = models.PositiveSmallIntegerField(primary_key=True, default=ROW)
    token = models.CharField(max_length=64)

    def __str__(self) -> str:
        return self.token


class EntryVersion(models.Model):
    """One entry's token: moved by every write to a row keyed by that entry.

    No foreign key: a deleted entry's token moves too, and moving it never waits on the
    entry's row. An entry without a row has the empty token until its first write.
    """

    entry_id = models.CharField(primary_key=True, max_length=ENTRY_ID_LENGTH)
    token = models.CharField(max_length=64)

    def __str__(self) -> str:
        return f"{self.entry_id}: {self.token}"
