"""On PostgreSQL no writer of entries waits for another's open transaction: each entry's
search document is its own row's, and the vocabulary is written by searches, not writers."""

import threading

import pytest
from django.db import connection, connections, transaction

from errorkb.kb.models import ErrorEntry
from errorkb.search.index import search
from tests.builders import import_records, make_record

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        connection.vendor != "postgresql", reason="SQLite writers take turns whatever the index"
    ),
]


def test_a_writer_adding_a_word_never_waits_for_another_that_added_it_too():
    first, second = import_records(
        make_record("Valve stuck.", filePath="a.rs"), make_record("Hatch stuck.", filePath="b.rs")
    )
    started, release = threading.Event(), threading.Event()

    def open_writer():
        # The new word, added and not yet committed: as a verification run's save can be.
        try:
            with transaction.atomic():
                ErrorEntry.objects.filter(pk=first.pk).update(documentation="Zanzibar.")
                started.set()
                release.wait(10)
        finally:
            connections.close_all()

    thread = threading.Thread(target=open_writer)
    thread.start()
    try:
        assert started.wait(10)
        with transaction.atomic(), connection.cursor() as cursor:
            # A wait for the open transaction would raise here rather than pass unseen.
            cursor.execute("SET LOCAL lock_timeout = '2s'")
            ErrorEntry.objects.filter(pk=second.pk).update(documentation="Zanzibar too.")
    finally:
        release.set()
        thread.join(10)
    assert {hit.entry.pk for hit in search("zanzibar").hits} == {first.pk, second.pk}
