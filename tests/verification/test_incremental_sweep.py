"""The nightly sweep runs what changed since each run last ran, and a rolling share of the
oldest confirmations; nothing else. Runs are recorded as workers record them (builders)."""

import math

import pytest
from django.contrib.auth.models import User

from errorkb.verification import fingerprints
from errorkb.verification.models import Confirmation, Sweep, VerificationRun, WorkerEnvironment
from errorkb.verification.tasks import sweep
from tests.builders import import_records, make_record
from tests.kb.edits import edit
from tests.verification.builders import link_scenario, prove, record_run

pytestmark = pytest.mark.django_db
ENTRIES = 8  # each proved by one scenario: a failure and a fix run, 16 confirmations


@pytest.fixture(autouse=True)
def cpu_only(settings):
    settings.VERIFY_GPU = "never"  # no broadcast to look for a GPU worker
    settings.VERIFY_RECHECK_NIGHTS = 0  # each test that wants the rolling share sets it


@pytest.fixture
def confirmed():
    """ENTRIES published entries, each run on the same inputs, entry n n hours ago."""
    records = [make_record(f"Can save part {n}.", filePath=f"src/p{n}.rs") for n in range(ENTRIES)]
    entries = import_records(*records)
    scenario = link_scenario(entries[0])
    for hours, entry in enumerate(entries):
        scenario.entries.add(entry)
        prove(entry, scenario, minutes_ago=60 * hours, message=f"{entry.error_message}: Io(..)")
    assert Confirmation.objects.count() == 2 * ENTRIES
    return entries


def planned(sent) -> list[tuple[str, str, str]]:
    return sorted((t["entry_id"], t["scenario_name"], t["variant"]) for t in sent["tasks"])


def test_a_sweep_with_nothing_changed_runs_nothing_and_says_so(confirmed, sent):
    assert sweep() == 0
    assert sent["tasks"] == []
    recorded = Sweep.objects.get()
    assert (recorded.runs, recorded.confirmed, recorded.reasons) == (0, 2 * ENTRIES, {})


def test_a_second_sweep_with_nothing_changed_runs_only_the_rolling_share(confirmed, sent, settings):
    settings.VERIFY_RECHECK_NIGHTS = 5
    share = math.ceil(2 * ENTRIES / 5)  # 4 of 16
    assert sweep() == share
    # The oldest confirmations: the two entries run longest ago, failure and fix each.
    oldest = sorted(confirmed[-2:], key=lambda entry: entry.pk)
    assert planned(sent) == [
        (entry.pk, "disk-full", variant) for entry in oldest for variant in ("failure", "fixed")
    ]
    recorded = Sweep.objects.get()
    assert recorded.reasons == {fingerprints.ROLLING: share}
    assert recorded.confirmed == 2 * ENTRIES - share


def test_the_rolling_share_reaches_every_run_within_the_stated_nights(confirmed, sent, settings):
    settings.VERIFY_RECHECK_NIGHTS = 4
    first = set(Confirmation.objects.values_list("run_id", flat=True))
    nights = []
    for _night in range(4):
        sent["tasks"].clear()
        sweep()
        nights.append(planned(sent))
        for task in sent["tasks"]:  # the workers' part: each planned run runs
            entry = next(e for e in confirmed if e.pk == task["entry_id"])
            status = "fixed" if task["variant"] == "fixed" else "reproduced"
            message = None if status == "fixed" else f"{entry.error_message}: Io(..)"
            record_run(entry, entry.scenarios.get(), status, message, variant=task["variant"])
    assert [len(night) for night in nights] == [4, 4, 4, 4]
    assert len(set().union(*nights)) == 2 * ENTRIES  # each run once in four nights
    assert first.isdisjoint(Confirmation.objects.values_list("run_id", flat=True))


