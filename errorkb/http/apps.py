from django.apps import AppConfig


class HttpConfig(AppConfig):
    """What the web apps share about HTTP: validators, the response cache, client throttles."""

    name = "errorkb.http"
    label = "http"
    verbose_name = "HTTP"
