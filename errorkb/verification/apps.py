from django.apps import AppConfig
from django.db.models.signals import m2m_changed


class VerificationConfig(AppConfig):
    name = "errorkb.verification"
    label = "verification"
    verbose_name = "Verification"

    def ready(self) -> None:
        from .models import Scenario
        from .stored import links_changed

        # An entry's state depends on its scenario links: store it again when they change.
        m2m_changed.connect(
            links_changed, sender=Scenario.entries.through, dispatch_uid="verification-links"
        )
