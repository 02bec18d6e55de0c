from django.apps import AppConfig
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.models.signals import m2m_changed, post_migrate, post_save


class VerificationConfig(AppConfig):
    name = "errorkb.verification"
    label = "verification"
    verbose_name = "Verification"

    def ready(self) -> None:
        from errorkb.kb.models import ErrorEntry

        from .models import Scenario
        from .stored import entry_saved, links_changed

        # The trainer's registry reaches the database on every migrate: nobody has to run
        # sync_scenarios by hand (the worker mirrors it on start too: errorkb/celery.py).
        post_migrate.connect(_mirror_registry, sender=self, dispatch_uid="verification-sync")
        # An entry's state depends on its scenario links and its message (what a scenario
        # disproves): store it again when either changes.
        m2m_changed.connect(
            links_changed, sender=Scenario.entries.through, dispatch_uid="verification-links"
        )
        post_save.connect(entry_saved, sender=ErrorEntry, dispatch_uid="verification-entry")


def _mirror_registry(sender, using, **kwargs):
    from .models import Scenario
    from .sync import sync_scenarios

    # Migrated back to zero, or another database than the one the app reads: nothing to do.
    tables = connections[using].introspection.table_names()
    if using == DEFAULT_DB_ALIAS and Scenario._meta.db_table in tables:
        sync_scenarios()
