"""kb says which entries' message or pattern changed, from each of its write paths."""

import pytest

from errorkb.kb.dataset import bulk_writes
from errorkb.kb.dataset.import_export import export_dataset
from errorkb.kb.models import ErrorEntry
from errorkb.kb.signals import entry_texts_changed
from errorkb.kb.workflow import transition
from tests.builders import import_records, make_record
from tests.kb.edits import edit
from tests.kb.people import editor

pytestmark = pytest.mark.django_db


@pytest.fixture
def said():
    """Each entry_texts_changed sent: its entry ids."""
    heard = []

    def receiver(sender, entry_ids, **kwargs):
        heard.append(entry_ids)

    entry_texts_changed.connect(receiver, dispatch_uid="test-said")
    yield heard
    entry_texts_changed.disconnect(dispatch_uid="test-said")


@pytest.fixture
def entries():
    return import_records(
        make_record("Engine stalled."),
        make_record("Engine halted.", filePath="src/halt.rs"),
        make_record("Engine flooded.", filePath="src/flood.rs"),
    )


def records(entries) -> list[dict]:
    """The entries as an exported file has them, in the entries' order."""
    exported = export_dataset(ErrorEntry.objects.filter(pk__in=[e.pk for e in entries]))
    by_id = {record["id"]: record for record in exported["records"]}
    return [by_id[entry.pk] for entry in entries]


def test_an_import_says_only_the_entries_whose_texts_it_changed(entries, said):
    stalled, halted, _ = records(entries)
    # One UPDATE writes the pattern of both; only halted's is a new one.
    import_records(
        {**stalled, "documentation": "Rewritten."},
        {**halted, "messagePattern": r"Engine stalled\."},
    )
    assert said == [[entries[1].pk]]


def test_an_import_of_other_fields_says_nothing(entries, said):
    import_records(*({**record, "documentation": "Rewritten."} for record in records(entries)))
    assert said == []


def test_a_change_through_editing_says_its_entry_once(entries, said):
    user = editor()
    entry = edit(entries[0], {"error_message": "Engine stalled twice."}, user)
    edit(entry, {"documentation": "Only the words."}, user)
    assert said == [[entries[0].pk]]


def test_a_workflow_step_says_nothing(said):
    (draft,) = import_records({**make_record("Engine stalled."), "status": "draft"})
    transition(draft, "submit", editor())
    assert said == []


def test_an_import_says_every_entry_whose_texts_it_changed_once(entries, said, monkeypatch):
    monkeypatch.setattr(bulk_writes, "UPDATE_BATCH", 1)  # one UPDATE an entry
    stalled, halted, flooded = records(entries)
    import_records(
        {**stalled, "messagePattern": "stalled"},
        {**halted, "errorMessage": "Engine halted for good."},
        {**flooded, "documentation": "Words only."},
    )
    assert said == [sorted([entries[0].pk, entries[1].pk])]


def test_an_import_that_fails_says_nothing(entries, said):
    stalled, *_ = records(entries)
    with pytest.raises(Exception, match="unknown entry"):
        import_records({**stalled, "messagePattern": "stalled", "related": ["0123456789abcdef"]})
    assert said == []
