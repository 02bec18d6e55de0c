"""Knowing, in one indexed read, whether anything one entry's page shows has changed.

The content token (freshness.py) moves with every write, so a validator made from it
is emptied by any verification run anywhere. An entry page shows that entry's rows,
the entries it links to or is linked from, and rows of tables not keyed by any entry
(its repository, tag names, scenario set-ups, scanned releases). So triggers keep:

- one EntryVersion row per entry, moved by every write to a row keyed by that entry:
  the entry itself, its tags, related links (both ends), runs, stored state, scenario
  links, reports; whichever table has a foreign key to ErrorEntry;
- the CATALOG row of ContentVersion, moved by every write to any other watched table.

Which table is which is read from the models' foreign keys after every migrate, so a
new table is watched without anyone listing it. The pending mark of freshness.py
(PostgreSQL) is part of every token, so a transaction sees its own writes.

PostgreSQL: entry versions are written by statement-level triggers over transition
tables, so a bulk insert of 10,000 runs costs one upsert statement, ordered by entry
id so that two writers lock rows in the same order. The catalog row, one hot row like
the content token, is written at commit by a deferred trigger, once per transaction.
"""

from django.db import connections

from .freshness import PENDING_SETTING, install_on_watched, pg_bump_function
from .models import ContentVersion, EntryVersion, ErrorEntry, RelatedLink, Repository

PREFIX = "errorkb_ver"
VERSIONS = EntryVersion._meta.db_table
CONTENT = ContentVersion._meta.db_table
_PG_NEW_TOKEN = "md5(random()::text || clock_timestamp()::text)"

PG_ENTRY_FUNCTION = f"""
CREATE OR REPLACE FUNCTION {{name}}() RETURNS trigger AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO {VERSIONS} (entry_id, token)
        SELECT id, {_PG_NEW_TOKEN} FROM ({{new}}) AS changed WHERE id IS NOT NULL ORDER BY id
        ON CONFLICT (entry_id) DO UPDATE SET token = EXCLUDED.token;
    ELSIF TG_OP = 'UPDATE' THEN
        INSERT INTO {VERSIONS} (entry_id, token)
        SELECT id, {_PG_NEW_TOKEN} FROM ({{new}} UNION {{old}}) AS changed
        WHERE id IS NOT NULL ORDER BY id
        ON CONFLICT (entry_id) DO UPDATE SET token = EXCLUDED.token;
    ELSE
        INSERT INTO {VERSIONS} (entry_id, token)
        SELECT id, {_PG_NEW_TOKEN} FROM ({{old}}) AS changed WHERE id IS NOT NULL ORDER BY id
        ON CONFLICT (entry_id) DO UPDATE SET token = EXCLUDED.token;
    END IF;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql
"""
PG_ENTRY_TRIGGERS = {
    "insert": "AFTER INSERT ON {table} REFERENCING NEW TABLE AS new_rows",
    "update": "AFTER UPDATE ON {table} REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows",
    "delete": "AFTER DELETE ON {table} REFERENCING OLD TABLE AS old_rows",
}
PG_CATALOG_FUNCTION = pg_bump_function(
    f"{PREFIX}_catalog", row=ContentVersion.CATALOG, flag="errorkb.catalog_in"
)
PG_CATALOG_TRIGGER = (
    "CREATE CONSTRAINT TRIGGER {name} AFTER INSERT OR UPDATE OR DELETE ON {table} "
    f"DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION {PREFIX}_catalog()"
)
# TRUNCATE names no rows: every entry page's token holds the catalog's, so move that.
PG_TRUNCATE_TRIGGER = (
    "CREATE TRIGGER {name} AFTER TRUNCATE ON {table} "
    f"FOR EACH STATEMENT EXECUTE FUNCTION {PREFIX}_catalog()"
)

_SQLITE_NEW_TOKEN = "lower(hex(randomblob(16)))"
SQLITE_ENTRY_TRIGGER = f"""
CREATE TRIGGER IF NOT EXISTS {{name}} AFTER {{operation}} ON "{{table}}" BEGIN
    INSERT INTO {VERSIONS} (entry_id, token)
    SELECT id, {_SQLITE_NEW_TOKEN} FROM ({{ids}}) WHERE id IS NOT NULL
    ON CONFLICT (entry_id) DO UPDATE SET token = excluded.token;
END
"""
SQLITE_CATALOG_TRIGGER = f"""
CREATE TRIGGER IF NOT EXISTS {{name}} AFTER {{operation}} ON "{{table}}" BEGIN
    INSERT INTO {CONTENT} (id, token) VALUES ({ContentVersion.CATALOG}, {_SQLITE_NEW_TOKEN})
    ON CONFLICT (id) DO UPDATE SET token = excluded.token;
END
"""

