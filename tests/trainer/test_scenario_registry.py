"""The scenario registry: complete, well-formed, set-ups burn allows, and served by the CLI."""

import json
import re
import subprocess
import sys

from trainer import burn
from trainer.faults import FAULTS
from trainer.scenarios import SCENARIOS, get, registry

REQUIRED = {
    "name", "description", "release", "versions", "setup", "phase", "fault", "epoch",
    "expected", "expected_errno", "proves", "disproves", "citations", "fix",
}  # fmt: skip
# The messages the knowledge base documents for burn: each is shown or disproved.
DOCUMENTED = {
    *(p.text.format for p in burn.LEARNER.values()),
    burn.MODULE["load_file"].text.format,
    burn.MODULE["load_record"].text.format,
    burn.ASYNC["save_failed"].text.format,
    burn.ASYNC["send"].text.format,
    burn.ASYNC["send_end"].text.format,
    burn.RL["delete", "policy"].text.format,
    burn.TRAINING_INTERRUPTED.format,
    burn.ASYNC_19["save_failed"].text.format,
}


def test_it_covers_every_documented_message():
    covered = {m for s in SCENARIOS for m in s.proves + s.disproves}
    assert DOCUMENTED <= covered


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
        assert entry["setup"] in burn.SETUPS
        assert entry["release"] == burn.SETUPS[entry["setup"]].release
        assert entry["fault"] in FAULTS
        assert entry["expected"] and entry["proves"] + entry["disproves"]
        for pattern in entry["expected"]:
            re.compile(pattern)
        assert entry["citations"][: len(burn.SETUPS[entry["setup"]].citations)] == list(
            burn.SETUPS[entry["setup"]].citations
        )


def test_it_matches_the_texts_in_order_with_the_errno():
    scenario = get("hand-built-dev-full-model")
    texts = [
        "Error when saving the state: Record error: `Record I/O error: I/O error: cannot write "
        "to '/tmp/x/artifacts/checkpoint/model-3.bpk': No space left on device (os error 28)`",
        'Can delete model checkpoint.: Unknown("sending on a closed channel")',
        "Can send the end message to the checkpointer thread.: SendError { .. }",
    ]
    assert scenario.matches(texts, 28)
    assert not scenario.matches(texts, 30)
    assert not scenario.matches(texts[1:], 28)
    assert not scenario.matches([texts[1], texts[0], texts[2]], 28)


def test_it_proves_the_0_19_story_of_tracel_ai_burn_3990():
    scenario = get("learner-builder-directory-at-model-path")
    assert scenario.release == "v0.19.1"
    assert scenario.proves[0] == "Can save the state."
    assert "Can delete model checkpoint." in scenario.proves


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
