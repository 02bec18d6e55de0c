from django.apps import AppConfig
from django.db.models.signals import m2m_changed, post_delete, pre_delete


class VerificationConfig(AppConfig):
    name = "errorkb.verification"
    label = "verification"
    verbose_name = "Verification"

    def ready(self) -> None:
        from errorkb.kb.models import ErrorEntry
        from errorkb.kb.signals import entry_texts_changed

        from .models import Scenario, VerificationRun
        from .state import rejudge, stored

        # kb sits below this app: its write paths say whose texts they changed, and the
        # states are judged again here, in their transaction.
        entry_texts_changed.connect(rejudge.texts_changed, dispatch_uid="verification-texts")
        # Links change through the admin's forms, sync_scenarios and the shell: m2m_changed
        # hears every one of them.
        m2m_changed.connect(
            stored.links_changed, sender=Scenario.entries.through, dispatch_uid="verification-links"
        )
        # A delete cascades (an entry takes its runs, a scenario its links) without running
        # any code of ours: Django's delete signals are how to hear it. Each pre_delete notes
        # the entries; the first post_delete stores their states, in the delete's transaction.
        pre_delete.connect(
            stored.run_deleting, sender=VerificationRun, dispatch_uid="verification-run-deleting"
        )
        pre_delete.connect(
            stored.scenario_deleting, sender=Scenario, dispatch_uid="verification-scenario-deleting"
        )
        pre_delete.connect(
            stored.entry_deleting, sender=ErrorEntry, dispatch_uid="verification-entry-deleting"
        )
        post_delete.connect(
            stored.rows_deleted, sender=VerificationRun, dispatch_uid="verification-run-deleted"
        )
        post_delete.connect(
            stored.rows_deleted, sender=Scenario, dispatch_uid="verification-scenario-deleted"
        )
        _follow_page_writes()


def _follow_page_writes() -> None:
    """The rows of this app that public pages show: a save or delete of one moves the
    page versions (kb.changes); bulk writes here move them themselves."""
    from django_celery_beat.models import CrontabSchedule, PeriodicTask

    from errorkb.kb.changes import follow_links, follow_writes

    from .models import Confirmation, EntryState, Scenario, Sweep, VerificationRun

    # Not WorkerEnvironment: no public page shows what a worker announced.
    follow_writes(VerificationRun, EntryState, Confirmation, Scenario)
    follow_links(Scenario.entries.through)
    # Only the verification page shows the sweeps and when the next one is due.
    follow_writes(Sweep, PeriodicTask, CrontabSchedule, on_entry_pages=False)
