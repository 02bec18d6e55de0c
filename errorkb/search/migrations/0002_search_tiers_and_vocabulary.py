"""PostgreSQL: an index per ranking tier, and the vocabulary that corrects misspelt words.

A search now ranks at most a thousand candidates, read tier by tier: the message's own
words (the head's weight A), the head (message, tags, file path), the whole document,
each through its GIN index. A misspelt word is replaced by the known lexemes most like
it (search_lexeme, pg_trgm): the trigrams of every message, and the message kept for
them, go.

The trigger functions go first (their triggers with them, CASCADE): until the install
after this migrate puts them back and rebuilds every row, a write to kb passes unseen
rather than failing on the column that is gone. SQLite: nothing changes.
"""

import importlib

from django.db import migrations

created = importlib.import_module("errorkb.search.migrations.0001_search_index")
FUNCTIONS_DROP = [
    statement for statement in created.POSTGRESQL_DROP if statement.startswith("DROP FUNCTION")
] + ["DROP FUNCTION IF EXISTS search_rebuild()"]

POSTGRESQL = [
    *FUNCTIONS_DROP,
    "DROP INDEX IF EXISTS search_document_message_trgm",
    "ALTER TABLE search_document DROP COLUMN message",
    "CREATE INDEX search_document_head ON search_document USING gin (head)",
    "CREATE INDEX search_document_message ON search_document"
    " USING gin (ts_filter(head, '{a}'))",
    # No unique key, so that no writer waits for another's new word (postgresql.py).
    "CREATE TABLE search_lexeme (lexeme text NOT NULL)",
    "CREATE INDEX search_lexeme_lexeme ON search_lexeme (lexeme)",
    "CREATE INDEX search_lexeme_trgm ON search_lexeme USING gin (lexeme gin_trgm_ops)",
]
POSTGRESQL_BACKWARDS = [
    *FUNCTIONS_DROP,
    "DROP TABLE IF EXISTS search_lexeme",
    "DROP INDEX IF EXISTS search_document_message",
    "DROP INDEX IF EXISTS search_document_head",
    # Empty until the code that fills it installs its triggers and rebuilds the rows.
    "ALTER TABLE search_document ADD COLUMN message text NOT NULL DEFAULT ''",
    "CREATE INDEX search_document_message_trgm ON search_document"
    " USING gin (message gin_trgm_ops)",
]


def _run(statements):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            for statement in statements:
                schema_editor.execute(statement)

    return run


class Migration(migrations.Migration):
    dependencies = [("search", "0001_search_index")]

    operations = [migrations.RunPython(_run(POSTGRESQL), _run(POSTGRESQL_BACKWARDS))]
