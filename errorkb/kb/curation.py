"""Curating entries: the review workflow, revisions, edit conflicts and reverts.

Every write to an entry's content goes through a django-reversion revision block
opened here, in dataset.import_dataset, or in the admin: one change, one revision,
holding the entry row with its ordered tags and related links. The admin, its
actions and the commands call these functions; none of them writes an entry itself.
"""

import difflib
import json
from dataclasses import dataclass
from typing import Any

import reversion
from django.core.exceptions import PermissionDenied
from django.db.models import F
from django.utils import timezone
from django.utils.html import escape
from reversion.models import Version

from .models import EntryTag, ErrorEntry, RelatedLink, Repository, Tag
from .records import RELATED_KEY, message_matches, record_of, to_record

Status = ErrorEntry.Status

# Snapshot keys that are identity, bookkeeping or workflow, not content: they never
# make contentChangedAt move.
NOT_CONTENT = {"id", "contentChangedAt", "status"}
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


class EditConflict(Exception):
    """Someone saved the entry after the editor loaded it: the edit was not applied."""

    def __init__(self, entry_id: str, base_version: int):
        self.entry_id = entry_id
        self.base_version = base_version
        super().__init__(f"entry {entry_id} changed since version {base_version}")


class NeedsConfirmation(Exception):
    """Publishing this entry needs an explicit confirmation; the reasons say why."""

    def __init__(self, reasons: list[str]):
        self.reasons = reasons
        super().__init__("; ".join(reasons))


# --- what an entry holds ---------------------------------------------------------


def snapshot(entry: ErrorEntry) -> dict[str, Any]:
    """The entry's whole content as a record, plus its workflow status."""
    entry = ErrorEntry.objects.for_record().get(pk=entry.pk)
    return to_record(entry, with_status=True)


def content_of(record: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in record.items() if key not in NOT_CONTENT}


def version_snapshot(version: Version) -> dict[str, Any]:
    """An entry revision as the same record snapshot() gives for a live entry."""
    data = version.field_dict
    entry_id = data["id"]
    tag_ids, related = [], []
    siblings = version.revision.version_set.exclude(pk=version.pk)
    for sibling in siblings:
        if sibling._model is EntryTag and sibling.field_dict["entry_id"] == entry_id:
            tag_ids.append((sibling.field_dict["position"], sibling.field_dict["tag_id"]))
        elif sibling._model is RelatedLink and sibling.field_dict["source_id"] == entry_id:
            related.append((sibling.field_dict["position"], sibling.field_dict["target_id"]))
    names = dict(Tag.objects.filter(pk__in=[t for _, t in tag_ids]).values_list("pk", "name"))
    repository = Repository.objects.filter(pk=data["repository_id"]).first()
    entry = ErrorEntry(**{k: v for k, v in data.items() if k != "repository_id"})
    entry.repository = repository or Repository(owner="?", name="?")
    tags = [names.get(tag, f"#{tag}") for _, tag in sorted(tag_ids)]
    related_ids = [target for _, target in sorted(related)]
    return record_of(entry, tags=tags, related=related_ids, status=data["status"])


def history(entry: ErrorEntry):
    """The entry's revisions, newest first."""
    return (
        Version.objects.get_for_object(entry)
        .select_related("revision__user")
        .order_by("-revision__date_created", "-pk")
    )


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


# --- who may do what ---------------------------------------------------------------


def is_editor(user) -> bool:
    return user.has_perm("kb.publish_errorentry")


def can_edit(user, entry: ErrorEntry) -> bool:
    """Editors edit any entry; curators, owner and teammates alike, edit drafts."""
    if not user.has_perm("kb.change_errorentry"):
        return False
    return is_editor(user) or entry.status == Status.DRAFT


@dataclass(frozen=True)
class Transition:
    name: str
    label: str
    sources: tuple[str, ...]
    target: str
    permission: str
    owner_may: bool = False  # the entry's owner may take it without the permission

    def allowed(self, user, entry: ErrorEntry) -> bool:
        if entry.status not in self.sources:
            return False
        if user.has_perm(self.permission):
            return True
        is_owner = entry.owner_id is not None and entry.owner_id == user.pk
        return self.owner_may and is_owner and user.has_perm("kb.submit_errorentry")


PUBLISH = "kb.publish_errorentry"
TRANSITIONS = {
    t.name: t
    for t in (
        Transition("submit", "Submit for review", (Status.DRAFT,), Status.IN_REVIEW,
                   "kb.submit_errorentry"),
        Transition("withdraw", "Return to draft", (Status.IN_REVIEW,), Status.DRAFT, PUBLISH,
                   owner_may=True),
        Transition("publish", "Publish", (Status.IN_REVIEW,), Status.PUBLISHED, PUBLISH),
        Transition("retire", "Retire", (Status.PUBLISHED,), Status.RETIRED, PUBLISH),
        Transition("reopen", "Reopen as draft", (Status.RETIRED,), Status.DRAFT, PUBLISH),
    )
}  # fmt: skip


