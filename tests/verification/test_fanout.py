"""Fan-out in one step: entries linked without sync_scenarios, devices found once, one group."""

import pytest

from errorkb.kb.models import ErrorEntry
from errorkb.verification.models import Sweep
from errorkb.verification.tasks import enqueue, sweep
from tests.builders import import_records, load_demo, make_record

pytestmark = pytest.mark.django_db


def test_a_sweep_finds_the_devices_once_and_sends_every_run_as_one_group(settings, sent):
    settings.VERIFY_GPU = "auto"  # the devices are found by asking the workers
    load_demo()  # imported after the registry was mirrored; nobody ran sync_scenarios since
    count = sweep()
    covered = ErrorEntry.objects.published().filter(scenarios__active=True).distinct()
    assert covered.count() > 5
    assert sent["inspects"] == 1
    # One group of batches, here one batch: its worker sends the runs.
    assert sent["groups"][0] == len(sent["batches"]) == 1
    assert sent["batches"] == [count] and len(sent["tasks"]) == count
    assert {t["entry_id"] for t in sent["tasks"]} == {e.id for e in covered}
    # A failure and a fix run for each proof; a proof of absence has no fix to run.
    expected = sum(
        1 if scenario.proves_absence_of(entry) else 2
        for entry in covered
        for scenario in entry.scenarios.active()
    )
    assert count == expected


def test_a_sweep_records_its_runs_task_ids_for_its_progress(sent):
    load_demo()
    count = sweep()
    recorded = Sweep.objects.get()
    assert (recorded.source, recorded.runs) == ("sweep", count)
    assert recorded.entries == len({t["entry_id"] for t in sent["tasks"]})
    assert all(t["task_id"].startswith(recorded.task_prefix) for t in sent["tasks"])
    assert len({t["task_id"] for t in sent["tasks"]}) == count
    assert recorded.finished_runs == 0


def test_an_entry_imported_after_the_mirror_is_linked_before_its_runs_are_planned(sent):
    load_demo()
    entries = ErrorEntry.objects.for_repo("tracel-ai/burn")
    assert not entries.filter(scenarios__isnull=False).exists()  # not linked on import
    fanout = enqueue(entries, ["cpu"], source="admin")
    assert fanout.entries == entries.count() and not fanout.skipped
    assert len(sent["tasks"]) == len(fanout.runs) > 0


def test_a_link_a_curator_removed_stays_removed(sent):
    load_demo()
    enqueue(ErrorEntry.objects.all(), ["cpu"], source="admin")
    entry = ErrorEntry.objects.filter(scenarios__isnull=False).distinct().first()
    kept = entry.scenarios.first()
    entry.scenarios.set([kept])
    enqueue(ErrorEntry.objects.filter(pk=entry.pk), ["cpu"], source="admin")
    assert list(entry.scenarios.all()) == [kept]


def test_a_fanout_with_nothing_to_run_asks_no_worker_and_sends_nothing(settings, sent):
    settings.VERIFY_GPU = "auto"
    entry = import_records(make_record("Nothing reproduces this.", repo="tracel-ai/burn"))[0]
    fanout = enqueue(ErrorEntry.objects.filter(pk=entry.pk), source="admin")
    assert (sent["inspects"], sent["groups"], sent["batches"], fanout.sweep) == (0, [], [], None)
    assert fanout.skipped == [(entry, "no scenario is linked to it")]
    assert not Sweep.objects.exists()
