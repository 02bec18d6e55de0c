"""Once: announced changes to scenarios and runs on the knowledge base's channel.

Superseded by the freshness triggers (errorkb.kb.freshness); kb migration 0006
removes what this one created on databases that ran it.
"""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("verification", "0001_initial"), ("kb", "0002_notify_changes")]

    operations = []
