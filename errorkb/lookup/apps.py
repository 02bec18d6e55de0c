from django.apps import AppConfig


class LookupConfig(AppConfig):
    name = "errorkb.lookup"
    label = "lookup"
    verbose_name = "lookup"
    default_auto_field = "django.db.models.BigAutoField"
