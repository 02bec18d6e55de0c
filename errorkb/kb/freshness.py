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

from .models import ContentVersion, EntryVersion

TRIGGER_PREFIX = "errorkb_fresh"
# The transaction-local mark of a transaction's own writes (PostgreSQL), read by
# every token: this one and entry_versions'.
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
    """Create whichever freshness triggers are missing on the watched tables."""
    install_on_watched(
        using, ContentVersion, postgresql=_install_postgresql, sqlite=_install_sqlite
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
