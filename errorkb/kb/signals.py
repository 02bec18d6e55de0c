"""What kb tells the apps above it: that some entries' texts changed.

An entry's texts are what a verification run is judged against: its message and its
pattern. kb sits below verification and calls nothing of it, so its write paths say
the fact themselves, inside their transaction: editing.change for one entry, and the
dataset import for many (the command and the admin's uploads alike). A new write path
that changes texts calls texts_changed too; a bare QuerySet.update() or raw SQL says
nothing, and `manage.py recompute_states --fix` stores the states it left stale.
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
