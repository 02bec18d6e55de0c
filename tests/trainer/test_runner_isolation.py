"""The runner isolates each run: new process, private temp dir, limits, no leftovers.

Each guarantee is proved for both starts: a fresh interpreter, and a fork of a
warm fork server (trainer.launch; the verification worker's default).
"""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.waiting import wait_for
from trainer import launch
from trainer.reaper import processes_in
from trainer.runner import run_scenario

pytestmark = pytest.mark.slow
SCENARIO = "hand-built-directory-at-scheduler-path"  # needs no privileges


def _wait_for(predicate, timeout_s: float = 20.0) -> bool:
    # Poll often: some of the moments waited for last only a few tenths of a second.
    return wait_for(predicate, timeout_s, interval=0.005)


def _running_scenario_dir(tmp: Path) -> Path | None:
    """The run directory a scenario process is alive in (importing torch, or training)."""
    for run_dir in tmp.glob("trainer-run-*"):
        if processes_in(run_dir):
            return run_dir
    return None


def _alive(pid: int) -> bool:
    try:
        return (Path("/proc") / str(pid) / "stat").read_text().split(") ")[1][0] != "Z"
    except (OSError, IndexError):
        return False


@pytest.fixture(scope="module")
def warm_server():
    """This process's kept fork server, started before any test changes TMPDIR."""
    starts = launch.starter()
    starts.prestart()
    starts.server.wait_ready()
    return starts.server


@pytest.fixture(params=["fresh", "warm"])
def start(request, warm_server) -> str:
    """How each run starts: a fresh interpreter, or a fork of the warm server."""
    return request.param


def _reproduce_command(scenario: str, start: str, *flags: str) -> list[str]:
    return [sys.executable, "-m", "trainer", "reproduce", scenario, "--start", start, *flags]


