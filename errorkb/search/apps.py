from django.apps import AppConfig, apps
from django.db.models.signals import post_migrate


class SearchConfig(AppConfig):
    """Full-text search over published entries: the index, `search()`, its page and API."""

    name = "errorkb.search"
    label = "search"
    verbose_name = "search"

    def ready(self):
        # After every migrate: a migration may have rebuilt a kb table (SQLite drops its
        # triggers then) or written to it unseen, so the search index is rebuilt too.
        # Heard as kb's: Django sends post_migrate only for apps with a models module,
        # and this app has none (its index's tables are made by its migration's SQL).
        kb = apps.get_app_config("kb")
        post_migrate.connect(_install_search, sender=kb, dispatch_uid="search-index")


def _install_search(sender, using, **kwargs):
    from .index import install

    install(using=using)
