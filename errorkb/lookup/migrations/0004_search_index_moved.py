"""Full-text search moved to an app of its own (errorkb.search), which makes its own index
tables: this drops the lookup app's, their triggers and functions with them, and
rebuilding them is what undoing it does.
"""

import importlib

from django.db import migrations

created = importlib.import_module("errorkb.lookup.migrations.0002_search_index")


class Migration(migrations.Migration):
    dependencies = [("lookup", "0003_allowance_moved_to_http")]

    operations = [
        migrations.RunPython(
            created._run(created.BACKWARDS),
            created._run({"postgresql": created.POSTGRESQL, "sqlite": created.SQLITE}),
        ),
    ]
