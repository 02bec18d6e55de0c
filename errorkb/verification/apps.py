from django.apps import AppConfig
from django.db.models.signals import m2m_changed, post_save


class VerificationConfig(AppConfig):
    name = "errorkb.verification"
    label = "verification"
    verbose_name = "Verification"

    def ready(self) -> None:
        from errorkb.kb.models import ErrorEntry

        from .models import Scenario
        from .stored import entry_saved, links_changed

        # An entry's state depends on its scenario links and its message (what a scenario
        # disproves): store it again when either changes.
        m2m_changed.connect(
            links_changed, sender=Scenario.entries.through, dispatch_uid="verification-links"
        )
        post_save.connect(entry_saved, sender=ErrorEntry, dispatch_uid="verification-entry")
