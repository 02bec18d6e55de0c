from django.apps import AppConfig


class VerificationConfig(AppConfig):
    name = "errorkb.verification"
    label = "verification"
    verbose_name = "Verification"
