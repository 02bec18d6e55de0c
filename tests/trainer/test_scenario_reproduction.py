"""Every scenario reproduces its message and errno for real; every fix trains to the end."""

import os
import re

import pytest

from trainer.scenarios import SCENARIOS

NAMES = [s.name for s in SCENARIOS]
BY_NAME = {s.name: s for s in SCENARIOS}
KEYS = {
    "scenario", "variant", "status", "message", "errno", "exception_chain", "device",
    "torch_version", "python_version", "trainer_version", "epochs_run", "duration_s",
    "log_tail", "expected_pattern", "expected_errno", "documented_message",
}  # fmt: skip

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(os.geteuid() != 0, reason="the real OS faults need root"),
]


@pytest.mark.parametrize("variant", ["failure"])
@pytest.mark.parametrize("scenario_name", NAMES)
def test_it_reproduces_the_documented_failure(scenario_outcomes, scenario_name, variant):
    outcome = scenario_outcomes[scenario_name, variant].result()
    scenario = BY_NAME[scenario_name]
    assert KEYS <= outcome.keys()
    assert outcome["status"] == "reproduced", outcome
    assert re.fullmatch(scenario.expected_pattern, outcome["message"])
    assert outcome["errno"] == scenario.expected_errno
    assert outcome["documented_message"] == scenario.message
    assert outcome["message"].startswith(scenario.message)


@pytest.mark.parametrize("variant", ["fixed"])
@pytest.mark.parametrize("scenario_name", NAMES)
def test_it_trains_to_completion_with_the_fix(scenario_outcomes, scenario_name, variant):
    outcome = scenario_outcomes[scenario_name, variant].result()
    assert outcome["status"] == "fixed", outcome
    assert outcome["epochs_run"] == 4
    assert outcome["message"] is None


@pytest.mark.parametrize("variant", ["failure"])
@pytest.mark.parametrize("scenario_name", ["async-disk-full"])
def test_it_shows_the_worker_error_before_the_closed_channel(
    scenario_outcomes, scenario_name, variant
):
    outcome = scenario_outcomes[scenario_name, variant].result()
    chain = outcome["exception_chain"]
    assert chain[0].startswith("Panic (checkpointer thread): Error when saving the state: ")
    assert "No space left on device (os error 28)" in chain[0]
    log = "\n".join(outcome["log_tail"])
    assert "thread 'checkpointer-model' panicked:\nError when saving the state: " in log
    assert (
        outcome["message"] == 'Can delete model checkpoint.: Unknown("sending on a closed channel")'
    )
