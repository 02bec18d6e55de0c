"""The only way to change an entry: `with change(entry, user) as edit:` and write inside.

A change is one django-reversion revision and one transaction. It refuses an edit
made from a stale version (EditConflict), and on leaving it moves contentChangedAt
when the content changed and puts the entry, its ordered tags and its related links
in the revision with the user and comment. The admin, the workflow steps and reverts
change entries through it; dataset imports, thousands at once, through kb.dataset.bulk_writes,
which keeps its guarantees set-based. Nothing else writes an entry's content. A change
of an entry's message or pattern is said (signals.entry_texts_changed) before it ends.
"""

from collections import defaultdict
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import reversion
from django.db.models import F, prefetch_related_objects
from django.utils import timezone

from .changes import entries_changed
from .ids import derive_entry_id
from .models import EntryTag, ErrorEntry, RelatedLink, Tag
from .record.schema import RELATED_KEY, SEED_FIELDS, stored_record, to_record
from .signals import TEXT_FIELDS, texts_changed

# Snapshot keys that are identity, bookkeeping or workflow, not content: they never
# make contentChangedAt move.
NOT_CONTENT = {"id", "contentChangedAt", "status"}
# The record keys of the texts a verification run is judged against.
TEXT_KEYS = [key for attr, key in SEED_FIELDS if attr in TEXT_FIELDS]


class EditConflict(Exception):
    """Someone saved the entry after the editor loaded it: the edit was not applied."""

    def __init__(self, entry_id: str, base_version: int):
        self.entry_id = entry_id
        self.base_version = base_version
        super().__init__(f"entry {entry_id} changed since version {base_version}")


@dataclass
class Change:
    """One change in progress: the entry, its content when the change began, the comment."""

    entry: ErrorEntry
    before: dict[str, Any] | None  # None for an entry the change creates
    comment: str
    set_content_changed_at: bool  # False when the caller's contentChangedAt stands


def snapshot(entry: ErrorEntry) -> dict[str, Any]:
    """The entry's whole content as a record, plus its workflow status."""
    entry = ErrorEntry.objects.for_record().get(pk=entry.pk)
    return stored_record(entry)


def content_of(record: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in record.items() if key not in NOT_CONTENT}


@contextmanager
def change(
    entry: ErrorEntry,
    user,
    base_version: int | None = None,
    comment: str = "Edited",
    *,
    set_content_changed_at: bool = True,
) -> Iterator[Change]:
    """Change the entry as one revision, or raise EditConflict and change nothing.

    base_version is the edit version the editor started from (the entry's own when
    None). An entry not yet saved is created by the change: there is nothing to claim.
    set_content_changed_at=False leaves contentChangedAt as the caller set it (a dataset
    is authoritative).
    The comment may be set on the yielded change until the block ends.
    """
    with reversion.create_revision():  # atomic: all of it or none
        before = None
        if not entry._state.adding:
            before = snapshot(entry)
            base = entry.edit_version if base_version is None else base_version
            entry.edit_version = claim_edit(entry.pk, base)
        edit = Change(entry, before, comment, set_content_changed_at)
        yield edit
        _finish(edit)
        reversion.set_user(user)
        reversion.set_comment(edit.comment)


def claim_edit(entry_id: str, base_version: int) -> int:
    """Move the entry's edit version on from base_version, or raise EditConflict.

    One conditional UPDATE: of two saves that started from the same version, the
    database lets exactly one through; the other sees zero rows and is refused.
    """
    moved = ErrorEntry.objects.filter(pk=entry_id, edit_version=base_version).update(
        edit_version=F("edit_version") + 1
    )
    if not moved:
        raise EditConflict(entry_id, base_version)
    return base_version + 1


