from django.apps import AppConfig


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
