"""Knowing, in one indexed read, whether anything a public page shows has changed.

One set of database triggers, installed on every table of settings.PUBLIC_PAGE_APPS,
moves random tokens whenever a write to one of them commits, whoever makes it: the ORM,
QuerySet.update(), the admin, raw SQL, another process. Every public page's validator
(errorkb.http.caching) derives from these tokens, so no write path can leave a page stale:

- the content token (ContentVersion.ROW) moves with every write: lists show many entries;
- one EntryVersion row per entry moves with every write to a row keyed by that entry:
  the entry itself, its tags, related links (both ends), runs, stored state, scenario
  links, reports; whichever table has a foreign key to ErrorEntry;
- the catalog token (ContentVersion.CATALOG) moves with writes to the other tables an
  entry page shows (its repository, tag names, scenario set-ups, scanned releases);
  not with those of settings.NOT_ON_ENTRY_PAGES (a sweep's row, an upload), which no
  entry page shows, so that starting a run of one entry moves no other entry's token.

One entry's page takes its own version, its neighbours' and the catalog's
(entry_token); lists take the content token (content_token).

Why random tokens rather than counts and latest timestamps: a timestamp is taken
before its transaction commits, so a write stamped t=1 that commits after one stamped
t=3 moves no maximum; and an UPDATE that leaves updated_at alone moves no count.

Which table is which is read from the models' foreign keys after every migrate, so a
new table is watched without anyone listing it, and a table SQLite rebuilds during a
migration gets its triggers back.

PostgreSQL: entry versions are written by statement-level triggers over transition
tables, so a bulk insert of 10,000 runs costs one upsert statement, ordered by entry
id so that two writers lock rows in the same order. The content and catalog rows, two
hot rows, are written at commit by deferred triggers, once per transaction; until
then a statement-level trigger marks the writing transaction so it sees its own writes.
"""

from django.apps import apps
from django.conf import settings
from django.db import connections

from .models import ContentVersion, EntryVersion, ErrorEntry, RelatedLink, Repository

TRIGGER_PREFIX = "errorkb_fresh"
# The transaction-local mark of a transaction's own writes (PostgreSQL), read by
# every token: the content token and each entry's.
PENDING_SETTING = "errorkb.pending"
OPERATIONS = ("INSERT", "UPDATE", "DELETE")

# PostgreSQL: the row is written at commit (a deferred constraint trigger), once per
# transaction, so the row lock is held for an instant and never while the transaction
# still takes other locks; a write committed later always gives a later token.
PG_BUMP_FUNCTION = """
CREATE OR REPLACE FUNCTION {function}() RETURNS trigger AS $$
BEGIN
    IF current_setting('{flag}', true) IS DISTINCT FROM txid_current()::text THEN
        PERFORM set_config('{flag}', txid_current()::text, true);
        INSERT INTO {table} (id, token)
        VALUES ({row}, md5(random()::text || clock_timestamp()::text))
        ON CONFLICT (id) DO UPDATE SET token = EXCLUDED.token;
    END IF;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql
"""


def pg_bump_function(function: str, *, row: int, flag: str) -> str:
    """A trigger function writing a new token to ContentVersion row `row`, once per transaction."""
    table = ContentVersion._meta.db_table
    return PG_BUMP_FUNCTION.format(function=function, flag=flag, table=table, row=row)


PG_ROW_TRIGGER = (
    "CREATE CONSTRAINT TRIGGER {name} AFTER INSERT OR UPDATE OR DELETE ON {table} "
    "DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION {prefix}_bump()"
)
# Until then, the writing transaction itself must see its own writes: each statement
# marks the transaction with a new random value in a transaction-local setting, which
# nothing outside the transaction can see and which ends with it.
PG_MARK_FUNCTION = f"""
CREATE OR REPLACE FUNCTION {TRIGGER_PREFIX}_mark() RETURNS trigger AS $$
BEGIN
    PERFORM set_config('{PENDING_SETTING}', md5(random()::text || clock_timestamp()::text), true);
    RETURN NULL;
END;
$$ LANGUAGE plpgsql
"""
PG_MARK_TRIGGER = (
    "CREATE TRIGGER {name} AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON {table} "
    "FOR EACH STATEMENT EXECUTE FUNCTION {prefix}_mark()"
)
# TRUNCATE has no row-level trigger; it is rare enough (tests, manual resets) to take
# the row lock at once.
PG_TRUNCATE_TRIGGER = (
    "CREATE TRIGGER {name} AFTER TRUNCATE ON {table} "
    "FOR EACH STATEMENT EXECUTE FUNCTION {prefix}_bump()"
)

# SQLite has only row-level triggers; its writers take turns, so order is never in doubt.
SQLITE_TRIGGER = """
CREATE TRIGGER IF NOT EXISTS {name} AFTER {operation} ON "{table}" BEGIN
    INSERT INTO {version} (id, token) VALUES ({row}, lower(hex(randomblob(16))))
    ON CONFLICT (id) DO UPDATE SET token = excluded.token;
END
"""


TOKEN_QUERY = f"SELECT token FROM {ContentVersion._meta.db_table} WHERE id = %s"
PG_TOKEN_QUERY = (
    f"SELECT coalesce(({TOKEN_QUERY}), '')"
    f" || coalesce(current_setting('{PENDING_SETTING}', true), '')"
)