def allowed_transitions(user, entry: ErrorEntry) -> list[Transition]:
    return [t for t in TRANSITIONS.values() if t.allowed(user, entry)]


def publish_warnings(entry: ErrorEntry) -> list[str]:
    """Why publishing this entry deserves a second look; empty when it does not."""
    from errorkb.verification.state import State, verification_of

    reasons = []
    if not message_matches(entry.message_pattern, entry.error_message):
        reasons.append(
            "Its message pattern does not match its own error message, so observed "
            "messages will be reported as drifted."
        )
    verification = verification_of(entry)
    # A proof of absence is a proof too: the runs show burn never prints the message.
    if verification.state not in (State.VERIFIED, State.UNREACHABLE):
        reasons.append(
            f"It has no verification yet: its state is “{verification.state.label}”; "
            "no run has reproduced the message with a verified fix."
        )
    return reasons


# --- writing -----------------------------------------------------------------------


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


def finish_change(entry: ErrorEntry, before: dict[str, Any] | None) -> ErrorEntry:
    """Move contentChangedAt if the content changed, and put the whole entry in the revision.

    Call inside the change's revision block, after the entry, its tags and its links
    are written: the revision then holds exactly the content that was saved.
    """
    fresh = ErrorEntry.objects.for_record().get(pk=entry.pk)
    if before is None or content_of(before) != content_of(to_record(fresh)):
        fresh.content_changed_at = timezone.now()
        fresh.save(update_fields=["content_changed_at", "updated_at"])
    reversion.add_to_revision(fresh)
    return fresh


def transition(
    entry: ErrorEntry, name: str, user, *, base_version: int | None = None, confirmed=False
) -> ErrorEntry:
    """Move the entry along the workflow, as one revision."""
    step = TRANSITIONS.get(name)
    if step is None or not step.allowed(user, entry):
        raise PermissionDenied(f"{user} may not {name} an entry that is {entry.status}")
    if name == "publish" and not confirmed:
        reasons = publish_warnings(entry)
        if reasons:
            raise NeedsConfirmation(reasons)
    with reversion.create_revision():
        entry.edit_version = claim_edit(entry.pk, _base(entry, base_version))
        entry.status = step.target
        entry.save(update_fields=["status", "edit_version", "updated_at"])
        reversion.add_to_revision(entry)
        reversion.set_user(user)
        reversion.set_comment(step.label)
    return entry


def _base(entry: ErrorEntry, base_version: int | None) -> int:
    return entry.edit_version if base_version is None else base_version


def revert(entry: ErrorEntry, version: Version, user, *, base_version: int | None = None):
    """Give the entry the content it had in a revision, as a new revision.

    The workflow status stays: a revert changes what the entry says, not whether
    readers see it. Related entries that no longer exist are left out.
    """
    if not can_edit(user, entry):
        raise PermissionDenied(f"{user} may not edit this entry")
    if version.object_id != entry.pk or version._model is not ErrorEntry:
        raise ValueError("that revision belongs to another entry")
    target = version_snapshot(version)
    data = version.field_dict
    with reversion.create_revision():
        before = snapshot(entry)
        entry.edit_version = claim_edit(entry.pk, _base(entry, base_version))
        for attr, value in data.items():
            if attr not in KEPT_ON_REVERT:
                setattr(entry, attr, value)
        entry.save()
        set_tags(entry, target["tags"])
        existing = set(
            ErrorEntry.objects.filter(pk__in=target[RELATED_KEY]).values_list("pk", flat=True)
        )
        set_related(entry, [pk for pk in target[RELATED_KEY] if pk in existing])
        finish_change(entry, before)
        reversion.set_user(user)
        when = timezone.localtime(version.revision.date_created)
        reversion.set_comment(f"Reverted to the revision of {when:%Y-%m-%d %H:%M:%S}")
    return ErrorEntry.objects.get(pk=entry.pk)


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


def save_content(
    entry: ErrorEntry,
    values: dict[str, Any],
    user,
    *,
    tags: list[str] | None = None,
    related: list[str] | None = None,
    base_version: int | None = None,
    comment: str = "Edited",
) -> ErrorEntry:
    """Change an entry's fields (and optionally tags and links) as one revision.

    The programmatic twin of the admin form, for scripts and tests.
    """
    if not can_edit(user, entry):
        raise PermissionDenied(f"{user} may not edit this entry")
    with reversion.create_revision():  # atomic: all of it or none
        before = snapshot(entry)
        entry.edit_version = claim_edit(entry.pk, _base(entry, base_version))
        for attr, value in values.items():
            setattr(entry, attr, value)
        entry.full_clean(exclude=["repository", "owner"])
        entry.save()
        if tags is not None:
            set_tags(entry, tags)
        if related is not None:
            set_related(entry, related)
        fresh = finish_change(entry, before)
        reversion.set_user(user)
        reversion.set_comment(comment)
    return fresh
