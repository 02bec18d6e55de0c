"""The search index of each database, beside what the models make.

PostgreSQL: a GIN index per ranking tier over the entries' generated search heads and
documents (kb's ErrorEntry.search_head and search_document), published entries only.
They are made here rather than in the model's Meta so that SQLite, which has no GIN,
never sees them, even when a migration rebuilds the entries' table.

SQLite: an FTS5 table of the published entries' texts (errorkb.search.sqlite), its
vocabulary, the entries' FTS row ids, and the queue of entries written since the
index last read them. The queue is filled by triggers on the entries' table: only a
trigger also sees a write that runs no Python (raw SQL). A later migration that
rebuilds kb_errorentry on SQLite drops them and must make them again
(tests/search/test_search_index.py names any that are missing).
"""

from django.contrib.postgres.indexes import GinIndex
from django.db import migrations, models
from django.db.models import Func, Q, Value

import errorkb.search.models

PUBLISHED = Q(status="published")

INDEXES = [
    GinIndex("search_document", name="entry_search_document", condition=PUBLISHED),
    GinIndex("search_head", name="entry_search_head", condition=PUBLISHED),
    # The head's weight A: the message, as the first tier reads it.
    GinIndex(
        Func("search_head", Value("{a}"), function="ts_filter"),
        name="entry_search_message",
        condition=PUBLISHED,
    ),
]

SQLITE_TABLES = [
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
        entry_id TEXT
    )""",
]
SQLITE_DROP = [
    "DROP TABLE IF EXISTS search_vocab",
    "DROP TABLE IF EXISTS search_fts",
    "DROP TABLE IF EXISTS search_rowid",
    "DROP TABLE IF EXISTS search_stale",
]
# Each queues the ids its row names, and reads no other table: one that did would fail
# while a migration rebuilds that table. errorkb.search.sqlite reads the queue.
SQLITE_TRIGGERS = {
    "search_kb_errorentry_insert": ("INSERT", "kb_errorentry", ["NEW.id"]),
    "search_kb_errorentry_update": ("UPDATE", "kb_errorentry", ["OLD.id", "NEW.id"]),
    "search_kb_errorentry_delete": ("DELETE", "kb_errorentry", ["OLD.id"]),
}


def make_index(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    if vendor == "postgresql":
        entries = apps.get_model("kb", "ErrorEntry")
        for index in INDEXES:
            schema_editor.add_index(entries, index)
    elif vendor == "sqlite":
        for statement in SQLITE_TABLES:
            schema_editor.execute(statement)
        for name, (operation, table, values) in SQLITE_TRIGGERS.items():
            inserts = " ".join(f"INSERT INTO search_stale (entry_id) VALUES ({v});" for v in values)
            schema_editor.execute(
                f'CREATE TRIGGER "{name}" AFTER {operation} ON "{table}" BEGIN {inserts} END'
            )


def remove_index(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    if vendor == "postgresql":
        entries = apps.get_model("kb", "ErrorEntry")
        for index in INDEXES:
            schema_editor.remove_index(entries, index)
    elif vendor == "sqlite":
        for name in SQLITE_TRIGGERS:
            schema_editor.execute(f'DROP TRIGGER IF EXISTS "{name}"')
        for statement in SQLITE_DROP:
            schema_editor.execute(statement)


class Migration(migrations.Migration):
    dependencies = [
        ("search", "0001_initial"),
        ("kb", "0001_initial"),
    ]

    operations = [
        migrations.RunPython(make_index, remove_index),
        # SQLite's index tables, made above, as unmanaged models (errorkb.search.sqlite
        # reads and writes them through the ORM): nothing is made by these.
        migrations.CreateModel(
            name="FtsEntry",
            fields=[
                ("rowid", models.AutoField(db_column="rowid", primary_key=True, serialize=False)),
                ("entry_id", models.TextField()),
                ("message", models.TextField()),
                ("tags", models.TextField()),
                ("file_path", models.TextField()),
                ("documentation", models.TextField()),
                ("trigger_scenarios", models.TextField()),
                ("common_situations", models.TextField()),
                ("solutions", models.TextField(null=True)),
                (
                    "document",
                    errorkb.search.models.FullTextField(db_column="search_fts", null=True),
                ),
            ],
            options={
                "db_table": "search_fts",
                "managed": False,
                "required_db_vendor": "sqlite",
            },
        ),
        migrations.CreateModel(
            name="FtsRowid",
            fields=[
                ("rowid", models.AutoField(db_column="rowid", primary_key=True, serialize=False)),
                ("entry_id", models.TextField(unique=True)),
            ],
            options={
                "db_table": "search_rowid",
                "managed": False,
                "required_db_vendor": "sqlite",
            },
        ),
        migrations.CreateModel(
            name="FtsStaleEntry",
            fields=[
                ("seq", models.AutoField(primary_key=True, serialize=False)),
                ("entry_id", models.TextField(null=True)),
            ],
            options={
                "db_table": "search_stale",
                "managed": False,
                "required_db_vendor": "sqlite",
            },
        ),
        migrations.CreateModel(
            name="FtsTerm",
            fields=[
                ("term", models.TextField(primary_key=True, serialize=False)),
            ],
            options={
                "db_table": "search_vocab",
                "managed": False,
                "required_db_vendor": "sqlite",
            },
        ),
    ]
