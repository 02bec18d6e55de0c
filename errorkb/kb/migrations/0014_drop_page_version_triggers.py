"""Drop the database triggers that moved the page versions on every write.

The write paths move the versions themselves now (errorkb.kb.changes); a database
migrated before still holds the triggers, installed back then after every migrate on
every table public pages read. The content version's rows are written here too, so
that concurrent writers find one free from the start (ContentVersion.CONTENT_ROWS).
"""

from django.db import migrations

# The names the triggers and their functions were given.
PREFIXES = ("errorkb_fresh_", "errorkb_ver_")
# ContentVersion.CONTENT_ROWS when this migration was written.
CONTENT_ROWS = (1, *range(3, 18))


def drop_triggers(apps, schema_editor):
    connection = schema_editor.connection
    patterns = [prefix.replace("_", r"\_") + "%" for prefix in PREFIXES]
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            # CASCADE takes each function's triggers with it.
            cursor.execute(
                "SELECT proname FROM pg_proc WHERE pronamespace = current_schema()::regnamespace"
                r" AND (proname LIKE %s ESCAPE '\' OR proname LIKE %s ESCAPE '\')",
                patterns,
            )
            statement = "DROP FUNCTION IF EXISTS {}() CASCADE"
        elif connection.vendor == "sqlite":
            cursor.execute(
                "SELECT name FROM sqlite_master WHERE type = 'trigger'"
                r" AND (name LIKE %s ESCAPE '\' OR name LIKE %s ESCAPE '\')",
                patterns,
            )
            statement = "DROP TRIGGER IF EXISTS {}"
        else:
            return
        for (name,) in cursor.fetchall():
            cursor.execute(statement.format(connection.ops.quote_name(name)))


def write_content_rows(apps, schema_editor):
    ContentVersion = apps.get_model("kb", "ContentVersion")
    rows = [ContentVersion(id=row, token="") for row in CONTENT_ROWS]
    ContentVersion.objects.bulk_create(rows, ignore_conflicts=True)


class Migration(migrations.Migration):
    dependencies = [("kb", "0013_entry_search_document")]

    operations = [
        migrations.RunPython(drop_triggers, migrations.RunPython.noop),
        migrations.RunPython(write_content_rows, migrations.RunPython.noop),
    ]
