"""A run a signal ends, as it ends a Rust program: SIGXFSZ past ulimit -f, SIGABRT after a
panic in a destructor during cleanup."""

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


ABORTS = "hand-built-dev-full-model"


def _announced_run() -> str:
    """What the scenario process announces before it aborts: each panic logged, announced
    by the banner and reported, then std's abort line."""
    panics = [
        (
            "crates/burn-train/src/checkpoint/async_checkpoint.rs:46:32",
            "Error when saving the state: Record error: `Record I/O error: I/O error: cannot "
            "write to '/r/artifacts/checkpoint/model-3.bpk': No space left on device "
            "(os error 28)`",
        ),
        (
            "crates/burn-train/src/learner/base.rs:167:26",
            'Can delete model checkpoint.: Unknown("sending on a closed channel")',
        ),
        (
            "crates/burn-train/src/checkpoint/async_checkpoint.rs:149:14",
            "Can send the end message to the checkpointer thread.: SendError { .. }",
        ),
        ("library/core/src/panicking.rs:233:5", "panic in a destructor during cleanup"),
    ]
    banner = "=== PANIC ===\nA fatal error happened, you can check the experiment logs here "
    banner += "=> '/r/artifacts/experiment.log'\n============="
    lines = []
    for location, text in panics:
        info = f"PANIC => panicked at {location}:\n{text}"
        lines += [_announced(info, f"ERROR x: {info}", logged=True, errno=28)]
        lines += [_announced(banner, banner), _announced(text, text)]
    lines.append(_announced("thread caused non-unwinding panic. aborting.", "thread caused…"))
    return "\n".join(lines) + "\n"


def test_it_reproduces_a_scenario_that_aborts_from_the_texts_announced_before_sigabrt():
    scenario = get(ABORTS)
    outcome = ended_by_signal(scenario, "failure", "cpu", _announced_run(), "SIGABRT")
    assert outcome.status == Status.REPRODUCED, outcome.texts
    assert outcome.signal == "SIGABRT" and outcome.errno == 28
    assert outcome.texts[-1] == "thread caused non-unwinding panic. aborting."
    assert outcome.console[-1] == "Aborted"  # what a shell reports after abort()


def test_it_does_not_take_an_abort_for_the_file_size_limit_nor_the_reverse():
    assert ended_by_signal(get(FILE_SIZE), "failure", "cpu", "", "SIGABRT") is None
    assert ended_by_signal(get(ABORTS), "failure", "cpu", "", "SIGXFSZ") is None


def test_it_ends_the_scenario_process_by_sigabrt_when_the_run_aborts(tmp_path):
    script = (
        "import sys\n"
        "from trainer import child\n"
        "def aborting(spec):\n"
        "    from trainer.errors import Abort\n"
        "    print('announced', flush=True)\n"
        "    raise Abort()\n"
        "child.reproduce = aborting\n"
        "child.run_spec({})\n"
        "print('after the abort')\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=tmp_path
    )
    assert result.returncode == -signal.SIGABRT
    assert result.stdout == "announced\n"  # flushed before abort(); nothing runs after it
    assert list(tmp_path.iterdir()) == []  # no core dump left behind
