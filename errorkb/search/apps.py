from django.apps import AppConfig


class SearchConfig(AppConfig):
    """Full-text search over published entries: the index, `search()`, its page and API."""

    name = "errorkb.search"
    label = "search"
    verbose_name = "search"