def content_token() -> str:
    """The current token, as this connection's transaction sees it; one indexed read.

    Empty until the first watched write after the table was emptied.
    """
    connection = connections["default"]
    query = PG_TOKEN_QUERY if connection.vendor == "postgresql" else TOKEN_QUERY
    with connection.cursor() as cursor:
        cursor.execute(query, [ContentVersion.ROW])
        found = cursor.fetchone()
    return (found[0] if found else "") or ""


def watched_models() -> list:
    """Every model of the apps public pages read, many-to-many tables included.

    Not the token tables themselves: the write that moves a token has been seen.
    """
    return [
        model
        for label in settings.PUBLIC_PAGE_APPS
        for model in apps.get_app_config(label).get_models(include_auto_created=True)
        if model not in (ContentVersion, EntryVersion)
        and model._meta.managed
        and not model._meta.proxy
    ]


def watched_tables() -> list[str]:
    """The tables of watched_models()."""
    return sorted({model._meta.db_table for model in watched_models()})


def install_triggers(*, using: str = "default") -> None:
    """Create whichever freshness triggers are missing on the watched tables: those of
    the content token, then those of the entry versions and the catalog."""
    install_on_watched(
        using, ContentVersion, postgresql=_install_postgresql, sqlite=_install_sqlite
    )
    install_on_watched(
        using, EntryVersion, postgresql=_install_entry_postgresql, sqlite=_install_entry_sqlite
    )


def install_on_watched(using: str, token_model, *, postgresql, sqlite) -> None:
    """Run the vendor's installer over the watched models whose tables exist."""
    connection = connections[using]
    existing = set(connection.introspection.table_names())
    if token_model._meta.db_table not in existing:
        return  # migrating forwards from before this table: the next migrate installs them
    models = [model for model in watched_models() if model._meta.db_table in existing]
    installer = {"postgresql": postgresql, "sqlite": sqlite}.get(connection.vendor)
    if installer is not None:
        with connection.cursor() as cursor:
            installer(cursor, models)


def _install_postgresql(cursor, models: list) -> None:
    tables = sorted({model._meta.db_table for model in models})
    cursor.execute(
        pg_bump_function(f"{TRIGGER_PREFIX}_bump", row=ContentVersion.ROW, flag="errorkb.bumped_in")
    )
    cursor.execute(PG_MARK_FUNCTION)
    cursor.execute("SELECT tgname FROM pg_trigger WHERE tgname LIKE %s", [f"{TRIGGER_PREFIX}%"])
    present = {name for (name,) in cursor.fetchall()}
    for table in tables:
        kinds = (
            ("row", PG_ROW_TRIGGER),
            ("mark", PG_MARK_TRIGGER),
            ("truncate", PG_TRUNCATE_TRIGGER),
        )
        for kind, template in kinds:
            name = _trigger_name(kind, table)
            if name not in present:
                cursor.execute(template.format(name=name, table=table, prefix=TRIGGER_PREFIX))


def _install_sqlite(cursor, models: list) -> None:
    version = ContentVersion._meta.db_table
    for table in sorted({model._meta.db_table for model in models}):
        for operation in OPERATIONS:
            name = _trigger_name(operation.lower(), table)
            sql = SQLITE_TRIGGER.format(
                name=name, operation=operation, table=table, version=version, row=ContentVersion.ROW
            )
            cursor.execute(sql)


def _trigger_name(kind: str, table: str) -> str:
    # PostgreSQL names a trigger per table, but pg_trigger is searched by name alone.
    return f"{TRIGGER_PREFIX}_{kind}_{table}"


# One entry's token: its version, its neighbours', the catalog's.

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
PG_CATALOG_TRUNCATE_TRIGGER = (
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


def on_entry_pages(model) -> bool:
    """Whether an entry page may show rows of `model` (settings.NOT_ON_ENTRY_PAGES: not)."""
    hidden = settings.NOT_ON_ENTRY_PAGES
    return model._meta.label not in hidden and model._meta.app_label not in hidden


def _tables(models: list) -> list[tuple[str, list[str]]]:
    """Each table an entry page may show, with the columns naming its rows' entries."""
    return sorted(
        (model._meta.db_table, entry_columns(model)) for model in models if on_entry_pages(model)
    )


def _hidden_tables(models: list) -> list[str]:
    return sorted({model._meta.db_table for model in models if not on_entry_pages(model)})


def _install_entry_postgresql(cursor, models: list) -> None:
    cursor.execute(PG_CATALOG_FUNCTION)
    cursor.execute("SELECT tgname FROM pg_trigger WHERE tgname LIKE %s", [f"{PREFIX}%"])
    present = {name for (name,) in cursor.fetchall()}

    def create(kind: str, table: str, sql: str) -> None:
        name = _name(kind, table)
        if name not in present:
            cursor.execute(sql.format(name=name, table=table))

    for table in _hidden_tables(models):
        for kind in ("truncate", "catalog"):
            cursor.execute(f"DROP TRIGGER IF EXISTS {_name(kind, table)} ON {table}")
    for table, columns in _tables(models):
        create("truncate", table, PG_CATALOG_TRUNCATE_TRIGGER)
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


def _install_entry_sqlite(cursor, models: list) -> None:
    for table in _hidden_tables(models):
        for operation in OPERATIONS:
            cursor.execute(f"DROP TRIGGER IF EXISTS {_name(operation.lower(), table)}")
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
