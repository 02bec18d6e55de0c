from django.apps import AppConfig


class CuratorsAdminConfig(AppConfig):
    """The curators' web app: the Django admin screens over the domain apps."""

    name = "errorkb.admin"
    label = "kb_admin"  # "admin" is django.contrib.admin's
    verbose_name = "Curators' admin"

    def ready(self):
        # Registering a ModelAdmin is importing its module.
        from . import catalog, entries, reports, runs, uploads  # noqa: F401
