"""Each entry's verification state, stored: written where runs finish, links and texts change.

judging.py derives an entry's state from its runs and its texts; reading that for every
row of a list costs queries per entry. So the derived state is stored in EntryState, in
the same transaction as the write that changes it, and lists and filters read it in SQL.
`manage.py recompute_states` compares the stored states with the derived ones, and so
does the end of every sweep (check_sweep_states).
"""

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import islice

from django.db import transaction
from django.db.models import Exists, OuterRef, Q, QuerySet, Value
from django.db.models.functions import Coalesce
from django.utils import timezone

from errorkb.kb.changes import entries_changed
from errorkb.kb.models import ErrorEntry

from ..models import EntryState, Scenario, State, Sweep, VerificationRun
from .judging import verification_of, verifications_of

logger = logging.getLogger(__name__)

# The annotation with_stored_state() puts on each entry.
ANNOTATION = "stored_state"
CHUNK = 1000  # entries stored at a time by store_states


@transaction.atomic
def store_state(entry_id: str) -> EntryState | None:
    """Derive the entry's state from its runs now and store it; None when it is gone."""
    # The entry's row lock orders two runs of one entry finishing at once: the second
    # derives its state after the first commits, so it sees both runs.
    entry = ErrorEntry.objects.select_for_update().filter(pk=entry_id).first()
    if entry is None:
        return None
    return _write(entry.pk, verification_of(entry).state)


def store_states(entry_ids: Iterable[str]) -> None:
    """store_state for many entries, in one transaction, a chunk at a time.

    Each chunk is a few queries and one upsert, however many entries it holds: a chunk's
    entries are locked in key order (the order of every writer, as store_state's lock),
    derived together by state.verifications_of, and their rows written at once.
    """
    ids = sorted(set(entry_ids))
    with transaction.atomic():
        for start in range(0, len(ids), CHUNK):
            _store_chunk(ids[start : start + CHUNK])


def _store_chunk(ids: list[str]) -> None:
    locked = ErrorEntry.objects.select_for_update().filter(pk__in=ids).order_by("pk")
    present = list(locked.values_list("pk", flat=True))
    derived = verifications_of(present)
    current = EntryState.objects.filter(entry_id__in=present)
    before = {pk: (state, at) for pk, state, at in current.values_list("pk", "state", "changed_at")}
    now = timezone.now()
    rows = [_row(pk, v.state, before.get(pk), now) for pk, v in derived.items()]
    EntryState.objects.bulk_create(
        rows,
        update_conflicts=True,
        unique_fields=["entry"],
        update_fields=["state", "changed_at", "computed_at"],
    )
    entries_changed(present)


def _write(entry_id: str, state: State) -> EntryState:
    before = EntryState.objects.filter(entry_id=entry_id).values_list("state", "changed_at")
    row = _row(entry_id, state, before.first(), timezone.now())
    row.save()  # under the entry's lock: an update, or the insert of its first row
    return row


def _row(entry_id: str, state: State, before: tuple | None, now) -> EntryState:
    """The entry's row now; an unchanged state keeps the time it last changed."""
    old_state, changed_at = before or (None, now)
    return EntryState(entry_id, state, changed_at if old_state == state else now, now)


def stored_state(entry: ErrorEntry) -> State:
    """The entry's stored state: its annotation when the query carried one, else one read."""
    if hasattr(entry, ANNOTATION):
        return State(getattr(entry, ANNOTATION))
    state = EntryState.objects.filter(entry_id=entry.pk).values_list("state", flat=True).first()
    return State(state or State.UNVERIFIED)


def with_stored_state(entries: QuerySet) -> QuerySet:
    """The entries, each annotated with its stored state (unverified when none is stored)."""
    return entries.annotate(
        **{ANNOTATION: Coalesce("verification_state__state", Value(State.UNVERIFIED.value))}
    )


def in_state(entries: QuerySet, state: str) -> QuerySet:
    """The entries whose stored state is `state`: one indexed condition, in SQL."""
    if state == State.UNVERIFIED:
        # No row reads as unverified: every entry but those stored in another state.
        others = EntryState.objects.exclude(state=state).values("entry_id")
        return entries.exclude(pk__in=others)
    return entries.filter(verification_state__state=state)


