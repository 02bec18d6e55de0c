"""Search published entries by words: one Python API over both databases.

    search("chekpoint", limit=20, offset=0) -> SearchPage(count, hits, count_capped)

Each hit has the entry, its state (per_release.py: entry-wide), a score (higher is better;
comparable within one search only) and snippets with the matched words in <mark>. Entries
whose message holds every word come first; within each tier, proven entries (stored state
verified) before the others, and unreachable ones last. At most MAX_RANKED matches are
ranked and counted. The index behind it is the database's own: PostgreSQL full-text
search over each entry's generated search document, and pg_trgm (postgresql.py), or
SQLite's FTS5 (sqlite.py).
"""

from collections import defaultdict
from dataclasses import dataclass

from django.db import connections, transaction

from errorkb.kb.models import EntryTag, ErrorEntry
from errorkb.verification.state.per_release import AtRelease, claims_of_entries, state_at

from . import postgresql, sqlite
from .snippets import Matcher, Snippet, snippets_for
from .terms import query_words

VENDORS = {"postgresql": postgresql, "sqlite": sqlite}


@dataclass(frozen=True)
class SearchHit:
    """One published entry that matched, how well, where, and what errorkb knows of it."""

    entry: ErrorEntry
    score: float
    snippets: list[Snippet]
    state: AtRelease  # entry-wide: its state and the sentence that sums up its claims


# A search ranks and counts at most this many matches: ranking and counting every match
# of a broad query read most of the index (issue 28: "base.rs" matches a third of 100,000
# entries, 140 ms on PostgreSQL).
MAX_RANKED = 1000


@dataclass(frozen=True)
class SearchPage:
    """How many published entries match, and the hits of one page, best first.

    `count_capped`: more than `count` (MAX_RANKED) match, and only that many are ranked.
    `searched_for`: the words searched, when some of the query's were corrected (chekpoint:
    checkpoint); None when the query's own words were.
    """

    count: int
    hits: list[SearchHit]
    count_capped: bool
    searched_for: str | None = None


def search(query: str, *, limit: int = 20, offset: int = 0) -> SearchPage:
    """Published entries matching every word of `query` (or, misspelt, words like them).

    The first MAX_RANKED of them, ranked: past it, `count` stops there and says so.
    """
    # Pages past the ranked ones have no hit (an offset from the address may be one no
    # SQL integer holds): the same empty page, counted.
    offset = min(offset, MAX_RANKED)
    limit = min(limit, MAX_RANKED - offset)
    words = query_words(query)
    connection = connections["default"]
    vendor = VENDORS.get(connection.vendor)
    if not words or vendor is None:
        return SearchPage(0, [], count_capped=False)
    with transaction.atomic():
        if vendor is sqlite:
            sqlite.catch_up()
        # One candidate more than are ranked: it tells that more match.
        found = vendor.find(words, limit=limit, offset=offset, candidates=MAX_RANKED + 1)
    ids = [entry_id for entry_id, _ in found.scored]
    entries, tags, matcher = _entries(ids), _tag_names(ids), Matcher(found.words)
    claims = claims_of_entries(entries.values()) if entries else {}
    hits = [
        SearchHit(
            entry,
            score,
            snippets_for(entry, tags[entry_id], matcher),
            state_at(entry, None, claims[entry_id]),
        )
        for entry_id, score in found.scored
        if (entry := entries.get(entry_id))
    ]
    return SearchPage(
        min(found.count, MAX_RANKED),
        hits,
        count_capped=found.count > MAX_RANKED,
        searched_for=_searched_for(words, found.corrections),
    )


def _searched_for(words: list[str], corrections: dict[str, list[str]]) -> str | None:
    """The query's words, each corrected one as the word closest to it."""
    if not corrections:
        return None
    return " ".join(corrections[word][0] if word in corrections else word for word in words)


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
