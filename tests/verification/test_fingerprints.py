"""A run's fingerprint: it changes with each input that decides the run's outcome, and
with nothing else."""

import shutil

import pytest
from django.utils import timezone

from errorkb.verification import fingerprints
from errorkb.verification.fingerprints import Environment, fingerprint, run_inputs
from errorkb.verification.models import Scenario, WorkerEnvironment
from errorkb.verification.runs import inputs_here
from tests.builders import import_records, make_record
from tests.verification.builders import link_scenario, record_run, registry_item, sync_scenarios

BASE = {
    "scenario": "0123456789abcdef",
    "entry": "fedcba9876543210",
    "variant": "failure",
    "device": "cpu",
    "environment": Environment(trainer="1111222233334444", torch="2.13.0+cpu"),
}
CHANGED_INPUTS = [
    ("scenario", "0123456789abcdee"),
    ("entry", "fedcba9876543211"),
    ("variant", "fixed"),
    ("device", "cuda"),
    ("environment", Environment(trainer="1111222233334445", torch="2.13.0+cpu")),
    ("environment", Environment(trainer="1111222233334444", torch="2.13.1+cpu")),
    ("environment", Environment(trainer="1111222233334444", torch="2.13.0+cu128")),
]


@pytest.mark.parametrize(("name", "value"), CHANGED_INPUTS)
def test_the_fingerprint_changes_with_each_input(name, value):
    before = fingerprint(run_inputs(**BASE))
    assert fingerprint(run_inputs(**(BASE | {name: value}))) != before


def test_the_fingerprint_is_the_same_for_the_same_inputs_in_any_order():
    inputs = run_inputs(**BASE)
    assert fingerprint(dict(reversed(inputs.items()))) == fingerprint(inputs)
    assert len(fingerprint(inputs)) == fingerprints.DIGEST_CHARS


@pytest.mark.django_db
def test_a_runs_inputs_follow_the_entrys_message_and_pattern_and_nothing_else_of_it():
    (entry,) = import_records(make_record("Can save model checkpoint."))
    scenario = link_scenario(entry)
    before = inputs_here(entry, scenario, "failure", "cpu")
    # What a run's outcome does not depend on: the entry's prose, tags, the scenario's
    # sync time, the clock.
    entry.documentation = "Rewritten from the first word."
    entry.common_situations = "Another situation."
    entry.save()
    scenario.synced_at = timezone.now()
    scenario.save()
    assert inputs_here(entry, scenario, "failure", "cpu") == before
    for field, value in (("error_message", "Can save the checkpoint."), ("message_pattern", "x")):
        changed = type(entry).objects.get(pk=entry.pk)
        setattr(changed, field, value)
        assert inputs_here(changed, scenario, "failure", "cpu")["entry"] != before["entry"]


@pytest.mark.django_db
def test_a_scenarios_definition_follows_the_registrys_item():
    sync_scenarios([registry_item("disk-full", "Can save model checkpoint.")])
    first = Scenario.objects.get(name="disk-full").definition
    sync_scenarios([registry_item("disk-full", "Can save model checkpoint.")])
    assert Scenario.objects.get(name="disk-full").definition == first  # the same item
    cited = registry_item(
        "disk-full",
        "Can save model checkpoint.",
        citations=["crates/burn-train/src/learner/base.rs:179@" + "0" * 40],
    )
    sync_scenarios([cited])
    assert Scenario.objects.get(name="disk-full").definition != first  # another cited line


def test_the_trainer_digest_reads_every_file_of_the_trainer(tmp_path, monkeypatch):
    copy = tmp_path / "trainer"
    shutil.copytree(fingerprints.TRAINER_ROOT, copy, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(fingerprints, "TRAINER_ROOT", copy)
    fingerprints.trainer_digest.cache_clear()
    try:
        before = fingerprints.trainer_digest()
        (copy / "faults" / "volume.py").write_text(
            (copy / "faults" / "volume.py").read_text() + "\n# one more line\n"
        )
        fingerprints.trainer_digest.cache_clear()
        assert fingerprints.trainer_digest() != before
        (copy / "notes.txt").write_text("not code")
        after = fingerprints.trainer_digest()
        fingerprints.trainer_digest.cache_clear()
        assert fingerprints.trainer_digest() == after  # only the code counts
    finally:
        fingerprints.trainer_digest.cache_clear()


@pytest.mark.django_db
def test_a_run_records_the_inputs_it_ran_on():
    (entry,) = import_records(make_record("Can save model checkpoint."))
    scenario = link_scenario(entry)
    run = record_run(entry, scenario, "reproduced", "Can save model checkpoint.: Io(..)")
    assert run.inputs == inputs_here(entry, scenario, "failure", "cpu")
    assert run.inputs["trainer"] == fingerprints.trainer_digest()
    assert run.inputs["torch"] == fingerprints.torch_version() != ""


@pytest.mark.django_db
def test_the_planner_takes_each_devices_environment_from_its_workers_announcement():
    local = fingerprints.local_environment()
    assert fingerprints.environments(["cpu", "cuda"]) == {"cpu": local, "cuda": local}
    fingerprints.announce(["cuda"], host="gpu-1")
    WorkerEnvironment.objects.filter(device="cuda").update(torch="2.13.0+cu128")
    assert fingerprints.environments(["cpu", "cuda"])["cuda"] == Environment(
        local.trainer, "2.13.0+cu128"
    )
    assert WorkerEnvironment.objects.get(device="cuda").host == "gpu-1"


@pytest.mark.django_db
def test_the_runs_api_shows_each_runs_inputs_and_fingerprint(client):
    (entry,) = import_records(make_record("Can save model checkpoint."))
    scenario = link_scenario(entry)
    run = record_run(entry, scenario, "reproduced", "Can save model checkpoint.: Io(..)")
    older = record_run(entry, scenario, "reproduced", "Can save model checkpoint.: Io(..)",
                       minutes_ago=60)  # fmt: skip
    type(run).objects.filter(pk=older.pk).update(inputs={})  # recorded before runs kept them
    listed = {r["taskId"]: r for r in client.get(f"/api/errors/{entry.pk}/runs").json()["results"]}
    assert listed[run.task_id]["inputs"] == run.inputs
    assert listed[run.task_id]["fingerprint"] == fingerprint(run.inputs)
    assert (listed[older.task_id]["inputs"], listed[older.task_id]["fingerprint"]) == ({}, "")