@pytest.fixture
def private_tmp(tmp_path, monkeypatch):
    """A TMPDIR of the test's own, so leftovers are easy to see."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setenv("TMPDIR", str(tmp))
    return tmp


def test_it_removes_the_temp_dir_after_a_run(private_tmp, start):
    outcome = run_scenario(SCENARIO, start=start)
    assert outcome["status"] == "reproduced"
    assert list(private_tmp.iterdir()) == []


def test_it_leaves_nothing_when_the_runner_is_sigkilled(private_tmp, start):
    runner = subprocess.Popen(
        _reproduce_command(SCENARIO, start),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    # Kill it mid-run: while the scenario process is alive in its directory.
    assert _wait_for(lambda: _running_scenario_dir(private_tmp) is not None, timeout_s=90)
    [run_dir] = private_tmp.glob("trainer-run-*")
    scenario_pids = processes_in(run_dir)
    runner.send_signal(signal.SIGKILL)
    runner.wait()
    assert _wait_for(lambda: not run_dir.exists(), timeout_s=10)
    assert _wait_for(lambda: not any(map(_alive, scenario_pids)), timeout_s=10)
    # The warm runner's fork server goes too, and removes its own directory.
    assert _wait_for(lambda: list(private_tmp.iterdir()) == [], timeout_s=10)


@pytest.mark.skipif(os.geteuid() != 0, reason="chattr +i needs root")
def test_it_removes_immutable_leftovers_when_the_runner_is_sigkilled(private_tmp, start):
    runner = subprocess.Popen(
        _reproduce_command("hand-built-immutable-old-checkpoint", start),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    assert _wait_for(
        lambda: any(private_tmp.glob("trainer-run-*/artifacts/checkpoint/*")), timeout_s=90
    )
    time.sleep(0.3)  # the strike at epoch 3 may or may not have happened: both must clean up
    runner.send_signal(signal.SIGKILL)
    runner.wait()
    assert _wait_for(lambda: list(private_tmp.iterdir()) == [], timeout_s=10)


# Shorter than the run can be: a fresh one's interpreter start, a warm one's fork and
# launch (the limit counts from the launch, and a warm run can end within the fresh one's limit).
TOO_SHORT_S = {"fresh": 0.05, "warm": 0.001}


def test_it_kills_a_run_past_its_time_limit_and_cleans_up(private_tmp, start):
    outcome = run_scenario(SCENARIO, timeout_s=TOO_SHORT_S[start], start=start)
    assert outcome["status"] == "error"
    assert outcome["message"] == f"timed out after {TOO_SHORT_S[start]:g} s"
    assert list(private_tmp.iterdir()) == []


# What fails first under 256 MiB: a fresh interpreter cannot even map torch's libraries;
# a fork already has torch mapped, over the limit, so its next allocation fails.
OUT_OF_MEMORY = {
    "fresh": ("scenario process exited with status", "failed to map segment"),
    "warm": ("", "can't start new thread|MemoryError|Cannot allocate memory"),
}


def test_it_reports_a_run_that_exceeds_its_memory_limit(private_tmp, start):
    outcome = run_scenario(SCENARIO, memory_bytes=256 << 20, start=start)
    message, log = OUT_OF_MEMORY[start]
    assert outcome["status"] == "error"
    assert outcome["message"].startswith(message)
    assert re.search(log, "\n".join(outcome["log_tail"])), outcome["log_tail"]
    assert list(private_tmp.iterdir()) == []


def test_it_runs_each_scenario_in_a_fresh_interpreter():
    first = run_scenario(SCENARIO)
    second = run_scenario(SCENARIO)
    assert first["status"] == second["status"] == "reproduced"
    code = "import sys, trainer.runner; print('torch' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.stdout.strip() == "False"


def test_it_exits_zero_and_prints_the_outcome_when_the_fix_holds():
    result = subprocess.run(
        [sys.executable, "-m", "trainer", "reproduce", SCENARIO, "--fixed"],
        capture_output=True,
        text=True,
    )
    outcome = json.loads(result.stdout)
    assert result.returncode == 0, outcome
    assert outcome["variant"] == "fixed" and outcome["status"] == "fixed"


@pytest.mark.skipif(shutil.which("setpriv") is None, reason="needs setpriv to drop a capability")
def test_it_says_unsupported_when_the_host_cannot_make_the_fault(start):
    # Root without CAP_SYS_ADMIN, as in many containers: no private mounts.
    result = subprocess.run(
        ["setpriv", "--bounding-set", "-sys_admin", "--inh-caps", "-sys_admin",
         *_reproduce_command("supervised-read-only-volume", start)],
        capture_output=True,
        text=True,
    )  # fmt: skip
    outcome = json.loads(result.stdout)
    assert result.returncode == 3, outcome
    assert outcome["status"] == "unsupported"
    assert "CAP_SYS_ADMIN" in outcome["reason"]
    assert outcome["message"] is None


@pytest.mark.skipif(os.geteuid() != 0, reason="dropping to another uid needs root")
def test_it_says_unsupported_when_the_unprivileged_user_cannot_reach_its_run(private_tmp, start):
    # pytest's own temp folders are 0700: an EACCES there would not come from the fault.
    private_tmp.parent.chmod(0o700)
    outcome = run_scenario("supervised-permission-denied", start=start)
    assert outcome["status"] == "unsupported"
    assert "closed to others" in outcome["reason"]
    assert list(private_tmp.iterdir()) == []


def test_the_reaper_removes_its_directory_when_the_runner_dies_before_reading_it(private_tmp):
    """The runner killed between starting its reaper and reading the directory's path."""
    reaper = subprocess.Popen(
        [sys.executable, "-m", "trainer.reaper"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    reaper.stdout.close()  # as the kernel closes a SIGKILLed runner's end of the pipe
    reaper.stdin.close()

    reaper.wait(timeout=60)

    assert list(private_tmp.iterdir()) == [], reaper.stderr.read().decode()
