"""Drop the database trigger that deleted an entry's stored state when its texts changed.

The states are now judged again by kb's write paths (verification.rejudge); a database
migrated before still holds the trigger, installed back then after every migrate.
"""

from django.db import migrations

TRIGGER = "errorkb_texts_unjudged"


def drop_trigger(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    if vendor == "postgresql":
        # CASCADE takes the trigger on the entries' table with its function.
        schema_editor.execute(f"DROP FUNCTION IF EXISTS {TRIGGER}() CASCADE")
    elif vendor == "sqlite":
        schema_editor.execute(f"DROP TRIGGER IF EXISTS {TRIGGER}")


class Migration(migrations.Migration):
    dependencies = [("verification", "0012_send_lost_runs_again")]

    operations = [migrations.RunPython(drop_trigger, migrations.RunPython.noop)]
