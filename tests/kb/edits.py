"""Edits made in code, the way the admin form makes them: through editing.change."""

from errorkb.kb import editing
from errorkb.kb.models import ErrorEntry


def edit(entry: ErrorEntry, values: dict, user, *, tags=None, related=None, comment="Edited"):
    """Change the entry's fields (and optionally tags and links) as one change."""
    with editing.change(entry, user, comment=comment):
        for attr, value in values.items():
            setattr(entry, attr, value)
        entry.full_clean(exclude=["repository", "owner"])
        entry.save()
        if tags is not None:
            editing.set_tags(entry, tags)
        if related is not None:
            editing.set_related(entry, related)
    return ErrorEntry.objects.for_record().get(pk=entry.pk)
