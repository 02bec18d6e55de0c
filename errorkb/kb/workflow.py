"""Who may take which step: the roles' checks and the review workflow's transitions."""

from collections.abc import Sequence
from dataclasses import dataclass

from django.core.exceptions import PermissionDenied

from . import editing
from .models import ErrorEntry
from .record.schema import message_matches

Status = ErrorEntry.Status


class NeedsConfirmation(Exception):
    """Publishing this entry needs an explicit confirmation; the reasons say why."""

    def __init__(self, reasons: list[str]):
        self.reasons = reasons
        super().__init__("; ".join(reasons))


class NotPublishable(Exception):
    """The entry lacks what every published entry has; the message says what."""


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


def publish_warnings(entry: ErrorEntry, *, verified: bool, state_label: str) -> list[str]:
    """Why publishing this entry deserves a second look; empty when it does not.

    verified and state_label come from the entry's verification state, which the
    view showing the warnings looks up: kb knows nothing of verification.
    """
    reasons = []
    if not message_matches(entry.message_pattern, entry.error_message):
        reasons.append(
            "Its message pattern does not match its own error message, so observed "
            "messages will be reported as drifted."
        )
    if not verified:
        reasons.append(
            f"It has no verification yet: its state is “{state_label}”; "
            "no run has reproduced the message with a verified fix."
        )
    return reasons


def transition(
    entry: ErrorEntry,
    name: str,
    user,
    *,
    base_version: int | None = None,
    confirmed: bool = False,
    warnings: Sequence[str] = (),
) -> ErrorEntry:
    """Move the entry along the workflow, as one change.

    warnings are publish_warnings for the entry: publishing with any of them and not
    confirmed raises NeedsConfirmation.
    """
    step = TRANSITIONS.get(name)
    if step is None or not step.allowed(user, entry):
        raise PermissionDenied(f"{user} may not {name} an entry that is {entry.status}")
    if step.target == Status.PUBLISHED and not entry.summary:
        raise NotPublishable("It has no summary: write what happened and what to do first.")
    if name == "publish" and not confirmed and warnings:
        raise NeedsConfirmation(list(warnings))
    with editing.change(entry, user, base_version, step.label):
        entry.status = step.target
        entry.save(update_fields=["status", "edit_version", "updated_at"])
    return entry
