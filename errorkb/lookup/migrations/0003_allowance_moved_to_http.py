# The allowance counts moved to errorkb.http, where the rate limiting lives: they are
# counts of the current minute, so the old table goes rather than being carried over.

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ("lookup", "0002_search_index"),
    ]

    operations = [
        migrations.DeleteModel(name="Allowance"),
    ]
