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
    "expected", "expected_errno", "expected_signal", "proves", "disproves", "citations", "fix",
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
    # the checkpoint path's other sites (tracel-ai/burn main 2c06be35)
    burn.ASYNC["delete_failed"].text.format,
    burn.ASYNC["join"].text.format,
    burn.CALLBACK_FAILED.format,
    *(p.text.format for key, p in burn.RL.items() if key[1] == "learning-agent"),
    burn.RL["save", "policy"].text.format,
    burn.PANIC_HOOK["log"].format,
    burn.PANIC_HOOK["banner"].format,
    burn.ASYNC_19["save_failed"].text.format,
}


def test_it_covers_every_documented_message():
    covered = {m for s in SCENARIOS for m in s.proves + s.disproves}
    assert DOCUMENTED <= covered


def test_it_covers_every_required_fault():
    errnos = {s.expected_errno for s in SCENARIOS}
    assert {28, 30, 13, 2, 1, 21} <= errnos  # ENOSPC EROFS EACCES ENOENT EPERM EISDIR
    # past RLIMIT_FSIZE a Rust program dies by SIGXFSZ before any EFBIG reaches burn
    assert get("supervised-file-size-limit").expected_signal == "SIGXFSZ"
    assert 27 not in errnos
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
        assert entry["expected"] or entry["expected_signal"]
        assert entry["proves"] + entry["disproves"]
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
    locations = [
        "crates/burn-train/src/checkpoint/async_checkpoint.rs:46:32",
        "crates/burn-train/src/learner/base.rs:167:26",
        "crates/burn-train/src/checkpoint/async_checkpoint.rs:149:14",
    ]
    banner = (
        "=== PANIC ===\nA fatal error happened, you can check the experiment logs here => "
        "'/tmp/x/artifacts/experiment.log'\n============="
    )
    # Drop panicked while unwinding: core's panic in cleanup (Rust 1.95.0's line), the abort
    texts.append("panic in a destructor during cleanup")
    locations.append(
        "/rustc/59807616e1fa2540724bfbac14d7976d7e4a3860/library/core/src/panicking.rs:233:5"
    )
    texts = [
        shown
        for text, location in zip(texts, locations, strict=True)
        for shown in (f"PANIC => panicked at {location}:\n{text}", banner, text)
    ] + ["thread caused non-unwinding panic. aborting."]
    assert scenario.matches(texts, 28, "SIGABRT")
    assert not scenario.matches(texts, 28)  # a Rust program that goes on after it
    assert not scenario.matches(texts, 30, "SIGABRT")
    assert not scenario.matches(texts[3:], 28, "SIGABRT")
    assert not scenario.matches(texts[2::3], 28, "SIGABRT")  # without the logger's texts
    assert not scenario.matches(texts[3:6] + texts[:3] + texts[6:], 28, "SIGABRT")
    assert not scenario.matches(texts[:-1], 28, "SIGABRT")  # std's abort line is printed
    assert not scenario.matches(texts, 28, "SIGXFSZ")


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


def test_it_proves_that_burn_prints_no_save_text_when_the_file_size_limit_kills_it():
    scenario = get("supervised-file-size-limit")
    assert scenario.expected == () and scenario.expected_errno is None
    assert not scenario.proves
    assert {burn.TRAINING_INTERRUPTED.format, burn.ASYNC["save_failed"].text.format} <= set(
        scenario.disproves
    )
    assert scenario.matches([], None, "SIGXFSZ")
    assert not scenario.matches([], None, None)  # trained to the end: nothing shown
    assert not scenario.matches(["Training interrupted: x"], 27, None)  # Python's EFBIG


def test_it_expects_the_banner_and_the_panic_log_line_before_each_panic_after_launch():
    texts = [e.pattern for e in get("resume-missing-epoch").expected]
    log, banner, panic = texts
    message = 'Can load model checkpoint.: Record(Io("I/O error: No such file or directory '
    message += '(os error 2)"))'
    assert re.fullmatch(
        log,
        "PANIC => panicked at crates/burn-train/src/learner/base.rs:200:14:\n" + message,
    )
    assert re.fullmatch(
        banner,
        "=== PANIC ===\nA fatal error happened, you can check the experiment logs here => "
        "'/tmp/run/artifacts/experiment.log'\n=============",
    )
    assert re.fullmatch(panic, message)
    # Module::load_file runs before launch: no logger yet, the panic alone.
    assert len(get("init-from-foreign-file").expected) == 1
    # the launcher's interrupter logs, it does not panic: no banner
    assert len(get("supervised-dev-full-model").expected) == 1
    assert len(get("hand-built-dev-full-model").expected) == 13  # 4 panics, then std's abort


def test_it_ends_each_panic_in_drop_while_unwinding_with_rusts_abort():
    aborting = {s.name for s in SCENARIOS if s.expected_signal == "SIGABRT"}
    assert aborting == {
        s.name
        for s in SCENARIOS
        if s.setup in ("hand-built", "rl", "rl-keep-last", "learner-builder") and s.phase == "train"
    }
    for name in aborting:
        cleanup, abort = get(name).expected[-2:]
        assert re.fullmatch(cleanup.pattern, "panic in a destructor during cleanup")
        assert re.fullmatch(abort.pattern, "thread caused non-unwinding panic. aborting.")
        assert cleanup.cites == abort.cites == ()  # Rust's texts, not burn's


def test_it_disproves_the_unreachable_sites_of_the_async_checkpointer():
    join, callback = burn.ASYNC["join"].text.format, burn.CALLBACK_FAILED.format
    for scenario in SCENARIOS:
        if scenario.setup == "hand-built":
            assert join in scenario.disproves, scenario.name
        if scenario.phase == "resume" and scenario.release == "main":  # v0.19.1: another text
            assert callback in scenario.disproves, scenario.name
    immutable = get("hand-built-immutable-old-checkpoint")
    assert burn.ASYNC["delete_failed"].text.format in immutable.proves


def test_it_never_proves_an_rl_save_text_since_async_save_panics_itself():
    saves = {burn.RL["save", name].text.format for name in burn.RL_COMPONENTS}
    assert not any(saves & set(s.proves) for s in SCENARIOS)
    assert saves <= set(get("rl-dev-full-policy").disproves)
    assert saves <= set(get("rl-dev-full-learning-agent").disproves)
    delete = burn.RL["delete", "learning-agent"].text.format
    assert delete in get("rl-keep-last-dev-full-learning-agent").proves
    load = get("rl-resume-missing-learning-agent-file")
    assert load.proves == (burn.RL["load", "learning-agent"].text.format,)
    assert load.setup == "rl" and load.phase == "resume"
