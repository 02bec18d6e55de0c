from django.apps import AppConfig


class KbConfig(AppConfig):
    name = "errorkb.kb"
    label = "kb"
    verbose_name = "Knowledge base"
