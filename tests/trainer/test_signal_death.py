"""A run the kernel ends by a signal, as it ends a Rust program: SIGXFSZ past ulimit -f."""

import json
import signal
import subprocess
import sys

from trainer.outcome import Status
from trainer.runner import ended_by_signal
from trainer.scenarios import get

FILE_SIZE = "supervised-file-size-limit"

# What a scenario process does with its signals (child._confine), then a write past a 1 KiB
# RLIMIT_FSIZE: Python ignores SIGXFSZ, a Rust program (and the scenario process) does not.
WRITE_PAST_THE_LIMIT = """
import resource, sys
from trainer.child import _confine
if sys.argv[1] == "confined":
    _confine({})
resource.setrlimit(resource.RLIMIT_FSIZE, (1024, resource.RLIM_INFINITY))
with open(sys.argv[2], "wb") as f:
    f.write(b"x" * 4096)
"""


def _write_past_the_limit(tmp_path, how: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", WRITE_PAST_THE_LIMIT, how, str(tmp_path / "big")],
        capture_output=True,
        text=True,
    )


def test_it_is_killed_by_sigxfsz_past_the_file_size_limit_as_a_rust_program_is(tmp_path):
    result = _write_past_the_limit(tmp_path, "confined")
    assert result.returncode == -signal.SIGXFSZ
    assert result.stderr == ""  # nothing printed: no EFBIG, no traceback


def test_it_would_see_efbig_with_pythons_own_disposition(tmp_path):
    result = _write_past_the_limit(tmp_path, "plain")
    assert result.returncode == 1
    assert "File too large" in result.stderr


def _announced(text: str, shown: str, *, logged: bool = False, errno=None) -> str:
    return json.dumps({"printed": {"text": text, "shown": shown, "logged": logged, "errno": errno}})


def test_it_reproduces_the_file_size_scenario_when_sigxfsz_ends_the_run_silently():
    outcome = ended_by_signal(get(FILE_SIZE), "failure", "cpu", "", "SIGXFSZ")
    assert outcome.status == Status.REPRODUCED
    assert outcome.signal == "SIGXFSZ"
    assert outcome.texts == [] and outcome.message is None and outcome.errno is None
    assert outcome.console == ["File size limit exceeded"]  # what a shell reports


def test_it_keeps_the_texts_announced_before_the_signal():
    stdout = _announced("Training interrupted: x", " INFO t: Training interrupted: x", logged=True)
    outcome = ended_by_signal(get(FILE_SIZE), "failure", "cpu", stdout + "\n", "SIGXFSZ")
    assert outcome.texts == ["Training interrupted: x"]
    assert outcome.experiment_log == [" INFO t: Training interrupted: x"]
    assert outcome.status == Status.NOT_REPRODUCED  # burn prints nothing before it dies


def test_it_does_not_count_a_fixed_run_killed_by_the_signal_as_fixed():
    outcome = ended_by_signal(get(FILE_SIZE), "fixed", "cpu", "", "SIGXFSZ")
    assert outcome.status == Status.NOT_REPRODUCED
    assert outcome.reason == "the fixed run was killed by SIGXFSZ"


def test_it_leaves_a_signal_the_scenario_does_not_expect_to_the_harness():
    assert ended_by_signal(get(FILE_SIZE), "failure", "cpu", "", "SIGSEGV") is None
    assert ended_by_signal(get("supervised-disk-full"), "failure", "cpu", "", "SIGXFSZ") is None