@dataclass(frozen=True)
class Difference:
    entry_id: str
    stored: State
    derived: State


def differences(entries: QuerySet) -> Iterable[Difference]:
    """Every entry whose stored state is not what its runs give today, a chunk at a time."""
    # Without a finished run an entry derives unverified: only the others need deriving.
    has_runs = Exists(VerificationRun.objects.finished().filter(entry=OuterRef("pk")))
    candidates = with_stored_state(entries).annotate(has_runs=has_runs)
    candidates = candidates.filter(Q(has_runs=True) | ~Q(**{ANNOTATION: State.UNVERIFIED}))
    rows = candidates.order_by("pk").values_list("pk", ANNOTATION).iterator(chunk_size=CHUNK)
    while chunk := dict(islice(rows, CHUNK)):
        for entry_id, verification in verifications_of(chunk).items():
            if State(chunk[entry_id]) != verification.state:
                yield Difference(entry_id, State(chunk[entry_id]), verification.state)


def check_sweep_states(sweep: Sweep) -> list[Difference]:
    """The differences among the entries a sweep verified, each logged as a warning.

    Its runs stored their entries' states as they finished: a difference left at its
    end is a write that changed what a state depends on without storing it (raw SQL).
    """
    found = list(differences(ErrorEntry.objects.filter(pk__in=sweep.task_runs().values("entry"))))
    for difference in found:
        logger.warning(
            "%s: %s: stored %s, derived %s (manage.py recompute_states --fix stores it)",
            sweep,
            difference.entry_id,
            difference.stored.value,
            difference.derived.value,
        )
    finished = sweep.finished_runs
    logger.info(
        "%s: %d of %d runs finished, %d stored states differ from the derived",
        sweep,
        finished,
        sweep.runs,
        len(found),
    )
    return found


def links_changed(sender, instance, action: str, reverse: bool, pk_set, **kwargs) -> None:
    """m2m_changed of Scenario.entries: store the state of every entry linked or unlinked.

    Connected in apps.py, so the admin, sync_scenarios and the shell alike keep it right.
    """
    if action == "pre_clear":
        # After the clear nothing says which entries it unlinked: note them first.
        instance._unlinked_entries = (
            [instance.pk] if reverse else list(instance.entries.values_list("pk", flat=True))
        )
    elif action == "post_clear":
        store_states(getattr(instance, "_unlinked_entries", []))
    elif action in ("post_add", "post_remove"):
        store_states([instance.pk] if reverse else pk_set)


# What one delete() has noted, kept on its origin (the instance or queryset deleted):
# the entries whose state to store once the rows are gone, and the entries deleted too.
_NOTES = "_verification_deletion"


def _notes(origin) -> dict[str, set]:
    notes = getattr(origin, _NOTES, None)
    if notes is None:
        notes = {"pending": set(), "gone": set()}
        setattr(origin, _NOTES, notes)
    return notes


def run_deleting(sender, instance: VerificationRun, origin=None, **kwargs) -> None:
    """pre_delete of a run: its entry's state is stored again once the delete is done."""
    _notes(origin)["pending"].add(instance.entry_id)


def scenario_deleting(sender, instance: Scenario, origin=None, **kwargs) -> None:
    """pre_delete of a scenario: after the delete nothing says which entries it was linked to."""
    _notes(origin)["pending"].update(instance.entries.values_list("pk", flat=True))


def entry_deleting(sender, instance: ErrorEntry, origin=None, **kwargs) -> None:
    """pre_delete of an entry: its runs go with it, and no state is stored for it again."""
    _notes(origin)["gone"].add(instance.pk)


def rows_deleted(sender, instance, origin=None, **kwargs) -> None:
    """post_delete of a run or scenario: store the noted entries' states, once per delete.

    Django sends every pre_delete before deleting anything and each post_delete after
    the rows of its model (a run's are deleted before its scenario's, links first), all
    in the delete's transaction: the first post_delete sees what the delete leaves.
    """
    notes = _notes(origin)
    pending, notes["pending"] = notes["pending"] - notes["gone"], set()
    store_states(pending)
