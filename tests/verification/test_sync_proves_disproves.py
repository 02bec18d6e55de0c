"""sync_scenarios with the registry's proves and disproves: proof and absence alike linked."""

import pytest

from errorkb.verification.models import Scenario
from errorkb.verification.sync import sync_scenarios
from tests.builders import BURN_MAIN, import_records, make_record
from tests.verification.builders import registry_item

pytestmark = pytest.mark.django_db

SAVE, DELETE = "Can save model checkpoint.", "Can delete model checkpoint."
INTERRUPTED = "Training interrupted: {reason}"


@pytest.fixture
def entries():
    records = [
        make_record(SAVE, repo="tracel-ai/burn"),
        make_record(DELETE, repo="tracel-ai/burn"),
        make_record(INTERRUPTED, repo="tracel-ai/burn", slug="training-interrupted"),
    ]
    return dict(zip((SAVE, DELETE, INTERRUPTED), import_records(*records), strict=True))


def supervised(**overrides) -> dict:
    fields = {
        "release": "main",
        "setup": "supervised",
        "setup_summary": "SupervisedTraining::launch with its default checkpointers",
        "expected": [r"Training interrupted: Record error: .*", r"second .*"],
        "disproves": [SAVE, DELETE],
    }
    return registry_item("supervised-disk-full", INTERRUPTED, **(fields | overrides))


def test_it_links_the_entries_it_proves_and_those_it_disproves(entries):
    result = sync_scenarios([supervised()])
    scenario = Scenario.objects.get(name="supervised-disk-full")
    assert set(scenario.entries.all()) == set(entries.values())
    assert result.links == 3
    assert scenario.proves_absence_of(entries[SAVE])
    assert not scenario.proves_absence_of(entries[INTERRUPTED])


def test_it_mirrors_the_new_fields(entries):
    sync_scenarios([supervised()])
    scenario = Scenario.objects.get(name="supervised-disk-full")
    assert (scenario.release, scenario.setup) == ("main", "supervised")
    assert (
        scenario.setup_label == "SupervisedTraining::launch with its default checkpointers (main)"
    )
    assert scenario.expected == [r"Training interrupted: Record error: .*", r"second .*"]
    assert scenario.expected_pattern == r"Training interrupted: Record error: .*"
    assert (scenario.proves, scenario.disproves) == ([INTERRUPTED], [SAVE, DELETE])
    assert scenario.citations == [f"crates/burn-train/src/learner/base.rs:178@{BURN_MAIN}"]
    assert scenario.message == INTERRUPTED


def test_a_scenario_that_only_disproves_is_about_its_first_message(entries):
    sync_scenarios([supervised(proves=[])])
    scenario = Scenario.objects.get(name="supervised-disk-full")
    assert scenario.message == SAVE
    assert set(scenario.entries.all()) == {entries[SAVE], entries[DELETE]}


def test_it_links_only_the_trainers_repository(entries):
    elsewhere = import_records(make_record(SAVE, repo="acme/rocket"))[0]
    sync_scenarios([supervised()])
    assert not elsewhere.scenarios.exists()


def test_it_updates_a_scenario_whose_registry_entry_changed(entries):
    sync_scenarios([supervised()])
    result = sync_scenarios([supervised(release="v0.21.0", disproves=[SAVE])])
    assert (result.created, result.updated) == (0, 1)
    assert Scenario.objects.get(name="supervised-disk-full").release == "v0.21.0"


def test_the_trainers_own_registry_syncs():
    # Whatever the registry holds today, each item carries the keys sync reads.
    from trainer.scenarios import registry

    sync_scenarios()
    assert Scenario.objects.active().count() == len(registry())
    assert all(s.proves or s.disproves for s in Scenario.objects.all())
    # a run that prints nothing expects no text: the file-size limit ends burn by SIGXFSZ
    # (a run that aborts by SIGABRT prints its panics first)
    silent = {s.name for s in Scenario.objects.all() if not s.expected}
    assert silent == {item["name"] for item in registry() if item["expected_signal"] == "SIGXFSZ"}
