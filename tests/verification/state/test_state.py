"""An entry's verification state, derived from its recorded runs."""

import pytest

from errorkb.verification.state.judging import State, verification_of
from tests.verification.builders import prove, record_run

pytestmark = pytest.mark.django_db


def state_of(entry) -> State:
    return verification_of(entry).state


def test_it_is_unverified_without_a_scenario(entry):
    assert state_of(entry) == State.UNVERIFIED


def test_it_is_unverified_when_never_run(entry, scenario):
    assert state_of(entry) == State.UNVERIFIED


def test_it_is_verified_when_the_failure_reproduces_and_the_fix_passes(entry, scenario):
    prove(entry, scenario)
    verification = verification_of(entry)
    assert verification.state == State.VERIFIED
    assert verification.fix_verified and verification.devices == ["cpu"]
    assert verification.last_verified_at is not None
    assert verification.observed_message == "Can save model checkpoint.: Io(..)"


def test_it_is_not_verified_while_the_fix_fails(entry, scenario):
    record_run(entry, scenario, "reproduced", "Can save model checkpoint.: x")
    record_run(entry, scenario, "not_reproduced", variant="fixed")
    verification = verification_of(entry)
    assert verification.state == State.UNVERIFIED and not verification.fix_verified


def test_it_drifts_when_the_observed_message_no_longer_matches(entry, scenario):
    prove(entry, scenario, minutes_ago=10)
    record_run(entry, scenario, "reproduced", "Could not save the model checkpoint: x")
    assert state_of(entry) == State.DRIFTED
    assert verification_of(entry).scenarios[0].failure.pattern_matched is False


def test_it_is_not_reproducing_once_a_reproduced_failure_stops(entry, scenario):
    prove(entry, scenario, minutes_ago=10)
    record_run(entry, scenario, "not_reproduced", "training completed")
    assert state_of(entry) == State.NOT_REPRODUCING


def test_it_is_unverified_when_it_never_reproduced(entry, scenario):
    record_run(entry, scenario, "not_reproduced")
    assert state_of(entry) == State.UNVERIFIED


def test_it_is_flaky_when_outcomes_flip_back_and_forth(entry, scenario):
    prove(entry, scenario, minutes_ago=30)
    record_run(entry, scenario, "not_reproduced", minutes_ago=20)
    prove(entry, scenario, minutes_ago=10)
    assert state_of(entry) == State.FLAKY


def test_it_is_unsupported_here_when_the_host_cannot_make_the_fault(entry, scenario):
    record_run(entry, scenario, "unsupported")
    assert state_of(entry) == State.UNSUPPORTED
    assert State.UNSUPPORTED.label == "unsupported here"


def test_it_ignores_harness_errors(entry, scenario):
    prove(entry, scenario, minutes_ago=10)
    record_run(entry, scenario, "error", "scenario process killed by SIGKILL")
    assert state_of(entry) == State.VERIFIED


def test_it_takes_the_worst_scenario_and_device(entry, scenario):
    prove(entry, scenario)
    prove(entry, scenario, device="cuda", minutes_ago=10)
    record_run(entry, scenario, "not_reproduced", device="cuda")
    verification = verification_of(entry)
    assert verification.state == State.NOT_REPRODUCING
    assert {(r.device, r.state) for r in verification.scenarios} == {
        ("cpu", State.VERIFIED),
        ("cuda", State.NOT_REPRODUCING),
    }


def test_it_keeps_the_last_thirty_runs_for_the_history(entry, scenario):
    for minutes in range(20):
        prove(entry, scenario, minutes_ago=minutes)
    history = verification_of(entry).history
    assert len(history) == 30
    assert history == sorted(history, key=lambda run: run.started_at, reverse=True)
