"""Search reads the entries' own search documents on PostgreSQL; SQLite's FTS5 stays.

PostgreSQL: the index's old table, vocabulary, functions and triggers go; the entries'
search heads and documents (kb's migration 0013) get a GIN index per ranking tier,
published entries only; the vocabulary that corrects misspelt words is a model now, filled by
the first correction.

SQLite: the triggers that queue the entries a write touched are made here (kb's
migration 0013 rebuilt the entries' table, and its triggers with it), and every FTS
row is rebuilt. A migration that rebuilds one of the three kb tables on SQLite must
make its triggers again (tests/search/test_search_index.py says which are missing).
"""

from django.contrib.postgres.indexes import GinIndex
from django.contrib.postgres.operations import TrigramExtension
from django.db import migrations, models
from django.db.models import Func, Q, Value

# The trigger functions go with their triggers (CASCADE).
POSTGRESQL_DROP = [
    "DROP FUNCTION IF EXISTS search_entries_changed() CASCADE",
    "DROP FUNCTION IF EXISTS search_tags_changed() CASCADE",
    "DROP FUNCTION IF EXISTS search_entry_tags_changed() CASCADE",
    "DROP FUNCTION IF EXISTS search_truncated() CASCADE",
    "DROP FUNCTION IF EXISTS search_rebuild()",
    "DROP FUNCTION IF EXISTS search_refresh(text[])",
    "DROP TABLE IF EXISTS search_document",
    "DROP TABLE IF EXISTS search_lexeme",
]

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

# Each queues the ids its row names (search_stale), and reads no other table: one that
# did would fail while a migration rebuilds that table. errorkb.search.sqlite reads it.
SQLITE_TRIGGERS = {
    "search_kb_errorentry_insert": ("INSERT", "kb_errorentry", ["NEW.id"]),
    "search_kb_errorentry_update": ("UPDATE", "kb_errorentry", ["OLD.id", "NEW.id"]),
    "search_kb_errorentry_delete": ("DELETE", "kb_errorentry", ["OLD.id"]),
}
# The triggers of the tags' tables go: the entries' own tags_text holds their tags now.
SQLITE_DROPPED = [
    *SQLITE_TRIGGERS,
    "search_kb_entrytag_insert",
    "search_kb_entrytag_update",
    "search_kb_entrytag_delete",
    "search_kb_tag_update",
]
SQLITE_REBUILD = [
    "DELETE FROM search_fts",
    "DELETE FROM search_rowid",
    "DELETE FROM search_stale",
    "INSERT INTO search_rowid (entry_id) SELECT id FROM kb_errorentry WHERE status = 'published'",
    """INSERT INTO search_fts (rowid, entry_id, message, tags, file_path, documentation,
        trigger_scenarios, common_situations, solutions)
    SELECT r.rowid, e.id, e.error_message, e.tags_text, coalesce(e.file_path, ''),
        e.documentation, e.trigger_scenarios, e.common_situations,
        (SELECT group_concat(value, ' ') FROM json_each(e.solutions))
    FROM kb_errorentry e JOIN search_rowid r ON r.entry_id = e.id""",
]


def _drop_sqlite_triggers(schema_editor):
    for name in SQLITE_DROPPED:
        schema_editor.execute(f'DROP TRIGGER IF EXISTS "{name}"')


def drop_the_old_index(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        for statement in POSTGRESQL_DROP:
            schema_editor.execute(statement)
    elif schema_editor.connection.vendor == "sqlite":
        _drop_sqlite_triggers(schema_editor)


def index_the_entries(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    if vendor == "postgresql":
        entries = apps.get_model("kb", "ErrorEntry")
        for index in INDEXES:
            schema_editor.add_index(entries, index)
    elif vendor == "sqlite":
        for name, (operation, table, values) in SQLITE_TRIGGERS.items():
            inserts = " ".join(
                f"INSERT INTO search_stale (entry_id) VALUES ({v});" for v in values
            )
            schema_editor.execute(
                f'CREATE TRIGGER "{name}" AFTER {operation} ON "{table}" BEGIN {inserts} END'
            )
        for statement in SQLITE_REBUILD:
            schema_editor.execute(statement)


def unindex_the_entries(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    if vendor == "postgresql":
        entries = apps.get_model("kb", "ErrorEntry")
        for index in INDEXES:
            schema_editor.remove_index(entries, index)
    elif vendor == "sqlite":
        _drop_sqlite_triggers(schema_editor)


class Migration(migrations.Migration):
    dependencies = [
        ("search", "0002_search_tiers_and_vocabulary"),
        ("kb", "0013_entry_search_document"),
    ]

    operations = [
        migrations.RunPython(drop_the_old_index, migrations.RunPython.noop),
        TrigramExtension(),
        migrations.CreateModel(
            name="VocabularyUpdate",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("entries_written_up_to", models.DateTimeField()),
            ],
            options={
                "required_db_vendor": "postgresql",
            },
        ),
        migrations.CreateModel(
            name="Lexeme",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("lexeme", models.TextField()),
            ],
            options={
                "required_db_vendor": "postgresql",
                "indexes": [
                    models.Index(fields=["lexeme"], name="search_lexeme_known"),
                    GinIndex(
                        fields=["lexeme"],
                        name="search_lexeme_alike",
                        opclasses=["gin_trgm_ops"],
                        fastupdate=False,
                    ),
                ],
            },
        ),
        migrations.RunPython(index_the_entries, unindex_the_entries),
    ]
