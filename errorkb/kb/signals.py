"""What kb tells the rooms above it: that some entries' texts changed.

An entry's texts are what a verification run is judged against: its message and its
pattern. kb sits below verification and calls nothing of it, so its write paths say
the fact themselves, inside their transaction: editing.change for one entry, and
ErrorEntryQuerySet.update for many (QuerySet.update() and bulk_update alike, so
dataset imports and uploads too). A write that runs no Python (raw SQL) is caught by
verification's database trigger instead.
"""

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from django.dispatch import Signal

# The fields a run's verdict is judged against (verification.state).
TEXT_FIELDS = ("error_message", "message_pattern")

# Sent with entry_ids, a sorted list, once those entries' texts are written and before
# their transaction commits: a receiver's writes commit, or roll back, with them.
entry_texts_changed = Signal()

_gathered: ContextVar[set[str] | None] = ContextVar("entry_texts_gathered", default=None)


def texts_changed(sender, entry_ids: Iterable[str]) -> None:
    """Say that these entries' texts changed: now, or at the end of a gathering block."""
    ids = set(entry_ids)
    gathering = _gathered.get()
    if gathering is not None:
        gathering.update(ids)
    elif ids:
        entry_texts_changed.send(sender=sender, entry_ids=sorted(ids))


@contextmanager
def gathering_text_changes(sender) -> Iterator[None]:
    """Inside, texts_changed only notes the entries; leaving, it says them all once.

    For a write of thousands of entries in many statements (an import): its receivers
    then judge them and enqueue their verification once, not once per statement. Call
    it inside the write's transaction; nothing is said when the block raises.
    """
    ids: set[str] = set()
    token = _gathered.set(ids)
    try:
        yield
    finally:
        _gathered.reset(token)
    texts_changed(sender, ids)
