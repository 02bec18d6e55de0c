"""The index is made by migrations alone: PostgreSQL's GIN indexes, SQLite's queue triggers."""

import pytest
from django.db import connection

from errorkb.kb.models import ErrorEntry

pytestmark = pytest.mark.django_db

ENTRIES = ErrorEntry._meta.db_table


def _triggers() -> set[str]:
    with connection.cursor() as cursor:
        if connection.vendor == "sqlite":
            cursor.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")
        else:
            cursor.execute("SELECT tgname FROM pg_trigger WHERE NOT tgisinternal")
        return {name for (name,) in cursor.fetchall()}


@pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite's index alone has triggers")
def test_the_entries_table_queues_every_write_for_sqlites_index():
    # A migration that rebuilds the entries' table on SQLite drops its triggers: it must
    # make them again (search's migration 0002 shows how).
    operations = ("insert", "update", "delete")
    assert {f"search_{ENTRIES}_{operation}" for operation in operations} <= _triggers()


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's tsvector")
def test_postgresql_searches_through_indexes_without_a_trigger():
    assert not {name for name in _triggers() if name.startswith("search")}
    with connection.cursor() as cursor:
        indexes = connection.introspection.get_constraints(cursor, ENTRIES)
    tiers = {"entry_search_document", "entry_search_head", "entry_search_message"}
    assert tiers <= {name for name, index in indexes.items() if index.get("type") == "gin"}
