from django.apps import AppConfig, apps
from django.db.models.signals import post_migrate


class LookupConfig(AppConfig):
    name = "errorkb.lookup"
    label = "lookup"
    verbose_name = "lookup and search"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        # After every migrate: a migration may have rebuilt a kb table (SQLite drops its
        # triggers then) or written to it unseen, so the search index is rebuilt too.
        # Heard as kb's: Django sends post_migrate only for apps with a models module,
        # and this app has none (its index's tables are made by its migrations' SQL).
        kb = apps.get_app_config("kb")
        post_migrate.connect(_install_search, sender=kb, dispatch_uid="lookup-search")


def _install_search(sender, using, **kwargs):
    from .search import install

    install(using=using)
