"""Search on PostgreSQL: the entries' own search documents, and the words they hold.

Each entry's search document (ErrorEntry.search_document) is a tsvector generated from
its row, weighted A for the message, B for its tags and file path, C for the rest; its
head (search_head) is the same of the message, tags and file path alone, small enough
to rank by. PostgreSQL keeps both on every write of the row, through the ORM,
QuerySet.update(), raw SQL or the admin, so a change shows in the next search and a
rolled-back one never does. Its tags are the row's tags_text, which kb writes with the
tags. Search's migration 0002 indexes the published entries' vectors with GIN, once per
tier below.
The vocabulary (models.Lexeme, with pg_trgm's index) corrects a misspelt word; it is
brought up to date before each correction, from the entries written since the last.

The queries are SQL (one reason each, said where they are): the ORM has no form for
a union of LIMITed tier scans counted by a window, nor for a tsvector's lexemes.
"""

from django.db.models import Max

from errorkb.kb.models import ErrorEntry
from errorkb.kb.models.entries import SEARCH_CONFIG as CONFIG

from .models import Lexeme, VocabularyUpdate
from .terms import STATE_RANK, Found

VOCABULARY = Lexeme._meta.db_table
CLOSE_WORDS = 3
CLOSENESS = 0.5  # pg_trgm similarity: chekpoint~checkpoint 0.62, chekpoint~point 0.33

_ENTRY = ErrorEntry._meta.db_table
_PUBLISHED = ErrorEntry.Status.PUBLISHED.value

# The lexemes a query word could be (letters and digits: no /checkpoint/model- from a
# path in the prose) of the published entries written since the last catch-up, those
# the vocabulary lacks. Only the distinct lexemes are matched and looked up.
CATCH_UP = f"""
INSERT INTO {VOCABULARY} (lexeme)
SELECT w.lexeme FROM (
    SELECT DISTINCT lexeme
    FROM {_ENTRY} e, unnest(tsvector_to_array(e.search_document)) lexeme
    WHERE e.status = '{_PUBLISHED}' AND e.updated_at <= %(up_to)s
        AND (%(since)s::timestamptz IS NULL OR e.updated_at >= %(since)s)
) w
WHERE w.lexeme ~ '^[[:alnum:]]+$'
    AND NOT EXISTS (SELECT FROM {VOCABULARY} v WHERE v.lexeme = w.lexeme)
"""

# Ranking and counting every match of a broad query read most of the table (a third of
# it for "base.rs"). A search ranks candidates instead: the matches first found, at most
# `candidates` of them, in tiers, each read through its own GIN index and only while
# those before it leave room: every word in the message, then in the message, tags and
# file path (the head), then anywhere. Within a tier, ts_rank of the head: a message and
# tag hit before a message hit. The score adds the tiers still below to ts_rank (at most
# 1), so a higher score is a better hit.
# The head's weight A (the message), as its index has it; the head.
MESSAGE = "ts_filter(e.search_head, '{{a}}')"
HEAD = "e.search_head"
TIERS = [
    f"{MESSAGE} @@ {{query}}",
    f"{HEAD} @@ {{query}} AND NOT {MESSAGE} @@ {{query}}",
    f"e.search_document @@ {{query}} AND NOT {HEAD} @@ {{query}}",
]
CANDIDATES = " UNION ALL ".join(
    f"""(SELECT e.id AS entry_id, {tier} AS tier,
        {len(TIERS) - tier} + ts_rank({HEAD}, {{query}}) AS score
    FROM {_ENTRY} e WHERE e.status = '{_PUBLISHED}' AND {match} LIMIT %(candidates)s)"""
    for tier, match in enumerate(TIERS, start=1)
)
# Whether the entry e has a raised appliesTo row, and any row (terms.STATE_RANK). The
# braces are doubled: the page's query is formatted once more, with the tsquery.
RAISED = """coalesce(e.applies_to @> '[{{"outcome": "raised"}}]', false)"""
ROWS = "coalesce(jsonb_typeof(e.applies_to) = 'array' AND e.applies_to <> '[]', false)"
# The window counts the candidates (before the page's LIMIT): how many match, up to them.
# Within a tier, the entries in the order of their states.
PAGE_QUERY = f"""
SELECT entry_id, score, count(*) OVER () AS total
FROM (SELECT * FROM ({CANDIDATES}) tiers LIMIT %(candidates)s) candidates
ORDER BY tier, {STATE_RANK.format(entry_id="candidates.entry_id", raised=RAISED, rows=ROWS)},
    score DESC, entry_id
LIMIT %(limit)s OFFSET %(offset)s
"""
COUNT_QUERY = f"SELECT count(*) FROM (SELECT 1 FROM ({CANDIDATES}) tiers LIMIT %(candidates)s) c"
# The query as typed, or as corrected: lexemes, which parsed again could change.
TYPED = f"plainto_tsquery('{CONFIG}', %(words)s)"
CORRECTED = "%(corrected)s::tsquery"

