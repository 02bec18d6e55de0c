"""Knowing, in one indexed read, whether anything a public page shows has changed.

Triggers on every table of settings.PUBLIC_PAGE_APPS give the ContentVersion row a new
random token whenever a write to one of them commits, whoever makes it: the ORM,
QuerySet.update(), the admin, raw SQL, another process. A page's validators derive
from that token, so no write path can leave a page stale.

Why a random token rather than counts and latest timestamps: a timestamp is taken
before its transaction commits, so a write stamped t=1 that commits after one stamped
t=3 moves no maximum; and an UPDATE that leaves updated_at alone moves no count.

The triggers are (re)installed after every migrate, from the models themselves, so a
table added later is watched without anyone listing it, and a table SQLite rebuilds
during a migration gets its triggers back.
"""

from django.apps import apps
from django.conf import settings
from django.db import connections

from .models import ContentVersion

TRIGGER_PREFIX = "errorkb_fresh"
OPERATIONS = ("INSERT", "UPDATE", "DELETE")

# PostgreSQL: the row is written at commit (a deferred constraint trigger), once per
# transaction, so the row lock is held for an instant and never while the transaction
# still takes other locks; a write committed later always gives a later token.
PG_FUNCTION = f"""
CREATE OR REPLACE FUNCTION {TRIGGER_PREFIX}_bump() RETURNS trigger AS $$
BEGIN
    IF current_setting('errorkb.bumped_in', true) IS DISTINCT FROM txid_current()::text THEN
        PERFORM set_config('errorkb.bumped_in', txid_current()::text, true);
        INSERT INTO {{table}} (id, token)
        VALUES ({ContentVersion.ROW}, md5(random()::text || clock_timestamp()::text))
        ON CONFLICT (id) DO UPDATE SET token = EXCLUDED.token;
    END IF;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql
"""
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
    PERFORM set_config('errorkb.pending', md5(random()::text || clock_timestamp()::text), true);
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
    " || coalesce(current_setting('errorkb.pending', true), '')"
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


def watched_tables() -> list[str]:
    """Every table of the apps public pages read, many-to-many tables included."""
    tables = {
        model._meta.db_table
        for label in settings.PUBLIC_PAGE_APPS
        for model in apps.get_app_config(label).get_models(include_auto_created=True)
        if model is not ContentVersion and model._meta.managed and not model._meta.proxy
    }
    return sorted(tables)


def install_triggers(*, using: str = "default") -> None:
    """Create whichever freshness triggers are missing on the watched tables."""
    connection = connections[using]
    existing = set(connection.introspection.table_names())
    tables = [table for table in watched_tables() if table in existing]
    if ContentVersion._meta.db_table not in existing:
        return  # migrating forwards from before this table: the next migrate installs them
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            _install_postgresql(cursor, tables)
        elif connection.vendor == "sqlite":
            _install_sqlite(cursor, tables)


def _install_postgresql(cursor, tables: list[str]) -> None:
    version = ContentVersion._meta.db_table
    cursor.execute(PG_FUNCTION.format(table=version))
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


def _install_sqlite(cursor, tables: list[str]) -> None:
    version = ContentVersion._meta.db_table
    for table in tables:
        for operation in OPERATIONS:
            name = _trigger_name(operation.lower(), table)
            sql = SQLITE_TRIGGER.format(
                name=name, operation=operation, table=table, version=version, row=ContentVersion.ROW
            )
            cursor.execute(sql)


def _trigger_name(kind: str, table: str) -> str:
    # PostgreSQL names a trigger per table, but pg_trigger is searched by name alone.
    return f"{TRIGGER_PREFIX}_{kind}_{table}"
