from django.apps import AppConfig
from django.db.models.signals import post_migrate


class KbConfig(AppConfig):
    name = "errorkb.kb"
    label = "kb"
    verbose_name = "Knowledge base"

    def ready(self):
        import reversion

        from .models import EntryTag, ErrorEntry, RelatedLink

        # An entry's revision holds its row and its ordered tags and related links:
        # the whole content a reader sees, so a revert restores all of it.
        reversion.register(ErrorEntry, follow=("entry_tags", "outgoing_links"))
        reversion.register(EntryTag)
        reversion.register(RelatedLink)
        # After every app's migrations, so the triggers cover tables of all watched apps.
        post_migrate.connect(_install_triggers, sender=self, dispatch_uid="kb-freshness")


def _install_triggers(sender, using, **kwargs):
    from .freshness import install_triggers

    install_triggers(using=using)
