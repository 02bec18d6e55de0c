"""The vocabulary that corrects misspelt query words on PostgreSQL.

The entries' search documents themselves are the kb's (ErrorEntry.search_document);
SQLite's index is an FTS5 table made by this app's migrations (errorkb.search.sqlite).
"""

from django.contrib.postgres.indexes import GinIndex
from django.db import models


class Lexeme(models.Model):
    """A lexeme some published entry's search document holds, or held.

    Only grows, brought up to date before a correction (errorkb.search.postgresql). It
    has no unique key: two searches adding the same new word leave it twice, which the
    corrections read as once, and neither waits for the other.
    """

    lexeme = models.TextField()

    class Meta:
        required_db_vendor = "postgresql"
        indexes = [
            models.Index(fields=["lexeme"], name="search_lexeme_known"),
            # Written straight into the index, not its pending list: a vocabulary is written
            # seldom and read by every correction, which would scan that list.
            GinIndex(
                fields=["lexeme"],
                opclasses=["gin_trgm_ops"],
                name="search_lexeme_alike",
                fastupdate=False,
            ),
        ]

    def __str__(self) -> str:
        return self.lexeme


class VocabularyUpdate(models.Model):
    """The vocabulary holds the lexemes of the entries written up to this time."""

    entries_written_up_to = models.DateTimeField()

    class Meta:
        required_db_vendor = "postgresql"

    def __str__(self) -> str:
        return f"entries written up to {self.entries_written_up_to}"
