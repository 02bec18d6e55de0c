"""Search on SQLite: an FTS5 table of published entries, brought up to date before each search.

Search's migrations make the FTS5 table, its vocabulary (fts5vocab), the rowid each
entry has there (search_rowid: never kb_errorentry's, which a table rebuild renumbers)
and triggers on the entries' table that only queue the ids a write touched
(search_stale). Triggers, on SQLite alone: they see every write of an entry's row,
through the ORM, QuerySet.update(), raw SQL or the admin, as PostgreSQL's generated
search document does, and SQLite has no such column for FTS5. An entry's tags are its
row's tags_text, which kb writes with the tags. Each search first rebuilds the queued
entries' rows in its own transaction, so a write shows in the next search.

FTS5 has no fuzzy matching: a query word that finds nothing is replaced by the
indexed words most like it (the fts5vocab table, difflib). The statements are SQL: FTS5
tables and their MATCH, bm25 and vocabulary have no form in the ORM.
"""

import difflib

from errorkb.kb.models import ErrorEntry

from .terms import STATE_RANK, Found

FTS = "search_fts"
VOCAB = "search_vocab"
ROWIDS = "search_rowid"
STALE = "search_stale"

_ENTRY = ErrorEntry._meta.db_table
_PUBLISHED = ErrorEntry.Status.PUBLISHED.value

# bm25 weights, in the FTS table's column order: entry_id (not indexed), message, tags,
# file_path, documentation, trigger_scenarios, common_situations, solutions.
WEIGHTS = "0, 10, 4, 4, 1, 1, 1, 1"
CLOSE_WORDS = 3
CLOSENESS = 0.75

# The entries queued up to %(last)s.
QUEUED_IDS = f"SELECT entry_id FROM {STALE} WHERE seq <= %(last)s"
REFRESH = [
    f"DELETE FROM {FTS} WHERE rowid IN (SELECT rowid FROM {ROWIDS} WHERE entry_id IN ({{ids}}))",
    f"DELETE FROM {ROWIDS} WHERE entry_id IN ({{ids}})",
    f"INSERT INTO {ROWIDS} (entry_id) SELECT id FROM {_ENTRY} "
    f"WHERE id IN ({{ids}}) AND status = '{_PUBLISHED}'",
    f"""INSERT INTO {FTS} (rowid, entry_id, message, tags, file_path, documentation,
        trigger_scenarios, common_situations, solutions)
    SELECT r.rowid, e.id, e.error_message, e.tags_text, coalesce(e.file_path, ''),
        e.documentation, e.trigger_scenarios, e.common_situations,
        (SELECT group_concat(value, ' ') FROM json_each(e.solutions))
    FROM {_ENTRY} e JOIN {ROWIDS} r ON r.entry_id = e.id
    WHERE e.id IN ({{ids}}) AND e.status = '{_PUBLISHED}'""",
]

MATCHES = f"FROM {FTS} WHERE {FTS} MATCH %s"
# Whether the entry e has a raised appliesTo row, and any row (terms.STATE_RANK).
RAISED = (
    "EXISTS (SELECT 1 FROM json_each(e.applies_to) r "
    "WHERE json_extract(r.value, '$.outcome') = 'raised')"
)
ROWS = "coalesce(json_array_length(e.applies_to), 0) > 0"
# bm25 is refused beside a window function, hence the inner query. First the entries
# whose message holds every word (the second MATCH, the message column's alone), each
# tier in the order of their states, then by bm25.
PAGE_QUERY = f"""
SELECT entry_id, score, count(*) OVER () AS total
FROM (SELECT entry_id, -bm25({FTS}, {WEIGHTS}) AS score {MATCHES}) found
ORDER BY found.entry_id NOT IN (SELECT entry_id {MATCHES}),
    {STATE_RANK.format(entry_id="found.entry_id", raised=RAISED, rows=ROWS)}, score DESC,
    found.entry_id
LIMIT %s OFFSET %s
"""


def catch_up(cursor) -> None:
    """Rebuild the rows of the entries queued since the last search."""
    cursor.execute(f"SELECT max(seq) FROM {STALE}")
    (last,) = cursor.fetchone()
    if last is None:
        return
    # Only what was read: an id queued meanwhile waits for the next search.
    _refresh(cursor, QUEUED_IDS, {"last": last})
    cursor.execute(f"DELETE FROM {STALE} WHERE seq <= %s", [last])


def _refresh(cursor, ids: str, params: dict | None) -> None:
    for statement in REFRESH:
        cursor.execute(statement.format(ids=ids), params)


def find(cursor, words: list[str], *, limit: int, offset: int, candidates: int) -> Found:
    """The page of published entries matching every word, best first, and how many match
    (counted up to `candidates`; FTS5 ranks every match, bm25 needing no bound here)."""
    groups = [[word] for word in words]
    rows = _page(cursor, groups, limit=limit, offset=offset)
    if not rows and not _count(cursor, groups, most=1):
        # Nothing for the words as typed: correct those the index does not know.
        groups = [
            [word] if _count(cursor, [[word]], most=1) else _closest(cursor, word) for word in words
        ]
        rows = _page(cursor, groups, limit=limit, offset=offset)
    total = min(rows[0][2], candidates) if rows else _count(cursor, groups, most=candidates)
    scored = [(entry_id, float(score)) for entry_id, score, _ in rows]
    corrections = {
        word: group for word, group in zip(words, groups, strict=True) if group != [word]
    }
    return Found(total, scored, [word for group in groups for word in group], corrections)


def _page(cursor, groups: list[list[str]], *, limit: int, offset: int) -> list[tuple]:
    match = _match(groups)
    cursor.execute(PAGE_QUERY, [match, f"message : ({match})", limit, offset])
    return cursor.fetchall()


def _count(cursor, groups: list[list[str]], *, most: int) -> int:
    cursor.execute(f"SELECT count(*) FROM (SELECT 1 {MATCHES} LIMIT %s)", [_match(groups), most])
    return cursor.fetchone()[0]


def _match(groups: list[list[str]]) -> str:
    """FTS5 for: each group has one of its words. Words are letters and digits: no escapes."""
    return " AND ".join("(" + " OR ".join(f'"{w}"' for w in group) + ")" for group in groups)


def _closest(cursor, word: str) -> list[str]:
    cursor.execute(
        f"SELECT term FROM {VOCAB} WHERE length(term) BETWEEN %s AND %s",
        [len(word) - 2, len(word) + 2],
    )
    candidates = [term for (term,) in cursor.fetchall()]
    return difflib.get_close_matches(word, candidates, n=CLOSE_WORDS, cutoff=CLOSENESS) or [word]
