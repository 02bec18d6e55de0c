"""Every scenario prints its texts, in order, for real; every fix trains to the end."""

import os
import re

import pytest

from trainer.scenarios import SCENARIOS

NAMES = [s.name for s in SCENARIOS]
BY_NAME = {s.name: s for s in SCENARIOS}
KEYS = {
    "scenario", "variant", "status", "message", "errno", "exception_chain", "device",
    "torch_version", "python_version", "trainer_version", "epochs_run", "duration_s",
    "log_tail", "texts", "console", "experiment_log", "signal", "expected", "expected_errno",
    "expected_signal", "proves", "disproves",
}  # fmt: skip

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(os.geteuid() != 0, reason="the real OS faults need root"),
]


@pytest.mark.parametrize("variant", ["failure"])
@pytest.mark.parametrize("scenario_name", NAMES)
def test_it_reproduces_the_documented_failure(scenario_outcomes, scenario_name, variant):
    outcome = scenario_outcomes[scenario_name, variant, "fresh"].result()
    scenario = BY_NAME[scenario_name]
    assert KEYS <= outcome.keys()
    assert outcome["status"] == "reproduced", outcome
    assert len(outcome["texts"]) == len(scenario.expected)
    for expect, text in zip(scenario.expected, outcome["texts"], strict=True):
        assert re.fullmatch(expect.pattern, text)
    assert outcome["errno"] == scenario.expected_errno
    assert outcome["signal"] == scenario.expected_signal
    assert outcome["message"] == (outcome["texts"][0] if outcome["texts"] else None)
    for message in scenario.disproves:  # the proof of absence
        assert not any(text.startswith(message) for text in outcome["texts"])


@pytest.mark.parametrize("variant", ["fixed"])
@pytest.mark.parametrize("scenario_name", NAMES)
def test_it_trains_to_completion_with_the_fix(scenario_outcomes, scenario_name, variant):
    outcome = scenario_outcomes[scenario_name, variant, "fresh"].result()
    assert outcome["status"] == "fixed", outcome
    assert outcome["epochs_run"] == 4
    assert outcome["message"] is None


@pytest.mark.parametrize("variant", ["failure"])
@pytest.mark.parametrize("scenario_name", ["hand-built-dev-full-model"])
def test_it_shows_the_worker_panic_before_the_closed_channel_on_the_console(
    scenario_outcomes, scenario_name, variant
):
    outcome = scenario_outcomes[scenario_name, variant, "fresh"].result()
    banner, worker, banner_2, delete, banner_3, drop, banner_4, cleanup, *abort = outcome["console"]
    assert banner == banner_2 == banner_3 == banner_4
    assert banner.startswith("=== PANIC ===\nA fatal error happened, you can check the ")
    assert banner.endswith("/artifacts/experiment.log'\n=============")
    # Rust >= 1.91 puts the panicking thread's OS id after its name: the worker's is its own
    worker_id = re.match(r"thread '<unnamed>' \((\d+)\) panicked at ", worker)
    main_id = re.match(r"thread 'main' \((\d+)\) panicked at ", delete)
    assert worker_id and main_id and worker_id[1] != main_id[1]
    assert worker.startswith(
        f"thread '<unnamed>' ({worker_id[1]}) panicked at "
        "crates/burn-train/src/checkpoint/async_checkpoint.rs:46:32:"
        "\nError when saving the state: "
    )
    assert delete == (
        f"thread 'main' ({main_id[1]}) panicked at crates/burn-train/src/learner/base.rs:167:26:\n"
        'Can delete model checkpoint.: Unknown("sending on a closed channel")'
    )
    assert drop.startswith(f"thread 'main' ({main_id[1]}) panicked at crates/burn-train/src/")
    # Drop panicked while unwinding: Rust aborts, and a shell reports it
    assert re.fullmatch(
        rf"thread 'main' \({main_id[1]}\) panicked at \S*library/core/src/panicking\.rs:\d+:\d+:\n"
        r"panic in a destructor during cleanup",
        cleanup,
    )
    assert abort == ["thread caused non-unwinding panic. aborting.", "Aborted"]
    assert outcome["signal"] == "SIGABRT"
    log = "\n".join(outcome["log_tail"])
    assert worker in log and delete in log


@pytest.mark.parametrize("start", ["fresh", "warm"])
@pytest.mark.parametrize("variant", ["failure"])
@pytest.mark.parametrize("scenario_name", ["supervised-file-size-limit"])
def test_it_dies_by_sigxfsz_past_the_file_size_limit_printing_no_burn_text(
    scenario_outcomes, scenario_name, variant, start
):
    outcome = scenario_outcomes[scenario_name, variant, start].result()
    assert outcome["status"] == "reproduced", outcome
    assert outcome["signal"] == "SIGXFSZ"
    assert outcome["texts"] == [] and outcome["experiment_log"] == []
    assert outcome["errno"] is None
    assert outcome["console"] == ["File size limit exceeded"]  # the shell's report, not burn's
    assert "fault: file-size-limit on model at epoch 2" in outcome["log_tail"]


@pytest.mark.parametrize("variant", ["failure"])
@pytest.mark.parametrize("scenario_name", ["resume-missing-epoch"])
def test_it_logs_and_announces_a_panic_after_launch(scenario_outcomes, scenario_name, variant):
    outcome = scenario_outcomes[scenario_name, variant, "fresh"].result()
    [logged] = outcome["experiment_log"]
    assert logged.startswith(
        "ERROR burn_train::learner::application_logger: PANIC => panicked at "
        "crates/burn-train/src/learner/base.rs:200:14:\nCan load model checkpoint.: "
    )
    banner, panic = outcome["console"]
    assert banner.startswith("=== PANIC ===\n")
    assert re.match(
        r"thread 'main' \(\d+\) panicked at crates/burn-train/src/learner/base\.rs:200:", panic
    )
