"""The index is made by migrations alone: PostgreSQL's GIN indexes, which each tier of a
search reads, and SQLite's queue triggers."""

import pytest
from django.contrib.postgres.search import SearchQuery
from django.db import connection, transaction

from errorkb.kb.models import ErrorEntry
from errorkb.kb.models.entries import SEARCH_CONFIG
from errorkb.search import postgresql
from tests.builders import import_records, make_record

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


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's GIN indexes")
def test_each_tier_of_a_search_reads_its_own_index():
    (valve,) = import_records(make_record("Valve stuck."))
    # Enough other published entries that the status index alone would read them all.
    ErrorEntry.objects.bulk_create(
        ErrorEntry(
            id=f"{n:016x}",
            repository=valve.repository,
            slug=f"engine-{n}",
            status=valve.status,
            error_message=f"Engine {n} stalled.",
        )
        for n in range(300)
    )
    query = SearchQuery("valve", config=SEARCH_CONFIG)
    indexes = ["entry_search_message", "entry_search_head", "entry_search_document"]
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(f"ANALYZE {ENTRIES}")
        for index in indexes:  # the entries earlier tests wrote and rolled back
            cursor.execute("SELECT gin_clean_pending_list(%s::regclass)", [index])
        cursor.execute("SET LOCAL enable_seqscan = off")
        plans = [tier.explain() for tier in postgresql.tiers(query)]
    for plan, index in zip(plans, indexes, strict=True):
        assert f"Bitmap Index Scan on {index}" in plan
