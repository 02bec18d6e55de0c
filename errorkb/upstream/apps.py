from django.apps import AppConfig


class UpstreamConfig(AppConfig):
    name = "errorkb.upstream"
    label = "upstream"
    verbose_name = "Upstream source"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from errorkb.kb.changes import follow_writes

        from .models import Scan

        # Entry pages show which releases were scanned: a scan's row saved or deleted
        # moves every entry page's version. The site index and the kept tree, written
        # in bulk, move it in site_index and kept_trees.
        follow_writes(Scan)
