"""The search index's tables: vendor-specific, so no model describes them.

PostgreSQL: pg_trgm, and one row per published entry with its weighted tsvector (GIN),
the head of it that ranking reads (message and tags and file path), and its message
(trigram GIN). SQLite: an FTS5 table, its vocabulary, the rowid each
entry has there, and the queue of entries whose row is out of date.

The triggers that fill them are installed, and the rows rebuilt, after every migrate
(errorkb.search.apps), from errorkb.search.postgresql / sqlite.
"""

from django.db import migrations

POSTGRESQL = [
    "CREATE EXTENSION IF NOT EXISTS pg_trgm",
    """CREATE TABLE search_document (
        entry_id varchar(16) PRIMARY KEY,
        message text NOT NULL,
        head tsvector NOT NULL,
        document tsvector NOT NULL
    )""",
    "CREATE INDEX search_document_document ON search_document USING gin (document)",
    "CREATE INDEX search_document_message_trgm ON search_document"
    " USING gin (message gin_trgm_ops)",
]
# The trigger functions go with their triggers (CASCADE), so no write to kb fails on a
# table that is gone.
POSTGRESQL_DROP = [
    "DROP FUNCTION IF EXISTS search_entries_changed() CASCADE",
    "DROP FUNCTION IF EXISTS search_tags_changed() CASCADE",
    "DROP FUNCTION IF EXISTS search_entry_tags_changed() CASCADE",
    "DROP FUNCTION IF EXISTS search_truncated() CASCADE",
    "DROP FUNCTION IF EXISTS search_refresh(text[])",
    "DROP TABLE IF EXISTS search_document",
]

SQLITE = [
    """CREATE VIRTUAL TABLE search_fts USING fts5 (
        entry_id UNINDEXED, message, tags, file_path, documentation,
        trigger_scenarios, common_situations, solutions,
        tokenize = 'porter unicode61 remove_diacritics 2'
    )""",
    "CREATE VIRTUAL TABLE search_vocab USING fts5vocab (search_fts, 'row')",
    """CREATE TABLE search_rowid (
        rowid INTEGER PRIMARY KEY,
        entry_id TEXT NOT NULL UNIQUE
    )""",
    """CREATE TABLE search_stale (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        entry_id TEXT,
        tag_id INTEGER
    )""",
]
SQLITE_DROP = [
    "DROP TABLE IF EXISTS search_vocab",
    "DROP TABLE IF EXISTS search_fts",
    "DROP TABLE IF EXISTS search_rowid",
    "DROP TABLE IF EXISTS search_stale",
]


BACKWARDS = {"postgresql": POSTGRESQL_DROP, "sqlite": SQLITE_DROP}


def _drop_sqlite_triggers(schema_editor):
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(
            "SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'search_%'"
        )
        names = [name for (name,) in cursor.fetchall()]
    for name in names:
        schema_editor.execute(f'DROP TRIGGER IF EXISTS "{name}"')


def _run(statements):
    def run(apps, schema_editor):
        vendor = schema_editor.connection.vendor
        if statements is BACKWARDS and vendor == "sqlite":
            _drop_sqlite_triggers(schema_editor)
        chosen = statements.get(vendor, [])
        for statement in chosen:
            schema_editor.execute(statement)

    return run


class Migration(migrations.Migration):
    initial = True
    # The index moved here from the lookup app, whose migration 0004 drops its tables.
    dependencies = [("lookup", "0004_search_index_moved")]

    operations = [
        migrations.RunPython(
            _run({"postgresql": POSTGRESQL, "sqlite": SQLITE}),
            _run(BACKWARDS),
        ),
    ]
