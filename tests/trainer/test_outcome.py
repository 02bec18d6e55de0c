"""The typed outcome: its JSON form round-trips, and a malformed payload is refused."""

import pytest

from trainer.outcome import Outcome, OutcomeError, Status, Variant
from trainer.scenarios import SCENARIOS


def test_it_round_trips_through_json():
    outcome = Outcome.start(SCENARIOS[0], "fixed", "cpu")
    outcome.texts, outcome.status = ["a text"], Status.FIXED
    again = Outcome.from_json(outcome.to_json())
    assert again == outcome
    assert again.to_dict()["expected_status"] == "fixed"


def test_it_names_the_status_each_variant_must_reach():
    assert Variant.FAILURE.expected_status == Status.REPRODUCED
    assert Variant.FIXED.expected_status == Status.FIXED


@pytest.mark.parametrize(
    ("payload", "complaint"),
    [
        ([], "a JSON object"),
        ({"scenario": "s", "variant": "failure"}, "missing keys: status"),
        ({"scenario": "s", "variant": "failure", "status": "running"}, "status: 'running'"),
        ({"scenario": "s", "variant": "broken", "status": "error"}, "variant"),
        ({"scenario": "s", "variant": "fixed", "status": "fixed", "texts": "x"}, "texts"),
        ({"scenario": "s", "variant": "fixed", "status": "fixed", "errno": True}, "errno"),
        ({"scenario": "s", "variant": "fixed", "status": "fixed", "colour": 1}, "unknown keys"),
    ],
)
def test_it_refuses_a_malformed_payload(payload, complaint):
    with pytest.raises(OutcomeError, match=complaint):
        Outcome.from_dict(payload)


def test_it_refuses_text_that_is_not_json():
    with pytest.raises(OutcomeError, match="not JSON"):
        Outcome.from_json("Traceback (most recent call last):")


def test_it_records_console_texts_and_log_records_apart():
    outcome = Outcome.start(SCENARIOS[0], "failure", "cpu")
    outcome.record("PANIC => p", "ERROR t: PANIC => p", logged=True, errno=None)
    outcome.record("=== PANIC ===", "=== PANIC ===", logged=False, errno=None)
    outcome.record("p", "thread 'main' panicked at x:\np", logged=False, errno=28)
    assert outcome.texts == ["PANIC => p", "=== PANIC ===", "p"]
    assert outcome.experiment_log == ["ERROR t: PANIC => p"]
    assert outcome.console == ["=== PANIC ===", "thread 'main' panicked at x:\np"]
    assert (outcome.message, outcome.errno) == ("PANIC => p", 28)


def test_it_reads_a_payload_with_the_signal_that_ended_the_run():
    payload = {"scenario": "s", "variant": "failure", "status": "reproduced"}
    outcome = Outcome.from_dict({**payload, "signal": "SIGXFSZ", "expected_signal": "SIGXFSZ"})
    assert outcome.signal == "SIGXFSZ"
    assert Outcome.from_dict(payload).signal is None  # a trainer from before signals
