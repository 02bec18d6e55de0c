"""An entry whose message or pattern changed: judged again at once, verified again after.

A run's verdict belongs to the texts it was judged against (judging.py judges every run
against the entry's pattern as it is now). kb's write paths say which entries' texts
they changed, inside their transaction (kb.signals.entry_texts_changed: editing.change
for one entry, the dataset import for many); apps.py connects `texts_changed` here,
which stores their states again in that transaction and enqueues their verification
once it commits.

A write of the texts outside those paths (a bare QuerySet.update(), raw SQL, another
program) says nothing: the stored state stays as it was until `manage.py
recompute_states --fix` stores it again (every sweep's end logs each entry that differs).
"""

from functools import partial

from django.db import transaction

from ..models import Scenario
from ..tasks import verify_entries
from .stored import store_states

CHUNK = 5000  # entries read, or sent to be verified, at a time


def texts_changed(sender, entry_ids: list[str], **kwargs) -> None:
    """kb.signals.entry_texts_changed: store the entries' states now, verify them after commit.

    Only entries with a scenario have a state to judge: the others stay unverified.
    """
    linked = _linked(entry_ids)
    store_states(linked)
    if linked:
        transaction.on_commit(partial(verify_again, linked), robust=True)


def _linked(entry_ids: list[str]) -> list[str]:
    links = Scenario.entries.through.objects
    linked: set[str] = set()
    for start in range(0, len(entry_ids), CHUNK):
        chunk = links.filter(errorentry_id__in=entry_ids[start : start + CHUNK])
        linked.update(chunk.values_list("errorentry_id", flat=True))
    return sorted(linked)


def verify_again(entry_ids: list[str]) -> None:
    """Enqueue the entries' verification: one task a chunk, which plans their runs."""
    for start in range(0, len(entry_ids), CHUNK):
        verify_entries.apply_async(kwargs={"entry_ids": entry_ids[start : start + CHUNK]})
