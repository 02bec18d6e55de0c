from django.apps import AppConfig
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.models.signals import post_migrate


class VerificationConfig(AppConfig):
    name = "errorkb.verification"
    label = "verification"
    verbose_name = "Verification"

    def ready(self):
        # The trainer's registry reaches the database on every migrate: nobody has to run
        # sync_scenarios by hand (the worker mirrors it on start too: errorkb/celery.py).
        post_migrate.connect(_mirror_registry, sender=self, dispatch_uid="verification-sync")


def _mirror_registry(sender, using, **kwargs):
    from .models import Scenario
    from .sync import sync_scenarios

    # Migrated back to zero, or another database than the one the app reads: nothing to do.
    tables = connections[using].introspection.table_names()
    if using == DEFAULT_DB_ALIAS and Scenario._meta.db_table in tables:
        sync_scenarios()
