"""SQLite's FTS5 index, read and written through its unmanaged models: one row per
published entry, rebuilt from the queue its triggers fill."""

import pytest
from django.db import connection

from errorkb.kb.models import ErrorEntry
from errorkb.search.index import search
from errorkb.search.models import FtsEntry, FtsRowid, FtsStaleEntry
from tests.builders import import_records, make_record

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite's FTS5 index"),
]


def test_it_keeps_one_row_per_published_entry_and_empties_the_queue():
    kept, rewritten, retired, draft = import_records(
        make_record("Valve stuck.", filePath="a.rs"),
        make_record("Valve bent.", filePath="b.rs"),
        make_record("Valve gone.", filePath="c.rs"),
        make_record("Valve new.", filePath="d.rs", status="draft"),
    )
    search("valve")
    for text in ("Rewritten once.", "Rewritten twice."):
        ErrorEntry.objects.filter(pk=rewritten.pk).update(documentation=text)
    ErrorEntry.objects.filter(pk=retired.pk).update(status=ErrorEntry.Status.RETIRED)
    search("valve")
    rows = sorted(FtsEntry.objects.values_list("entry_id", "rowid"))
    assert rows == sorted(FtsRowid.objects.values_list("entry_id", "rowid"))
    assert [entry_id for entry_id, _ in rows] == sorted([kept.pk, rewritten.pk])
    assert not FtsStaleEntry.objects.exists()


def test_it_finds_a_word_of_any_solution():
    import_records(make_record("Valve stuck.", solutions=["Oil it.", "Replace the gasket."]))
    assert [hit.entry.error_message for hit in search("gasket").hits] == ["Valve stuck."]