def test_an_entrys_edit_plans_exactly_its_own_runs(
    confirmed, sent, django_capture_on_commit_callbacks
):
    entry = confirmed[3]
    curator = User.objects.create(username="curator")
    with django_capture_on_commit_callbacks(execute=True):
        edit(entry, {"message_pattern": r"Can save part 3\. \(edited\)"}, curator)
    expected = [(entry.pk, "disk-full", "failure"), (entry.pk, "disk-full", "fixed")]
    assert sent["reverified"] == [[entry.pk]] and planned(sent) == expected  # at once
    changed = Sweep.objects.get(source="changed")
    assert changed.reasons == {fingerprints.CHANGED["entry"]: 2}
    sent["tasks"].clear()
    # Those runs have not run yet: tonight's sweep plans them, and nothing else.
    assert sweep() == 2 and planned(sent) == expected
    assert Sweep.objects.get(source="sweep").reasons == {fingerprints.CHANGED["entry"]: 2}


def test_a_trainer_change_plans_every_run(confirmed, sent):
    WorkerEnvironment.objects.create(
        device="cpu",
        trainer="0" * fingerprints.DIGEST_CHARS,  # the workers restarted on other code
        torch=fingerprints.torch_version(),
        announced_at=confirmed[0].updated_at,
    )
    assert sweep() == 2 * ENTRIES
    assert {t["entry_id"] for t in sent["tasks"]} == {entry.pk for entry in confirmed}
    assert Sweep.objects.get().reasons == {fingerprints.CHANGED["trainer"]: 2 * ENTRIES}


def test_a_torch_upgrade_plans_every_run(confirmed, sent):
    fingerprints.announce(["cpu"], host="worker-1")
    WorkerEnvironment.objects.filter(device="cpu").update(torch="2.14.0+cpu")
    assert sweep() == 2 * ENTRIES
    assert Sweep.objects.get().reasons == {fingerprints.CHANGED["torch"]: 2 * ENTRIES}


def test_a_worker_announcing_the_same_environment_plans_nothing(confirmed, sent):
    fingerprints.announce(["cpu"], host="worker-1")
    assert sweep() == 0


def test_a_scenario_whose_definition_changed_plans_its_entries_runs_only(confirmed, sent):
    (other,) = import_records(make_record("Can load part 9.", filePath="src/q9.rs"))
    second = link_scenario(other, "load-missing")
    prove(other, second)
    type(second).objects.filter(pk=second.pk).update(definition="f" * 16)
    assert sweep() == 2
    assert planned(sent) == [
        (other.pk, "load-missing", "failure"),
        (other.pk, "load-missing", "fixed"),
    ]
    assert Sweep.objects.get().reasons == {fingerprints.CHANGED["scenario"]: 2}


def test_a_run_that_ended_in_a_harness_error_runs_again(confirmed, sent):
    entry = confirmed[0]
    scenario = entry.scenarios.get()
    record_run(entry, scenario, "error", None)
    assert sweep() == 1
    assert planned(sent) == [(entry.pk, "disk-full", "failure")]
    assert Sweep.objects.get().reasons == {fingerprints.HARNESS_ERROR: 1}


def test_runs_recorded_before_inputs_were_run_again_saying_so(confirmed, sent):
    # As the migration leaves a database that already held runs: no inputs, no fingerprint.
    VerificationRun.objects.filter(entry=confirmed[0]).update(inputs={})
    Confirmation.objects.filter(entry=confirmed[0]).update(fingerprint="")
    assert sweep() == 2
    assert Sweep.objects.get().reasons == {fingerprints.UNRECORDED: 2}


def test_a_confirmation_keeps_its_runs_fingerprint_and_none_for_a_harness_error(confirmed):
    entry = confirmed[0]
    failure = Confirmation.objects.get(entry=entry, variant="failure")
    assert failure.fingerprint == fingerprints.fingerprint(failure.run.inputs)
    record_run(entry, entry.scenarios.get(), "error", None)
    failure.refresh_from_db()
    assert (failure.run.status, failure.fingerprint) == ("error", "")


def test_changed_runs_are_sent_before_the_rolling_share(confirmed, sent, settings):
    settings.VERIFY_RECHECK_NIGHTS = 8
    (new,) = import_records(make_record("Can save part 99.", filePath="src/p99.rs"))
    confirmed[0].scenarios.get().entries.add(new)
    assert sweep() == 2 + 2
    firsts = [task["entry_id"] == new.pk for task in sent["tasks"]]
    assert firsts == [True, True, False, False]  # never run first, then the oldest two
    assert Sweep.objects.get().reasons == {fingerprints.NEVER_RUN: 2, fingerprints.ROLLING: 2}
