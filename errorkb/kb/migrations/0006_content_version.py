"""The row whose token changes with every write public pages show (errorkb.kb.changes).

The write paths move its token; here only the PostgreSQL notification triggers of
the old response cache are removed.
"""

from django.db import migrations, models


def drop_notify_triggers(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        # CASCADE takes the triggers on the kb and verification tables with it.
        schema_editor.execute("DROP FUNCTION IF EXISTS kb_notify_change() CASCADE")


class Migration(migrations.Migration):
    dependencies = [("kb", "0005_entry_applies_to")]

    operations = [
        migrations.CreateModel(
            name="ContentVersion",
            fields=[
                (
                    "id",
                    models.PositiveSmallIntegerField(default=1, primary_key=True, serialize=False),
                ),
                ("token", models.CharField(max_length=64)),
            ],
        ),
        migrations.RunPython(drop_notify_triggers, migrations.RunPython.noop),
    ]
