"""The requests each client made are counted by DRF's throttling, in the cache
(errorkb/http/throttles.py), no longer in a table of their own."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("http", "0001_allowance"),
    ]

    operations = [
        migrations.DeleteModel(name="Allowance"),
    ]