# Each query word's lexeme (none for a stop word) and, for one that no published entry
# holds, the known lexemes most like it.
CORRECTIONS = f"""
SELECT q.word, l.lexeme, alike.lexeme
FROM unnest(%(words)s::text[]) WITH ORDINALITY q(word, position)
CROSS JOIN LATERAL unnest(to_tsvector('{CONFIG}', q.word)) l
LEFT JOIN LATERAL (
    SELECT DISTINCT v.lexeme, similarity(v.lexeme, l.lexeme) AS similarity
    FROM {VOCABULARY} v
    WHERE NOT EXISTS (SELECT FROM {VOCABULARY} known WHERE known.lexeme = l.lexeme)
        AND v.lexeme %% l.lexeme AND similarity(v.lexeme, l.lexeme) >= {CLOSENESS}
    ORDER BY similarity DESC, v.lexeme LIMIT {CLOSE_WORDS}
) alike ON true
ORDER BY q.position, alike.similarity DESC
"""


def find(cursor, words: list[str], *, limit: int, offset: int, candidates: int) -> Found:
    """The page of published entries matching `words`, best first, and how many match.

    Only when the words find nothing, a word no entry holds is replaced by the words
    most like it (chekpoint: checkpoint), and the search runs again.
    """
    # Planned for these words, each time: a prepared statement's generic plan, blind to
    # them, reads a common word's whole posting list (base.rs: 12 ms, not 6). The caller's
    # transaction ends the setting.
    cursor.execute("SET LOCAL plan_cache_mode = force_custom_plan")
    params = {"words": " ".join(words), "limit": limit, "offset": offset, "candidates": candidates}
    total, rows = _page(cursor, TYPED, params)
    corrections = {}
    if not total:
        corrected, marked, corrections = _corrected(cursor, words)
        if corrected is None:
            return Found(0, [], words)
        total, rows = _page(cursor, CORRECTED, {**params, "corrected": corrected})
        words = marked
    scored = [(entry_id, float(score)) for entry_id, score, _ in rows]
    return Found(total, scored, words, corrections)


def _page(cursor, query: str, params: dict) -> tuple[int, list[tuple]]:
    cursor.execute(PAGE_QUERY.format(query=query), params)
    rows = cursor.fetchall()
    if rows:
        return rows[0][2], rows
    cursor.execute(COUNT_QUERY.format(query=query), params)
    return cursor.fetchone()[0], rows


def _corrected(cursor, words: list[str]) -> tuple[str | None, list[str], dict[str, list[str]]]:
    """A tsquery of the words, each unknown one as any of the known ones like it (or as
    itself, when none is); the words to mark: a known word as typed, else those; and the
    corrected words with what they were searched as."""
    _catch_up(cursor)
    cursor.execute(CORRECTIONS, {"words": words})
    alternatives: dict[str, list[str]] = {}
    lexemes: dict[str, str] = {}
    for word, lexeme, close in cursor.fetchall():
        lexemes[word] = lexeme
        alternatives.setdefault(word, []).extend([close] if close else [])
    corrections = {word: found for word, found in alternatives.items() if found}
    if not lexemes:
        return None, words, corrections  # stop words only
    groups = [alternatives[word] or [lexeme] for word, lexeme in lexemes.items()]
    marked = [m for word in lexemes for m in (alternatives[word] or [word])]
    query = " & ".join("(" + " | ".join(map(_quoted, group)) + ")" for group in groups)
    return query, marked, corrections


def _quoted(lexeme: str) -> str:
    # tsquery's own quoting: a lexeme is taken as it is, whatever it holds.
    return "'" + lexeme.replace("\\", "\\\\").replace("'", "''") + "'"


def _catch_up(cursor) -> None:
    """Add the lexemes of the entries written since the last catch-up to the vocabulary.

    Read by updated_at: an entry written without it (raw SQL, QuerySet.update() of other
    fields) adds its new words at its next save. The vocabulary only grows: a word of
    an entry since changed or unpublished stays, and counts as known.
    """
    since = VocabularyUpdate.objects.aggregate(last=Max("entries_written_up_to"))["last"]
    up_to = ErrorEntry.objects.aggregate(last=Max("updated_at"))["last"]
    if up_to is None or (since is not None and up_to <= since):
        return
    cursor.execute(CATCH_UP, {"since": since, "up_to": up_to})
    VocabularyUpdate.objects.create(entries_written_up_to=up_to)
