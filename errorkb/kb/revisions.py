"""An entry's revisions: its history, each revision as a record, diffs, and reverts."""

import difflib
import json
from dataclasses import dataclass
from typing import Any

from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import PermissionDenied
from django.utils import timezone
from django.utils.html import escape
from reversion.models import Version

from . import editing
from .models import EntryTag, ErrorEntry, RelatedLink, Repository, Tag
from .record.schema import RELATED_KEY, stored_record
from .workflow import can_edit

# Entry attributes a revert leaves as they are: identity, workflow and bookkeeping.
KEPT_ON_REVERT = {
    "id",
    "status",
    "owner_id",
    "edit_version",
    "created_at",
    "updated_at",
    "content_changed_at",
    "dataset_version",
}


def history(entry: ErrorEntry):
    """The entry's revisions, newest first."""
    return (
        Version.objects.get_for_object(entry)
        .select_related("revision__user")
        .order_by("-revision__date_created", "-pk")
    )


def version_snapshot(version: Version) -> dict[str, Any]:
    """An entry revision as the same record editing.snapshot() gives for a live entry."""
    data = version.field_dict
    entry_id = data["id"]
    tag_rows = _rows_of(version, EntryTag, "entry_id", entry_id)
    tag_ids = [row["tag_id"] for row in tag_rows]
    related = [row["target_id"] for row in _rows_of(version, RelatedLink, "source_id", entry_id)]
    names = dict(Tag.objects.filter(pk__in=tag_ids).values_list("pk", "name"))
    repository = Repository.objects.filter(pk=data["repository_id"]).first()
    entry = ErrorEntry(**{k: v for k, v in data.items() if k != "repository_id"})
    entry.repository = repository or Repository(owner="?", name="?")
    tags = [names.get(tag, f"#{tag}") for tag in tag_ids]
    return stored_record(entry, tags=tags, related=related)


def _rows_of(version: Version, model, key: str, entry_id: str) -> list[dict[str, Any]]:
    # The rows of one model that the revision holds for the entry, in position order.
    kind = ContentType.objects.get_for_model(model)
    siblings = version.revision.version_set.filter(content_type=kind)
    rows = [sibling.field_dict for sibling in siblings]
    return sorted((row for row in rows if row[key] == entry_id), key=lambda row: row["position"])


def is_entry_version(version: Version, entry: ErrorEntry) -> bool:
    kind = ContentType.objects.get_for_model(ErrorEntry)
    return version.content_type_id == kind.pk and version.object_id == entry.pk


@dataclass
class FieldDiff:
    key: str
    before: Any
    after: Any

    @property
    def html(self) -> str:
        """A line diff of the two values, escaped, for the history page."""
        lines = difflib.ndiff(_lines(self.before), _lines(self.after))
        rows = []
        for line in lines:
            if line.startswith("? "):
                continue
            css = {"+ ": "added", "- ": "removed"}.get(line[:2], "same")
            rows.append(f'<span class="diff-{css}">{escape(line)}</span>')
        return "\n".join(rows)


def _lines(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, list):
        return [_line(item) for item in value]
    return str(value).splitlines() or [""]


def _line(item: Any) -> str:
    # A row of appliesTo reads best as the JSON it is written in.
    if isinstance(item, dict):
        return json.dumps(item, ensure_ascii=False)
    return str(item)


def diff(before: dict[str, Any], after: dict[str, Any]) -> list[FieldDiff]:
    """The fields whose values differ, in record order."""
    keys = list(after) + [key for key in before if key not in after]
    return [
        FieldDiff(key, before.get(key), after.get(key))
        for key in keys
        if before.get(key) != after.get(key)
    ]


def revert(entry: ErrorEntry, version: Version, user, *, base_version: int | None = None):
    """Give the entry the content it had in a revision, as a new revision.

    The workflow status stays: a revert changes what the entry says, not whether
    readers see it. Related entries that no longer exist are left out.
    """
    if not can_edit(user, entry):
        raise PermissionDenied(f"{user} may not edit this entry")
    if not is_entry_version(version, entry):
        raise ValueError("that revision belongs to another entry")
    target = version_snapshot(version)
    when = timezone.localtime(version.revision.date_created)
    comment = f"Reverted to the revision of {when:%Y-%m-%d %H:%M:%S}"
    with editing.change(entry, user, base_version, comment):
        for attr, value in version.field_dict.items():
            if attr not in KEPT_ON_REVERT:
                setattr(entry, attr, value)
        entry.save()
        editing.set_tags(entry, target["tags"])
        existing = set(
            ErrorEntry.objects.filter(pk__in=target[RELATED_KEY]).values_list("pk", flat=True)
        )
        editing.set_related(entry, [pk for pk in target[RELATED_KEY] if pk in existing])
    return ErrorEntry.objects.get(pk=entry.pk)
