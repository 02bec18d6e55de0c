"""An entry whose message or pattern changed: judged again at once, verified again after.

A run's verdict belongs to the texts it was judged against (state.py judges every run
against the entry's pattern as it is now). kb says which entries' texts changed, from
its write paths and inside their transaction (kb.signals.entry_texts_changed); apps.py
connects `texts_changed` here, which stores their states again in that transaction and
enqueues their verification once it commits.

A write that runs no Python (raw SQL, another program) says nothing: a trigger on the
entries' table deletes the entry's stored state when its texts change, so it reads as
unverified, never as verified on texts no run observed, until a run, `manage.py
recompute_states --fix` or the end of a sweep's check says otherwise. The trigger is
(re)installed after every migrate, as kb's freshness triggers are: SQLite drops a
table's triggers when a migration rebuilds the table.
"""

from functools import partial

from django.db import connections, transaction

from errorkb.kb.models import ErrorEntry
from errorkb.kb.signals import TEXT_FIELDS

from .models import EntryState, Scenario
from .stored import store_states
from .tasks import verify_entries

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


# --- raw writes: the trigger ----------------------------------------------------------

TRIGGER = "errorkb_texts_unjudged"
_ENTRIES = ErrorEntry._meta.db_table
_STATES = EntryState._meta.db_table
_TEXTS = [ErrorEntry._meta.get_field(name).column for name in TEXT_FIELDS]
_DELETE = (
    f"DELETE FROM {_STATES} WHERE {EntryState._meta.get_field('entry').column}"
    f" = NEW.{ErrorEntry._meta.pk.column}"
)

SQLITE_TRIGGER = (
    f'CREATE TRIGGER IF NOT EXISTS {TRIGGER} AFTER UPDATE OF {", ".join(_TEXTS)} ON "{_ENTRIES}"'
    f" WHEN {' OR '.join(f'OLD.{c} IS NOT NEW.{c}' for c in _TEXTS)}"
    f" BEGIN {_DELETE}; END"
)
PG_FUNCTION = f"""
CREATE OR REPLACE FUNCTION {TRIGGER}() RETURNS trigger AS $$
BEGIN
    {_DELETE};
    RETURN NULL;
END;
$$ LANGUAGE plpgsql
"""
PG_TRIGGER = (
    f"CREATE TRIGGER {TRIGGER} AFTER UPDATE OF {', '.join(_TEXTS)} ON {_ENTRIES} FOR EACH ROW"
    f" WHEN ({' OR '.join(f'OLD.{c} IS DISTINCT FROM NEW.{c}' for c in _TEXTS)})"
    f" EXECUTE FUNCTION {TRIGGER}()"
)


def install_trigger(*, using: str = "default") -> None:
    """Create the trigger where it is missing (both tables must exist)."""
    connection = connections[using]
    if not {_ENTRIES, _STATES} <= set(connection.introspection.table_names()):
        return
    with connection.cursor() as cursor:
        if connection.vendor == "sqlite":
            cursor.execute(SQLITE_TRIGGER)
        elif connection.vendor == "postgresql":
            cursor.execute(PG_FUNCTION)
            cursor.execute("SELECT 1 FROM pg_trigger WHERE tgname = %s", [TRIGGER])
            if cursor.fetchone() is None:
                cursor.execute(PG_TRIGGER)
