"""Search on PostgreSQL: a weighted tsvector per published entry, and trigrams of its message.

search_document (made by its migration 0001) holds one row per published entry: its
message, for pg_trgm's word similarity; a tsvector weighted A for the message, B for the
tags and the file path, C for the rest; and that tsvector's head (A and B), for ranking.
Statement-level triggers on the entry, tag and entry-tag tables rebuild the rows a
statement touched, in its own transaction, from the tables themselves: a write through
the ORM, QuerySet.update(), raw SQL or the admin shows in the next search, and a
rolled-back one never does.
"""

from errorkb.kb.models import EntryTag, ErrorEntry, Tag

from .terms import Found

TABLE = "search_document"
PREFIX = "search"
CONFIG = "english"

_ENTRY = ErrorEntry._meta.db_table
_ENTRY_TAG = EntryTag._meta.db_table
_TAG = Tag._meta.db_table
_PUBLISHED = ErrorEntry.Status.PUBLISHED.value

# File paths become words (crates/burn-train/src/learner/base.rs: crates burn train ...):
# the parser would keep a path as one token no query word equals.
REFRESH_FUNCTION = f"""
CREATE OR REPLACE FUNCTION {PREFIX}_refresh(ids text[]) RETURNS void AS $$
BEGIN
    DELETE FROM {TABLE} d WHERE d.entry_id = ANY(ids) AND NOT EXISTS (
        SELECT 1 FROM {_ENTRY} e WHERE e.id = d.entry_id AND e.status = '{_PUBLISHED}');
    INSERT INTO {TABLE} (entry_id, message, head, document)
    SELECT e.id, e.error_message, h.head, h.head
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
    ON CONFLICT (entry_id) DO UPDATE
        SET message = EXCLUDED.message, head = EXCLUDED.head, document = EXCLUDED.document;
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
# Every entry that has a row or could: what a rebuild refreshes.
EVERY_ENTRY = f"SELECT entry_id FROM {TABLE} UNION SELECT id FROM {_ENTRY}"
# TRUNCATE has no rows to name (flush truncates the tables of every model at once).
TRUNCATED_FUNCTION = f"""
CREATE OR REPLACE FUNCTION {PREFIX}_truncated() RETURNS trigger AS $$
BEGIN
    PERFORM {PREFIX}_refresh(ARRAY({EVERY_ENTRY}));
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

# Words first, weighed by field. Only when they find nothing, messages like the query
# (pg_trgm's word similarity): a misspelt or half-remembered message. Each has its index.
WORDS_MATCH = f"""
FROM {TABLE} d, plainto_tsquery('{CONFIG}', %(words)s) query WHERE d.document @@ query
"""
# Ranked by the head alone (message A, tags and path B): ts_rank over a few lexemes,
# not the whole document's hundreds. Entries matching only in the rest (weight C) rank
# after, in id order.
WORDS_SCORE = "ts_rank(d.head, query)"
LIKE_MATCH = f"FROM {TABLE} d WHERE %(words)s <%% d.message"
LIKE_SCORE = "word_similarity(%(words)s, d.message)"
# The count over the scored ids alone: a window over whole rows would copy every head.
PAGE_QUERY = """
SELECT entry_id, score, count(*) OVER () AS total
FROM (SELECT d.entry_id, {score} AS score {match}) scored
ORDER BY score DESC, entry_id LIMIT %(limit)s OFFSET %(offset)s
"""


def install(cursor) -> None:
    """(Re)create the functions and triggers, then rebuild every row from the entries."""
    cursor.execute(REFRESH_FUNCTION)
    cursor.execute(TRUNCATED_FUNCTION)
    for table, (function, ids, operations) in WATCHED.items():
        name = f"{PREFIX}_{function}"
        new, old = ids.format(rows="new_rows"), ids.format(rows="old_rows")
        cursor.execute(CHANGED_FUNCTION.format(name=name, prefix=PREFIX, new=new, old=old))
        for operation in operations:
            _trigger(cursor, table, operation, name)
    for table in (_ENTRY, _ENTRY_TAG):
        _trigger(cursor, table, "TRUNCATE", f"{PREFIX}_truncated")
    cursor.execute(f"SELECT {PREFIX}_refresh(ARRAY({EVERY_ENTRY}))")


def _trigger(cursor, table: str, operation: str, function: str) -> None:
    name = f"{PREFIX}_{table}_{operation.lower()}"
    cursor.execute(f"DROP TRIGGER IF EXISTS {name} ON {table}")
    cursor.execute(
        f"CREATE TRIGGER {name} AFTER {operation} ON {table} {REFERENCING[operation]} "
        f"FOR EACH STATEMENT EXECUTE FUNCTION {function}()"
    )


def find(cursor, words: list[str], *, limit: int, offset: int) -> Found:
    """The page of published entries matching `words`, best first, and how many match."""
    params = {"words": " ".join(words), "limit": limit, "offset": offset}
    total, rows = _page(cursor, WORDS_MATCH, WORDS_SCORE, params)
    if not total:
        total, rows = _page(cursor, LIKE_MATCH, LIKE_SCORE, params)
    return Found(total, [(entry_id, float(score)) for entry_id, score, _ in rows], words)


def _page(cursor, match: str, score: str, params: dict) -> tuple[int, list[tuple]]:
    cursor.execute(PAGE_QUERY.format(match=match, score=score), params)
    rows = cursor.fetchall()
    if rows:
        return rows[0][2], rows
    cursor.execute(f"SELECT count(*) {match}", params)
    return cursor.fetchone()[0], rows
