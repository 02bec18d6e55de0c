"""The scenario registry: complete, well-formed, and served by the CLI."""

import json
import re
import subprocess
import sys

from trainer.faults import FAULTS
from trainer.scenarios import MESSAGES, SCENARIOS, get, registry

REQUIRED = {
    "name", "message", "description", "setup", "fault", "epoch",
    "expected_pattern", "expected_errno", "fix",
}  # fmt: skip


def test_it_covers_every_burn_message():
    assert {s.message for s in SCENARIOS} == set(MESSAGES)
    assert len(MESSAGES) == 11


def test_it_covers_every_required_fault():
    errnos = {s.expected_errno for s in SCENARIOS}
    assert {28, 30, 13, 2, 27, 1, 21} <= errnos  # ENOSPC EROFS EACCES ENOENT EFBIG EPERM EISDIR
    faults = {s.fault for s in SCENARIOS}
    assert {"truncated", "foreign-file", "other-architecture", "directory-removed"} <= faults
    assert get("resume-missing-epoch").expected_errno == 2


def test_it_has_unique_stable_slugs():
    names = [s.name for s in SCENARIOS]
    assert len(names) == len(set(names))
    assert all(re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", name) for name in names)


def test_it_describes_each_scenario_fully():
    for entry in registry():
        assert REQUIRED <= entry.keys(), entry["name"]
        assert set(entry["setup"]) >= {"checkpointer", "interrupter", "strategy"}
        assert entry["fault"] in FAULTS
        re.compile(entry["expected_pattern"])
        assert entry["expected_pattern"].startswith(re.escape(entry["message"]).split("\\ ")[0])


def test_it_proves_the_async_disk_full_story():
    scenario = get("async-disk-full")
    assert scenario.checkpointer == "async" and not scenario.interrupter
    assert scenario.matches(
        'Can delete model checkpoint.: Unknown("sending on a closed channel")', 28
    )
    assert not scenario.matches(
        'Can delete model checkpoint.: Unknown("sending on a closed channel")', 30
    )


def test_it_prints_the_registry_as_json():
    result = subprocess.run(
        [sys.executable, "-m", "trainer", "scenarios"], capture_output=True, text=True, check=True
    )
    assert [e["name"] for e in json.loads(result.stdout)] == [s.name for s in SCENARIOS]


def test_it_rejects_an_unknown_scenario_on_the_cli():
    result = subprocess.run(
        [sys.executable, "-m", "trainer", "reproduce", "no-such-thing"],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 2
    assert "unknown scenario 'no-such-thing'" in result.stderr
