"""Warm starts: a fork of a kept fork server gives what a fresh interpreter gives.

The isolation guarantees are proved for both starts in test_runner_isolation.py;
here: the same outcome for every scenario, and the server's life in its owner.
"""

import logging
import os
import re
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests.waiting import wait_for
from trainer import launch
from trainer.runner import run_scenario
from trainer.scenarios import SCENARIOS

pytestmark = pytest.mark.slow
SCENARIO = "hand-built-directory-at-scheduler-path"  # needs no privileges
NAMES = [s.name for s in SCENARIOS]


def comparable(outcome: dict) -> dict:
    """The outcome less what differs from run to run of the same start: its time, its
    log, its directory's name, its threads' ids in the panic headers, which checkpoint
    file a racing writer hit first, the order of two threads' texts, and how many epochs
    ran (the training thread may finish one more epoch before the async checkpointer's
    failure ends the run: two threads race, in fresh runs too)."""

    def text(value: str) -> str:
        value = re.sub(r"trainer-run-[\w-]+", "trainer-run-*", value)
        value = re.sub(r"' \(\d+\) panicked", "' (<id>) panicked", value)
        components = r"\b(model|optim|scheduler|policy|learning-agent)-(\d+)\."
        return re.sub(components, r"<component>-\2.", value)

    racy = ("duration_s", "log_tail", "epochs_run")
    kept = {k: v for k, v in outcome.items() if k not in racy}
    # In order of text: threads that panic at once interleave their texts differently
    # from run to run (the order each run prints is checked against its scenario).
    for key in ("texts", "console", "experiment_log"):
        kept[key] = sorted(text(value) for value in kept[key])
    for key in ("message", "reason"):
        kept[key] = text(kept[key]) if kept[key] else kept[key]
    return kept


@pytest.mark.skipif(os.geteuid() != 0, reason="the real OS faults need root")
@pytest.mark.parametrize("start", ["warm"])
@pytest.mark.parametrize("variant", ["failure", "fixed"])
@pytest.mark.parametrize("scenario_name", NAMES)
def test_a_warm_run_gives_the_same_outcome_as_a_fresh_one(
    scenario_outcomes, scenario_name, variant, start
):
    fresh = scenario_outcomes[scenario_name, variant, "fresh"].result()
    warm_outcome = scenario_outcomes[scenario_name, variant, start].result()
    assert warm_outcome["status"] == warm_outcome["expected_status"], warm_outcome
    assert comparable(warm_outcome) == comparable(fresh)


def test_a_fork_server_that_died_is_started_again():
    starts = launch.starter()
    assert run_scenario(SCENARIO, start="warm")["status"] == "reproduced"
    dead = starts.server.pid
    os.kill(dead, signal.SIGKILL)
    assert wait_for(lambda: not starts.server.alive, timeout=10)

    outcome = run_scenario(SCENARIO, start="warm")

    assert outcome["status"] == "reproduced"
    assert starts.server.alive and starts.server.pid != dead
    assert starts.fallbacks == 0


def test_warm_runs_fall_back_to_a_fresh_interpreter_when_no_server_can_start(
    tmp_path, monkeypatch, caplog
):
    # A Unix socket's path holds at most 107 bytes: the server cannot bind under here.
    too_deep = tmp_path / ("d" * 120)
    too_deep.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(too_deep))
    starts = launch.WarmStarts()

    with caplog.at_level(logging.WARNING, logger="trainer.launch"):
        outcomes = [run_scenario(SCENARIO, starter=starts) for _ in range(2)]

    assert [o["status"] for o in outcomes] == ["reproduced", "reproduced"]
    assert starts.fallbacks == 2 and starts.runs == 0 and starts.server is None
    assert caplog.text.count("fresh interpreter") == 2
    assert caplog.text.count("could not start") == 1  # the second run did not try again
    assert list(too_deep.iterdir()) == []  # the failed server's directory is gone


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] != "Z"
    except (OSError, IndexError):
        return False


OWNER = """
import sys, time
from trainer import launch
starts = launch.starter()
starts.prestart()
starts.server.wait_ready()
print(starts.server.pid, starts.server.address, flush=True)
time.sleep(600)
"""


def test_the_fork_server_goes_with_its_owner_even_when_the_owner_is_sigkilled(tmp_path):
    owner = subprocess.Popen(
        [sys.executable, "-c", OWNER],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "TMPDIR": str(tmp_path)},
    )
    pid, address = owner.stdout.readline().split()
    assert Path(address).parent.parent == tmp_path

    owner.kill()
    owner.wait()

    assert wait_for(lambda: not _alive(int(pid)), timeout=10)
    assert list(tmp_path.iterdir()) == []
