"""Search's tables: PostgreSQL's vocabulary, and SQLite's FTS5 index as unmanaged models.

On PostgreSQL the entries' search documents themselves are the kb's
(ErrorEntry.search_document); the vocabulary here corrects misspelt query words. On
SQLite the index is an FTS5 table, its vocabulary, the entries' FTS row ids and the
queue its triggers fill, all made by this app's migration 0002 in SQL (FTS5 tables have
no form in a model's Meta); the models below are unmanaged, so that errorkb.search.sqlite
reads and writes them through the ORM.
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


class FullTextField(models.TextField):
    """FTS5's hidden column named like its table: every indexed column at once.

    Written NULL with each row (a value would be an FTS5 command), never read: a query
    filters it with `match` and ranks by it (bm25).
    """


@FullTextField.register_lookup
class Match(models.Lookup):
    """FTS5's MATCH: the rows whose texts hold the query (FTS5's syntax, columns and all)."""

    lookup_name = "match"

    def as_sql(self, compiler, connection):
        lhs, lhs_params = self.process_lhs(compiler, connection)
        rhs, rhs_params = self.process_rhs(compiler, connection)
        return f"{lhs} MATCH {rhs}", (*lhs_params, *rhs_params)


class SQLiteIndexTable(models.Model):
    """A table of SQLite's index, made by search's migration 0002, read through the ORM."""

    class Meta:
        abstract = True
        managed = False
        required_db_vendor = "sqlite"


class FtsEntry(SQLiteIndexTable):
    """A published entry's texts in SQLite's FTS5 table, its columns in bm25's order."""

    rowid = models.AutoField(primary_key=True, db_column="rowid")
    entry_id = models.TextField()  # not indexed: FtsRowid finds an entry's row
    message = models.TextField()
    tags = models.TextField()
    file_path = models.TextField()
    documentation = models.TextField()
    trigger_scenarios = models.TextField()
    common_situations = models.TextField()
    solutions = models.TextField(null=True)
    document = FullTextField(db_column="search_fts", null=True)

    class Meta(SQLiteIndexTable.Meta):
        db_table = "search_fts"

    def __str__(self) -> str:
        return self.entry_id


class FtsRowid(SQLiteIndexTable):
    """The FTS row id of a published entry: its own, never kb_errorentry's rowid, which a
    table rebuild renumbers."""

    rowid = models.AutoField(primary_key=True, db_column="rowid")
    entry_id = models.TextField(unique=True)

    class Meta(SQLiteIndexTable.Meta):
        db_table = "search_rowid"

    def __str__(self) -> str:
        return f"{self.entry_id}: {self.rowid}"


class FtsTerm(SQLiteIndexTable):
    """A word the FTS5 table holds (its fts5vocab table, 'row': one row a word)."""

    term = models.TextField(primary_key=True)

    class Meta(SQLiteIndexTable.Meta):
        db_table = "search_vocab"

    def __str__(self) -> str:
        return self.term


class FtsStaleEntry(SQLiteIndexTable):
    """The id of an entry written since the FTS5 table last read it, queued by the
    triggers on the entries' table (search's migration 0002)."""

    seq = models.AutoField(primary_key=True)
    entry_id = models.TextField(null=True)

    class Meta(SQLiteIndexTable.Meta):
        db_table = "search_stale"

    def __str__(self) -> str:
        return f"{self.seq}: {self.entry_id}"
