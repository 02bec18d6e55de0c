from django.apps import AppConfig
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.models.signals import m2m_changed, post_delete, post_migrate, pre_delete


class VerificationConfig(AppConfig):
    name = "errorkb.verification"
    label = "verification"
    verbose_name = "Verification"

    def ready(self) -> None:
        from errorkb.kb.models import ErrorEntry
        from errorkb.kb.signals import entry_texts_changed

        from . import rejudge, stored
        from .models import Scenario, VerificationRun

        # The trainer's registry reaches the database on every migrate: nobody has to run
        # sync_scenarios by hand (the worker mirrors it on start too: errorkb/celery.py).
        post_migrate.connect(_mirror_registry, sender=self, dispatch_uid="verification-sync")
        # Raw writes of an entry's texts: the trigger that unjudges it (rejudge.py).
        post_migrate.connect(_install_trigger, sender=self, dispatch_uid="verification-trigger")
        # An entry's state depends on its scenario links and on its texts (what its runs are
        # judged against; its message: what a scenario disproves): store it again when they
        # change. kb says which entries' texts it changed, bulk writes included.
        m2m_changed.connect(
            stored.links_changed, sender=Scenario.entries.through, dispatch_uid="verification-links"
        )
        entry_texts_changed.connect(rejudge.texts_changed, dispatch_uid="verification-texts")
        # Deleting runs or scenarios (an instance, a queryset, a cascade) changes the state
        # too: stored in the delete's own transaction, once per entry.
        deleting = (
            (VerificationRun, stored.run_deleting),
            (Scenario, stored.scenario_deleting),
            (ErrorEntry, stored.entry_deleting),
        )
        for model, receiver in deleting:
            uid = f"verification-deleting-{model._meta.model_name}"
            pre_delete.connect(receiver, sender=model, dispatch_uid=uid)
        for model in (VerificationRun, Scenario):
            uid = f"verification-deleted-{model._meta.model_name}"
            post_delete.connect(stored.rows_deleted, sender=model, dispatch_uid=uid)


def _install_trigger(sender, using, **kwargs):
    from .rejudge import install_trigger

    install_trigger(using=using)


def _mirror_registry(sender, using, **kwargs):
    from .models import Scenario
    from .sync import sync_scenarios

    # Migrated back to zero, or another database than the one the app reads: nothing to do.
    tables = connections[using].introspection.table_names()
    if using == DEFAULT_DB_ALIAS and Scenario._meta.db_table in tables:
        sync_scenarios()
