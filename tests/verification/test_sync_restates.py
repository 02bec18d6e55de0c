"""sync_scenarios stores the states only of the entries whose outcome it may change."""

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from errorkb.verification.models import EntryState, Scenario
from errorkb.verification.sync import sync_scenarios
from tests.builders import import_records, load_demo, make_record
from tests.verification.builders import registry_item

pytestmark = pytest.mark.django_db

SAVE, DELETE = "Can save model checkpoint.", "Can delete model checkpoint."
LONG_AGO = timezone.now() - timedelta(days=30)


def _writes_to_entry_states(queries) -> list[str]:
    table = EntryState._meta.db_table
    return [
        q["sql"]
        for q in queries
        if table in q["sql"] and q["sql"].lstrip().upper().startswith(("INSERT", "UPDATE"))
    ]


def test_a_sync_with_nothing_changed_writes_no_entry_state():
    load_demo()
    sync_scenarios()
    assert EntryState.objects.exists()
    EntryState.objects.update(computed_at=LONG_AGO)
    with CaptureQueriesContext(connection) as queries:
        result = sync_scenarios()
    assert (result.created, result.retired, result.links) == (0, 0, 0)
    assert _writes_to_entry_states(queries) == []
    assert not EntryState.objects.exclude(computed_at=LONG_AGO).exists()


def _computed_again() -> set[str]:
    return set(
        EntryState.objects.exclude(computed_at=LONG_AGO).values_list(
            "entry__error_message", flat=True
        )
    )


@pytest.fixture
def two():
    import_records(make_record(SAVE, repo="tracel-ai/burn"))
    import_records(make_record(DELETE, repo="tracel-ai/burn"))
    sync_scenarios([registry_item("saves", SAVE), registry_item("deletes", DELETE)])
    EntryState.objects.update(computed_at=LONG_AGO)


def test_a_scenario_that_changes_what_it_disproves_restates_its_entries_only(two):
    changed = registry_item("saves", SAVE, disproves=["Something never printed."])
    sync_scenarios([changed, registry_item("deletes", DELETE)])
    assert _computed_again() == {SAVE}


def test_a_retired_scenario_restates_its_entries_only(two):
    sync_scenarios([registry_item("deletes", DELETE)])
    assert not Scenario.objects.get(name="saves").active
    assert _computed_again() == {SAVE}


def test_a_new_link_restates_the_newly_linked_entry_only(two):
    import_records(make_record("Can load model checkpoint.", repo="tracel-ai/burn"))
    item = registry_item("deletes", DELETE, disproves=["Can load model checkpoint."])
    result = sync_scenarios([registry_item("saves", SAVE), item])
    # "deletes" changed what it disproves: its entries are restated, the new one with them.
    assert result.links == 1
    assert _computed_again() == {DELETE, "Can load model checkpoint."}
