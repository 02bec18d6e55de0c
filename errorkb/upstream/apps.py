from django.apps import AppConfig


class UpstreamConfig(AppConfig):
    name = "errorkb.upstream"
    label = "upstream"
    verbose_name = "Upstream source"
    default_auto_field = "django.db.models.BigAutoField"
