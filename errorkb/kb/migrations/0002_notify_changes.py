"""On PostgreSQL, announce every change to the knowledge base tables on a channel.

Each server process listens (errorkb.kb.changes) and so knows, without asking
the database on every read, when its cached responses may have gone out of
date. A statement-level trigger catches every writer: the admin, imports,
raw SQL, another host.
"""

from django.db import migrations

CHANNEL = "errorkb_changed"
TABLES = ("kb_repository", "kb_tag", "kb_errorentry", "kb_entrytag", "kb_relatedlink")

CREATE = [
    f"""
    CREATE OR REPLACE FUNCTION kb_notify_change() RETURNS trigger AS $$
    BEGIN
        PERFORM pg_notify('{CHANNEL}', TG_TABLE_NAME);
        RETURN NULL;
    END;
    $$ LANGUAGE plpgsql
    """,
    *(
        f"""
        CREATE TRIGGER kb_notify_change AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON {table}
        FOR EACH STATEMENT EXECUTE FUNCTION kb_notify_change()
        """
        for table in TABLES
    ),
]
DROP = [
    *(f"DROP TRIGGER IF EXISTS kb_notify_change ON {table}" for table in TABLES),
    "DROP FUNCTION IF EXISTS kb_notify_change()",
]


def run(statements):
    def apply(apps, schema_editor):
        if schema_editor.connection.vendor != "postgresql":
            return  # elsewhere every cached read asks the database instead
        for statement in statements:
            schema_editor.execute(statement)

    return apply


class Migration(migrations.Migration):
    dependencies = [("kb", "0001_initial")]

    operations = [migrations.RunPython(run(CREATE), run(DROP))]
