"""The unreachable state: a scenario proves that burn never prints an entry's message."""

import pytest

from errorkb.admin.verification import warnings_for
from errorkb.verification.state.judging import State, verification_of
from tests.verification.builders import link_absence, link_scenario, prove, record_run

pytestmark = pytest.mark.django_db

# What supervised training prints where "Can save model checkpoint." would be.
INTERRUPTED = "Training interrupted: Record error: `Record I/O error: No space left on device`"


def state_of(entry) -> State:
    return verification_of(entry).state


def test_it_is_unreachable_when_the_set_up_prints_other_texts_only(entry):
    absence = link_absence(entry)
    record_run(entry, absence, "reproduced", texts=[INTERRUPTED])
    verification = verification_of(entry)
    assert verification.state == State.UNREACHABLE
    assert State.UNREACHABLE.label == "unreachable: burn never prints it"
    assert verification.scenarios[0].absence


def test_it_needs_no_fix_run_to_be_unreachable(entry):
    absence = link_absence(entry)
    record_run(entry, absence, "reproduced", texts=[INTERRUPTED])
    assert verification_of(entry).scenarios[0].fix is None
    assert state_of(entry) == State.UNREACHABLE


def test_it_is_never_verified_from_absence_runs_even_with_a_fixed_run(entry):
    absence = link_absence(entry)
    record_run(entry, absence, "reproduced", texts=[INTERRUPTED])
    record_run(entry, absence, "fixed", variant="fixed")
    verification = verification_of(entry)
    assert verification.state == State.UNREACHABLE
    assert not verification.verified and not verification.fix_verified


def test_it_drifts_when_burn_prints_the_message_after_all(entry):
    absence = link_absence(entry)
    record_run(entry, absence, "reproduced", texts=[INTERRUPTED], minutes_ago=10)
    record_run(entry, absence, "reproduced", texts=["Can save model checkpoint.: Io(..)"])
    assert state_of(entry) == State.DRIFTED
    assert verification_of(entry).seen_instead is None


@pytest.mark.parametrize(
    ("statuses", "state"),
    [
        (["not_reproduced"], State.UNVERIFIED),
        (["reproduced", "not_reproduced"], State.NOT_REPRODUCING),
        (["unsupported"], State.UNSUPPORTED),
        (["reproduced", "not_reproduced", "reproduced"], State.FLAKY),
    ],
)
def test_it_follows_the_usual_rules_when_the_absence_run_does_not_hold(entry, statuses, state):
    absence = link_absence(entry)
    for age, status in zip(range(len(statuses), 0, -1), statuses, strict=True):
        texts = [INTERRUPTED] if status == "reproduced" else []
        record_run(entry, absence, status, texts=texts, minutes_ago=age)
    assert state_of(entry) == state


def test_it_is_the_worst_over_absence_scenarios_alone(entry):
    supervised = link_absence(entry)
    other = link_absence(entry, "rl-disk-full", seen="Can save policy checkpoint.")
    record_run(entry, supervised, "reproduced", texts=[INTERRUPTED])
    assert state_of(entry) == State.UNVERIFIED  # the other has not run yet
    record_run(entry, other, "reproduced", texts=["Can save policy checkpoint.: x"])
    assert state_of(entry) == State.UNREACHABLE
    record_run(entry, other, "unsupported")
    assert state_of(entry) == State.UNSUPPORTED


def test_proof_scenarios_decide_when_an_entry_has_both_kinds(entry):
    proof = link_scenario(entry)
    absence = link_absence(entry)
    record_run(entry, absence, "reproduced", texts=[INTERRUPTED])
    assert state_of(entry) == State.UNVERIFIED  # the proof has not run yet
    prove(entry, proof)
    verification = verification_of(entry)
    assert verification.state == State.VERIFIED
    assert verification.fix_verified  # the absence scenario has no fix to wait for
    assert {r.state for r in verification.scenarios} == {State.VERIFIED, State.UNREACHABLE}
    assert verification.seen_instead is None


def test_a_broken_absence_does_not_decide_beside_a_proof(entry):
    proof = link_scenario(entry)
    absence = link_absence(entry)
    prove(entry, proof)
    record_run(entry, absence, "not_reproduced")
    assert state_of(entry) == State.VERIFIED


def test_it_tells_what_the_reader_sees_instead_and_with_which_set_up(entry):
    absence = link_absence(entry)
    record_run(entry, absence, "reproduced", texts=["epoch 2 done", INTERRUPTED])
    seen = verification_of(entry).seen_instead
    assert seen.text == "epoch 2 done"  # the entry's pattern matched none: the first text
    assert seen.setup == "SupervisedTraining::launch with its default checkpointers (main)"


def test_it_tells_the_latest_absence_run_when_several_hold(entry):
    supervised = link_absence(entry)
    rl = link_absence(entry, "rl-disk-full", seen="Can save policy checkpoint.")
    rl.setup_summary, rl.release = "", "v0.21.0"
    rl.setup = "rl"
    rl.save()
    record_run(entry, supervised, "reproduced", texts=[INTERRUPTED], minutes_ago=5)
    record_run(entry, rl, "reproduced", texts=["Can save policy checkpoint.: x"])
    seen = verification_of(entry).seen_instead
    assert (seen.text, seen.setup) == ("Can save policy checkpoint.: x", "rl (v0.21.0)")


def test_it_lets_an_editor_publish_a_proven_unreachable_entry_without_a_warning(entry):
    assert any("no verification yet" in reason for reason in warnings_for(entry))
    record_run(entry, link_absence(entry), "reproduced", texts=[INTERRUPTED])
    assert warnings_for(entry) == []
