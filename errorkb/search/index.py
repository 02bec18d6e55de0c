"""Search published entries by words: one Python API over both databases.

    search("chekpoint", limit=20, offset=0) -> SearchPage(count, hits)

Each hit has the entry, a score (higher is better; comparable within one search only)
and snippets per field with the matched words in <mark>. The index behind it is the
database's own: PostgreSQL full-text search and pg_trgm (postgresql.py), or SQLite's FTS5
(sqlite.py); both are kept true to the entries by triggers, installed by install().
"""

from collections import defaultdict
from dataclasses import dataclass

from django.db import connections, transaction

from errorkb.kb.models import EntryTag, ErrorEntry

from . import postgresql, sqlite
from .snippets import Snippet, snippets_for
from .terms import query_words

VENDORS = {"postgresql": postgresql, "sqlite": sqlite}
INDEX_TABLES = {"postgresql": postgresql.TABLE, "sqlite": sqlite.FTS}


@dataclass(frozen=True)
class SearchHit:
    """One published entry that matched, how well, and where."""

    entry: ErrorEntry
    score: float
    snippets: list[Snippet]


MAX_OFFSET = 2**62  # within SQLite's and PostgreSQL's 64-bit integers


@dataclass(frozen=True)
class SearchPage:
    """How many published entries match in all, and the hits of one page, best first."""

    count: int
    hits: list[SearchHit]


def search(query: str, *, limit: int = 20, offset: int = 0) -> SearchPage:
    """Published entries matching every word of `query` (or, misspelt, words like them)."""
    # A page number from the address can make an offset no SQL integer holds; none of
    # those pages has a hit, and this one neither: the same empty page, counted.
    offset = min(offset, MAX_OFFSET)
    words = query_words(query)
    connection = connections["default"]
    vendor = VENDORS.get(connection.vendor)
    if not words or vendor is None:
        return SearchPage(0, [])
    with transaction.atomic(), connection.cursor() as cursor:
        if vendor is sqlite:
            sqlite.catch_up(cursor)
        found = vendor.find(cursor, words, limit=limit, offset=offset)
    ids = [entry_id for entry_id, _ in found.scored]
    entries, tags = _entries(ids), _tag_names(ids)
    hits = [
        SearchHit(
            entries[entry_id], score, snippets_for(entries[entry_id], tags[entry_id], found.words)
        )
        for entry_id, score in found.scored
        if entry_id in entries
    ]
    return SearchPage(found.count, hits)


def install(*, using: str = "default") -> None:
    """Install the index's triggers and rebuild it, where its tables exist (after migrate)."""
    connection = connections[using]
    vendor = VENDORS.get(connection.vendor)
    if vendor is None or INDEX_TABLES[connection.vendor] not in _tables(connection):
        return  # migrating forwards from before the index: the next migrate installs it
    with transaction.atomic(using=using), connection.cursor() as cursor:
        vendor.install(cursor)


def _tables(connection) -> set[str]:
    with connection.cursor() as cursor:
        return set(connection.introspection.table_names(cursor))


def _entries(ids: list[str]) -> dict[str, ErrorEntry]:
    # Published again: the index holds published entries only, and this says so twice.
    found = ErrorEntry.objects.published().filter(id__in=ids).select_related("repository")
    return {entry.id: entry for entry in found}


def _tag_names(ids: list[str]) -> dict[str, list[str]]:
    # Names only, in one query: model instances for every tag would cost more than the search.
    names = defaultdict(list)
    links = EntryTag.objects.filter(entry_id__in=ids).order_by("entry_id", "position")
    for entry_id, name in links.values_list("entry_id", "tag__name"):
        names[entry_id].append(name)
    return names
