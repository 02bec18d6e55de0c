from django.apps import AppConfig


class WebConfig(AppConfig):
    """The public web app: pages, the JSON API and their HTTP caching, over the domain apps."""

    name = "errorkb.web"
    label = "web"
    verbose_name = "Public pages and API"
