"""Search on SQLite: an FTS5 table of published entries, brought up to date before each search.

Search's migration 0002 makes the FTS5 table, its vocabulary (fts5vocab), the rowid each
entry has there (search_rowid: never kb_errorentry's, which a table rebuild renumbers)
and triggers on the entries' table that only queue the ids a write touched
(search_stale). Triggers, on SQLite alone: they see every write of an entry's row,
through the ORM, QuerySet.update(), raw SQL or the admin, as PostgreSQL's generated
search document does, and SQLite has no such column for FTS5. An entry's tags are its
row's tags_text, which kb writes with the tags. Each search first rebuilds the queued
entries' rows in one transaction, so a write shows in the next search.

FTS5 has no fuzzy matching: a query word that finds nothing is replaced by the
indexed words most like it (the fts5vocab table, difflib). The tables are read and
written through the ORM, as unmanaged models (models.FtsEntry and its neighbours):
MATCH is a lookup on the FTS5 table's hidden column, bm25 a function of it.
"""

import difflib

from django.db import transaction
from django.db.models import (
    BooleanField,
    ExpressionWrapper,
    F,
    FloatField,
    Func,
    IntegerField,
    Max,
    OuterRef,
    Q,
    Subquery,
    Value,
)
from django.db.models.functions import Length

from errorkb.kb.models import ErrorEntry

from .models import FtsEntry, FtsRowid, FtsStaleEntry, FtsTerm
from .terms import Found, state_rank

# bm25 weights, in the FTS table's column order: entry_id (not indexed), message, tags,
# file_path, documentation, trigger_scenarios, common_situations, solutions.
WEIGHTS = (0, 10, 4, 4, 1, 1, 1, 1)
CLOSE_WORDS = 3
CLOSENESS = 0.75

# What the FTS table holds of an entry (_fts_entry).
INDEXED = (
    "id",
    "error_message",
    "tags_text",
    "file_path",
    "documentation",
    "trigger_scenarios",
    "common_situations",
    "solutions",
)


class Bm25(Func):
    """FTS5's bm25 of a row a MATCH found, its columns weighted: lower is better."""

    function = "bm25"
    output_field = FloatField()

    def __init__(self, weights, **extra):
        super().__init__(F("document"), *map(Value, weights), **extra)


def catch_up() -> None:
    """Rebuild the rows of the entries queued since the last search, in one transaction."""
    last = FtsStaleEntry.objects.aggregate(last=Max("seq"))["last"]
    if last is None:
        return
    # Only what was read: an id queued meanwhile waits for the next search.
    queued = FtsStaleEntry.objects.filter(seq__lte=last)
    with transaction.atomic():
        _refresh(queued.values("entry_id"))
        queued.delete()


def _refresh(ids) -> None:
    """Give each of the entries `ids` (a subquery) a new FTS row if it is published, and
    none otherwise."""
    rowids = FtsRowid.objects.filter(entry_id__in=ids)
    FtsEntry.objects.filter(rowid__in=rowids.values("rowid")).delete()
    rowids.delete()
    published = ErrorEntry.objects.published().filter(id__in=ids).order_by()
    entries = list(published.values_list(*INDEXED, named=True))
    FtsRowid.objects.bulk_create(FtsRowid(entry_id=entry.id) for entry in entries)
    # Read back, not paired by RETURNING's order, which SQLite does not promise.
    rowid_of = dict(rowids.values_list("entry_id", "rowid"))
    FtsEntry.objects.bulk_create(_fts_entry(rowid_of[entry.id], entry) for entry in entries)


def _fts_entry(rowid: int, entry) -> FtsEntry:
    """The FTS row of an entry read as INDEXED."""
    return FtsEntry(
        rowid=rowid,
        entry_id=entry.id,
        message=entry.error_message,
        tags=entry.tags_text,
        file_path=entry.file_path or "",
        documentation=entry.documentation,
        trigger_scenarios=entry.trigger_scenarios,
        common_situations=entry.common_situations,
        # As SQLite's group_concat(value, ' ') joined them: none is no text.
        solutions=" ".join(entry.solutions) or None,
    )


def find(words: list[str], *, limit: int, offset: int, candidates: int) -> Found:
    """The page of published entries matching every word, best first, and how many match
    (counted up to `candidates`; FTS5 ranks every match, bm25 needing no bound here)."""
    groups = [[word] for word in words]
    rows, total = _page_and_count(groups, limit=limit, offset=offset, most=candidates)
    if not total:
        # Nothing for the words as typed: correct those the index does not know.
        corrected = [[word] if _count([[word]], most=1) else _closest(word) for word in words]
        if corrected != groups:
            groups = corrected
            rows, total = _page_and_count(groups, limit=limit, offset=offset, most=candidates)
    scored = [(entry_id, float(score)) for entry_id, score in rows]
    corrections = {
        word: group for word, group in zip(words, groups, strict=True) if group != [word]
    }
    return Found(total, scored, [word for group in groups for word in group], corrections)


def _page_and_count(
    groups: list[list[str]], *, limit: int, offset: int, most: int
) -> tuple[list[tuple[str, float]], int]:
    """The page, and how many match, up to `most`."""
    rows = _page(groups, limit=limit, offset=offset)
    # A page short of the limit is the last (unless it lies past the last): no need to count.
    if len(rows) < limit and (rows or not offset):
        return rows, offset + len(rows)
    return rows, _count(groups, most=most)


def _page(groups: list[list[str]], *, limit: int, offset: int) -> list[tuple[str, float]]:
    """First the entries whose message holds every word (the second MATCH, of the message
    column alone), each tier in the order of their states, then by bm25."""
    match = _match(groups)
    in_message = FtsEntry.objects.filter(document__match=f"message : ({match})")
    states = ErrorEntry.objects.filter(pk=OuterRef("entry_id")).order_by()
    states = states.annotate(rank=state_rank())
    page = (
        FtsEntry.objects.filter(document__match=match)
        .annotate(
            score=-Bm25(WEIGHTS),
            outside_message=ExpressionWrapper(
                ~Q(entry_id__in=in_message.values("entry_id")), output_field=BooleanField()
            ),
            state=Subquery(states.values("rank"), output_field=IntegerField()),
        )
        .order_by("outside_message", "state", "-score", "entry_id")
        .values_list("entry_id", "score")
    )
    return list(page[offset : offset + limit])


def _count(groups: list[list[str]], *, most: int) -> int:
    return FtsEntry.objects.filter(document__match=_match(groups))[:most].count()


def _match(groups: list[list[str]]) -> str:
    """FTS5 for: each group has one of its words. Words are letters and digits: no escapes."""
    return " AND ".join("(" + " OR ".join(f'"{w}"' for w in group) + ")" for group in groups)


def _closest(word: str) -> list[str]:
    candidates = (
        FtsTerm.objects.annotate(length=Length("term"))
        .filter(length__range=(len(word) - 2, len(word) + 2))
        .values_list("term", flat=True)
    )
    return difflib.get_close_matches(word, candidates, n=CLOSE_WORDS, cutoff=CLOSENESS) or [word]
