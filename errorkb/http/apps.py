from django.apps import AppConfig


class HttpConfig(AppConfig):
    """What every face shares about HTTP: validators, the response cache, client limits."""

    name = "errorkb.http"
    label = "http"
    verbose_name = "HTTP"
