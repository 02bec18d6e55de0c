"""On PostgreSQL, announce changes to scenarios and runs on the knowledge base's channel.

The entry page shows an entry's verification, so its cached responses must go
stale when a run lands (see errorkb.kb.changes and kb migration 0002).
"""

from django.db import migrations

TABLES = ("verification_scenario", "verification_scenario_entries", "verification_verificationrun")


def run(statement_for):
    def apply(apps, schema_editor):
        if schema_editor.connection.vendor != "postgresql":
            return
        for table in TABLES:
            schema_editor.execute(statement_for(table))

    return apply


def create(table: str) -> str:
    return (
        f"CREATE TRIGGER kb_notify_change AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE "
        f"ON {table} FOR EACH STATEMENT EXECUTE FUNCTION kb_notify_change()"
    )


def drop(table: str) -> str:
    return f"DROP TRIGGER IF EXISTS kb_notify_change ON {table}"


class Migration(migrations.Migration):
    dependencies = [("verification", "0001_initial"), ("kb", "0002_notify_changes")]

    operations = [migrations.RunPython(run(create), run(drop))]