_LINKS = RelatedLink._meta.db_table
_ENTRIES = ErrorEntry._meta.db_table
_REPOS = Repository._meta.db_table
# The entry asked for, the entries its page shows beside it, and the catalog: one read.
# A slug address resolves in the same read, through the unique (owner, name) and
# (repository, slug) indexes.
ENTRY_QUERY = f"""
WITH asked(id) AS ({{asked}})
SELECT 'catalog', token FROM {CONTENT} WHERE id = {ContentVersion.CATALOG}
UNION ALL SELECT 'entry', id FROM asked
UNION ALL SELECT v.entry_id, v.token FROM {VERSIONS} v WHERE v.entry_id IN (
    SELECT id FROM asked
    UNION SELECT l.target_id FROM {_LINKS} l JOIN asked ON l.source_id = asked.id
    UNION SELECT l.source_id FROM {_LINKS} l JOIN asked ON l.target_id = asked.id
)
"""
ASKED_BY_ID = "SELECT CAST(%s AS text)"
ASKED_BY_SLUG = (
    f"SELECT e.id FROM {_ENTRIES} e JOIN {_REPOS} r ON r.id = e.repository_id"
    " WHERE r.owner = %s AND r.name = %s AND e.slug = %s"
)
PG_PENDING = f"UNION ALL SELECT 'pending', current_setting('{PENDING_SETTING}', true)"


def entry_token(entry_id: str | None = None, *, slug: tuple[str, str, str] | None = None) -> str:
    """What one entry's page shows, as a token: its version, its neighbours', the catalog's.

    By id, or by slug as (owner, name, slug); one indexed read either way.
    """
    connection = connections["default"]
    asked, params = (ASKED_BY_SLUG, list(slug)) if slug else (ASKED_BY_ID, [entry_id])
    query = ENTRY_QUERY.format(asked=asked)
    if connection.vendor == "postgresql":
        query += PG_PENDING
    with connection.cursor() as cursor:
        cursor.execute(query, params)
        rows = cursor.fetchall()
    return "|".join(f"{key}={value or ''}" for key, value in sorted(rows, key=_by_key))


def _by_key(row: tuple) -> tuple:
    return (str(row[0]), str(row[1] or ""))


def entry_columns(model) -> list[str]:
    """The columns naming the entry a row of `model` belongs to; [] for a catalog table."""
    if model is ErrorEntry:
        return [model._meta.pk.column]
    return [
        field.column
        for field in model._meta.concrete_fields
        if field.is_relation and field.related_model is ErrorEntry
    ]


def install_version_triggers(*, using: str = "default") -> None:
    """Create whichever entry-version and catalog triggers are missing."""
    install_on_watched(using, EntryVersion, postgresql=_install_postgresql, sqlite=_install_sqlite)


def _tables(models: list) -> list[tuple[str, list[str]]]:
    return sorted((model._meta.db_table, entry_columns(model)) for model in models)


def _install_postgresql(cursor, models: list) -> None:
    cursor.execute(PG_CATALOG_FUNCTION)
    cursor.execute("SELECT tgname FROM pg_trigger WHERE tgname LIKE %s", [f"{PREFIX}%"])
    present = {name for (name,) in cursor.fetchall()}

    def create(kind: str, table: str, sql: str) -> None:
        name = _name(kind, table)
        if name not in present:
            cursor.execute(sql.format(name=name, table=table))

    for table, columns in _tables(models):
        create("truncate", table, PG_TRUNCATE_TRIGGER)
        if not columns:
            create("catalog", table, PG_CATALOG_TRIGGER)
            continue
        function = _name("fn", table)
        ids = {
            rows: " UNION ".join(
                f"SELECT DISTINCT {column} AS id FROM {rows}_rows" for column in columns
            )
            for rows in ("new", "old")
        }
        cursor.execute(PG_ENTRY_FUNCTION.format(name=function, **ids))
        for kind, timing in PG_ENTRY_TRIGGERS.items():
            sql = (
                f"CREATE TRIGGER {{name}} {timing} FOR EACH STATEMENT EXECUTE FUNCTION {function}()"
            )
            create(kind, table, sql)


def _install_sqlite(cursor, models: list) -> None:
    for table, columns in _tables(models):
        for operation, images in (("INSERT", "NEW"), ("UPDATE", "NEW OLD"), ("DELETE", "OLD")):
            name = _name(operation.lower(), table)
            if not columns:
                sql = SQLITE_CATALOG_TRIGGER.format(name=name, operation=operation, table=table)
            else:
                ids = " UNION ".join(
                    f"SELECT {image}.{column} AS id"
                    for image in images.split()
                    for column in columns
                )
                sql = SQLITE_ENTRY_TRIGGER.format(
                    name=name, operation=operation, table=table, ids=ids
                )
            cursor.execute(sql)


def _name(kind: str, table: str) -> str:
    return f"{PREFIX}_{kind}_{table}"