def _finish(edit: Change) -> None:
    # After the entry, its tags and its links are written: the revision then holds
    # exactly the content that was saved.
    write_tags_text([edit.entry.pk])
    fresh = ErrorEntry.objects.for_record().get(pk=edit.entry.pk)
    before = edit.before
    after = to_record(fresh)
    if edit.set_content_changed_at and (before is None or content_of(before) != content_of(after)):
        fresh.content_changed_at = timezone.now()
        fresh.save(update_fields=["content_changed_at", "updated_at"])
    if before is not None and any(before[key] != after[key] for key in TEXT_KEYS):
        texts_changed(ErrorEntry, [fresh.pk])
    reversion.add_to_revision(fresh)
    # A related entry's page shows the link too: both ends move, whether it came or went.
    linked = after[RELATED_KEY] + (before[RELATED_KEY] if before is not None else [])
    entries_changed([fresh.pk, *linked])


def set_tags(entry: ErrorEntry, names: list[str]) -> None:
    """Give the entry exactly these tags, in this order."""
    tags = {tag.name: tag for tag in Tag.objects.filter(name__in=names)}
    for name in names:
        if name not in tags:
            tags[name] = Tag.objects.create(name=name)
    current = list(entry.entry_tags.order_by("position").values_list("tag__name", flat=True))
    if current == names:
        return
    entry.entry_tags.all().delete()
    EntryTag.objects.bulk_create(
        EntryTag(entry=entry, tag=tags[name], position=i) for i, name in enumerate(names)
    )


TAGS_TEXT_BATCH = 1000  # entries a statement reads and writes: a popular tag's rename


def write_tags_text(entry_ids: Iterable[str]) -> None:
    """Write each entry's tags_text from its tags, in their order (its search document
    reads the column: it can read nothing beyond the entry's own row)."""
    ids = list(entry_ids)
    for start in range(0, len(ids), TAGS_TEXT_BATCH):
        chunk = ids[start : start + TAGS_TEXT_BATCH]
        names = defaultdict(list)
        links = EntryTag.objects.filter(entry_id__in=chunk).order_by("entry_id", "position")
        for entry_id, name in links.values_list("entry_id", "tag__name"):
            names[entry_id].append(name)
        entries = [ErrorEntry(pk=pk, tags_text=" ".join(names[pk])) for pk in chunk]
        ErrorEntry.objects.bulk_update(entries, ["tags_text"])


def rename_tag(tag: Tag, name: str) -> None:
    """Rename the tag, and say the new name in the search documents of the entries it tags."""
    tag.name = name
    tag.save(update_fields=["name"])
    write_tags_text(tag.entry_tags.values_list("entry_id", flat=True))


def set_related(entry: ErrorEntry, targets: list[str]) -> None:
    """Give the entry exactly these related links, in this order."""
    links = RelatedLink.objects.filter(source_id=entry.pk)
    if list(links.order_by("position").values_list("target_id", flat=True)) == targets:
        return
    links.delete()
    RelatedLink.objects.bulk_create(
        RelatedLink(source_id=entry.pk, target_id=target, position=i)
        for i, target in enumerate(targets)
    )


def create_many(entries: list[ErrorEntry], *, batch_size: int = 500) -> None:
    """Create these new entries (no tags, no links) in the revision in progress.

    For a scan that drafts thousands of entries at once: one INSERT per batch instead of
    a change each, and every entry still lands in the caller's one revision. Call it
    inside reversion.create_revision(); the caller sets its user and comment.
    """
    if not reversion.is_active():
        raise RuntimeError("create_many needs a revision in progress")
    now = timezone.now()
    for entry in entries:
        entry.id = entry.id or derive_entry_id(
            entry.repository.full_name, entry.error_message, entry.file_path
        )
        entry.content_changed_at = now
    ErrorEntry.objects.bulk_create(entries, batch_size=batch_size)
    for start in range(0, len(entries), batch_size):
        batch = entries[start : start + batch_size]
        # Their (empty) tags and links read for a batch at once: the revision follows
        # both, and would otherwise ask twice for each of thousands of entries.
        prefetch_related_objects(batch, "entry_tags", "outgoing_links")
        for entry in batch:
            reversion.add_to_revision(entry)
    entries_changed(entry.pk for entry in entries)
