"""Once: on PostgreSQL, a trigger that announced every change on a notification channel.

Superseded by the freshness triggers (errorkb.kb.freshness), which every database
gets; migration 0006 removes what this one created on databases that ran it.
"""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("kb", "0001_initial")]

    operations = []
