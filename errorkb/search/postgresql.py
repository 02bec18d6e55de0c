"""Search on PostgreSQL: a weighted tsvector per published entry, and the words it knows.

search_document (made by the search app's migrations) holds one row per published entry:
a tsvector weighted A for the message, B for the tags and the file path, C for the rest;
and that tsvector's head (A and B), for ranking. search_lexeme holds every lexeme of
those rows, with pg_trgm's index, to correct a misspelt word. Statement-level triggers on
the entry, tag and entry-tag tables rebuild the rows a statement touched, in its own
transaction, from the tables themselves: a write through the ORM, QuerySet.update(), raw
SQL or the admin shows in the next search, and a rolled-back one never does.
"""

from errorkb.kb.models import EntryTag, ErrorEntry, Tag

from .terms import STATE_RANK, Found

TABLE = "search_document"
VOCABULARY = "search_lexeme"
PREFIX = "search"
CONFIG = "english"
CLOSE_WORDS = 3
CLOSENESS = 0.5  # pg_trgm similarity: chekpoint~checkpoint 0.62, chekpoint~point 0.33

_ENTRY = ErrorEntry._meta.db_table
_ENTRY_TAG = EntryTag._meta.db_table
_TAG = Tag._meta.db_table
_PUBLISHED = ErrorEntry.Status.PUBLISHED.value

# File paths become words (crates/burn-train/src/learner/base.rs: crates burn train ...):
# the parser would keep a path as one token no query word equals. The vocabulary holds
# the lexemes a query word could be (letters and digits: no /checkpoint/model- from a
# path in the prose) and only grows here, a lexeme being perhaps another entry's too; a
# rebuild starts it afresh. Only the distinct lexemes are matched and looked up (20,000
# new entries: 0.9 s, against 2.9 s for every row's every lexeme). It has no unique key:
# with one, a writer adding a new word would wait for any open transaction that added it
# too (a verification run's save); two adding it at once leave it twice, which the
# corrections read as once.
REFRESH_FUNCTION = f"""
CREATE OR REPLACE FUNCTION {PREFIX}_refresh(ids text[]) RETURNS void AS $$
BEGIN
    DELETE FROM {TABLE} d WHERE d.entry_id = ANY(ids) AND NOT EXISTS (
        SELECT 1 FROM {_ENTRY} e WHERE e.id = d.entry_id AND e.status = '{_PUBLISHED}');
    INSERT INTO {TABLE} (entry_id, head, document)
    SELECT e.id, h.head, h.head
        || setweight(to_tsvector('{CONFIG}', concat_ws(' ', e.documentation,
            e.trigger_scenarios, e.common_situations, s.texts)), 'C')
    FROM {_ENTRY} e
    LEFT JOIN LATERAL (
        SELECT string_agg(g.name, ' ') AS names FROM {_ENTRY_TAG} et
        JOIN {_TAG} g ON g.id = et.tag_id WHERE et.entry_id = e.id
    ) t ON true
    LEFT JOIN LATERAL (
        SELECT string_agg(x, ' ') AS texts FROM jsonb_array_elements_text(
            CASE jsonb_typeof(e.solutions) WHEN 'array' THEN e.solutions ELSE '[]' END) x
    ) s ON true
    CROSS JOIN LATERAL (
        SELECT setweight(to_tsvector('{CONFIG}', e.error_message), 'A')
            || setweight(to_tsvector('{CONFIG}', concat_ws(' ', t.names,
                translate(coalesce(e.file_path, ''), '/._-', '    '))), 'B') AS head
    ) h
    WHERE e.id = ANY(ids) AND e.status = '{_PUBLISHED}'
    ON CONFLICT (entry_id) DO UPDATE SET head = EXCLUDED.head, document = EXCLUDED.document;
    INSERT INTO {VOCABULARY} (lexeme)
    SELECT w.lexeme FROM (
        SELECT DISTINCT lexeme
        FROM {TABLE} d, unnest(tsvector_to_array(d.document)) lexeme
        WHERE d.entry_id = ANY(ids)
    ) w
    WHERE w.lexeme ~ '^[[:alnum:]]+$'
        AND NOT EXISTS (SELECT FROM {VOCABULARY} v WHERE v.lexeme = w.lexeme);
END
$$ LANGUAGE plpgsql
"""

