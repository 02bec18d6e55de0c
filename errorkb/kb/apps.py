from django.apps import AppConfig


class KbConfig(AppConfig):
    name = "errorkb.kb"
    label = "kb"
    verbose_name = "Knowledge base"

    def ready(self):
        import reversion

        from .changes import follow_writes
        from .models import EntryTag, ErrorEntry, RelatedLink, Report, Repository, Tag

        # An entry's revision holds its row and its ordered tags and related links:
        # the whole content a reader sees, so a revert restores all of it.
        reversion.register(ErrorEntry, follow=("entry_tags", "outgoing_links"))
        reversion.register(EntryTag)
        reversion.register(RelatedLink)
        # A page cached before a save or delete of one of these rows (the admin's, a
        # report's) is not served after it. An entry's tags and links are written by
        # editing and the import, which move the entry's version themselves.
        follow_writes(ErrorEntry, Report, Repository, Tag)