# One function per watched table: which entries a statement's rows (new_rows, old_rows)
# touch. A tag's rename touches every entry it tags.
CHANGED_FUNCTION = """
CREATE OR REPLACE FUNCTION {name}() RETURNS trigger AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        PERFORM {prefix}_refresh(ARRAY({new}));
    ELSIF TG_OP = 'DELETE' THEN
        PERFORM {prefix}_refresh(ARRAY({old}));
    ELSE
        PERFORM {prefix}_refresh(ARRAY({new} UNION {old}));
    END IF;
    RETURN NULL;
END
$$ LANGUAGE plpgsql
"""
TAGGED = f"SELECT entry_id FROM {_ENTRY_TAG} WHERE tag_id IN (SELECT id FROM {{rows}})"
WATCHED = {
    # table: (function, the entry ids of {rows}, the operations it follows)
    _ENTRY: ("entries_changed", "SELECT id FROM {rows}", ("INSERT", "UPDATE", "DELETE")),
    _ENTRY_TAG: (
        "entry_tags_changed",
        "SELECT entry_id FROM {rows}",
        ("INSERT", "UPDATE", "DELETE"),
    ),
    _TAG: ("tags_changed", TAGGED, ("UPDATE",)),
}
# Every entry that has a row or could, and the vocabulary afresh: a rebuild.
EVERY_ENTRY = f"SELECT entry_id FROM {TABLE} UNION SELECT id FROM {_ENTRY}"
REBUILD_FUNCTION = f"""
CREATE OR REPLACE FUNCTION {PREFIX}_rebuild() RETURNS void AS $$
BEGIN
    DELETE FROM {VOCABULARY};
    PERFORM {PREFIX}_refresh(ARRAY({EVERY_ENTRY}));
END
$$ LANGUAGE plpgsql
"""
# TRUNCATE has no rows to name (flush truncates the tables of every model at once).
TRUNCATED_FUNCTION = f"""
CREATE OR REPLACE FUNCTION {PREFIX}_truncated() RETURNS trigger AS $$
BEGIN
    PERFORM {PREFIX}_rebuild();
    RETURN NULL;
END
$$ LANGUAGE plpgsql
"""
REFERENCING = {
    "INSERT": "REFERENCING NEW TABLE AS new_rows",
    "UPDATE": "REFERENCING NEW TABLE AS new_rows OLD TABLE AS old_rows",
    "DELETE": "REFERENCING OLD TABLE AS old_rows",
    "TRUNCATE": "",
}

# Ranking and counting every match of a broad query read most of the table (a third of
# it for "base.rs"). A search ranks candidates instead: the matches first found, at most
# `candidates` of them, in tiers, each read through its own GIN index and only while
# those before it leave room: every word in the message, then in the message, tags and
# file path (the head), then anywhere. Within a tier, ts_rank of the head: a message and
# tag hit before a message hit. The score adds the tiers still below to ts_rank (at most
# 1), so a higher score is a better hit.
MESSAGE = "ts_filter(d.head, '{{a}}')"  # the head's weight A, as its index has it
TIERS = [
    f"{MESSAGE} @@ {{query}}",
    f"d.head @@ {{query}} AND NOT {MESSAGE} @@ {{query}}",
    "d.document @@ {query} AND NOT d.head @@ {query}",
]
CANDIDATES = " UNION ALL ".join(
    f"""(SELECT d.entry_id, {tier} AS tier,
        {len(TIERS) - tier} + ts_rank(d.head, {{query}}) AS score
    FROM {TABLE} d WHERE {match} LIMIT %(candidates)s)"""
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


def install(cursor) -> None:
    """(Re)create the functions and triggers, then rebuild every row from the entries."""
    cursor.execute(REFRESH_FUNCTION)
    cursor.execute(REBUILD_FUNCTION)
    cursor.execute(TRUNCATED_FUNCTION)
    for table, (function, ids, operations) in WATCHED.items():
        name = f"{PREFIX}_{function}"
        new, old = ids.format(rows="new_rows"), ids.format(rows="old_rows")
        cursor.execute(CHANGED_FUNCTION.format(name=name, prefix=PREFIX, new=new, old=old))
        for operation in operations:
            _trigger(cursor, table, operation, name)
    for table in (_ENTRY, _ENTRY_TAG):
        _trigger(cursor, table, "TRUNCATE", f"{PREFIX}_truncated")
    cursor.execute(f"SELECT {PREFIX}_rebuild()")


def _trigger(cursor, table: str, operation: str, function: str) -> None:
    name = f"{PREFIX}_{table}_{operation.lower()}"
    cursor.execute(f"DROP TRIGGER IF EXISTS {name} ON {table}")
    cursor.execute(
        f"CREATE TRIGGER {name} AFTER {operation} ON {table} {REFERENCING[operation]} "
        f"FOR EACH STATEMENT EXECUTE FUNCTION {function}()"
    )


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
