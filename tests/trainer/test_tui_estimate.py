"""The TUI renderer's time estimate: Rust's overflow checks at burn's lines, on a resume.

The mirror (trainer.dashboard) is checked three ways: each site's expression stands at its
column in the kept burn file; rustc, compiling burn's own lines where they stand, panics at
the sites the mirror names for the same progress; and the scenario runs the real trainer.
"""

import re
import shutil
import subprocess

import pytest

from tests.upstream import sources
from trainer import burn
from trainer.burn.sources import BEFORE_5109
from trainer.burn.tui import ESTIMATE, PROGRESS_RS
from trainer.dashboard import (
    ITEM_SECONDS,
    USIZE_MAX,
    Progress,
    Snapshot,
    TuiRenderer,
    Usize,
    calculate_progress,
    item_counts,
)
from trainer.errors import Panic
from trainer.runner import run_scenario
from trainer.scenarios import get

SCENARIO = "resume-tui-estimate-underflow"


class Clock:
    def __init__(self):
        self.seconds = 0.0

    def __call__(self) -> float:
        return self.seconds


def train(renderer: TuiRenderer, clock: Clock, *, first: int, epochs: int) -> None:
    """burn's loop as the renderer sees it: 8 training items and 2 validation items an epoch."""
    renderer.start(epochs, first)
    for epoch in range(first, epochs + 1):
        for split, total in (("train", 512), ("valid", 128)):
            renderer.start_split(split, total)
            for items in item_counts(total, 64):
                clock.seconds += ITEM_SECONDS
                renderer.update_split(items)
            renderer.end_split()
        renderer.update_epoch(epoch)


def resumed(checkpoint: int | None, start: str, *, epochs: int = 4, checks: bool = True):
    clock = Clock()
    renderer = TuiRenderer(
        checkpoint, start=start, clock=clock, usize=Usize(overflow_checks=checks)
    )
    first = 1 if checkpoint is None else checkpoint + 1
    train(renderer, clock, first=first, epochs=epochs)
    return renderer, clock


def test_checked_arithmetic_panics_with_rusts_message_at_the_site():
    site = ESTIMATE["init_epoch"]
    with pytest.raises(Panic) as caught:
        Usize().sub(1, 3, site)
    assert caught.value.message == "attempt to subtract with overflow"
    assert caught.value.location == "crates/burn-train/src/renderer/tui/progress.rs:199:21"
    assert Usize().sub(3, 3, site) == 0
    with pytest.raises(Panic, match="attempt to multiply with overflow"):
        Usize().mul(USIZE_MAX, 2, ESTIMATE["total_items"])
    with pytest.raises(Panic, match="attempt to add with overflow"):
        Usize().add(USIZE_MAX, 1, ESTIMATE["num_items"])


def test_a_release_build_wraps_instead():
    assert Usize(overflow_checks=False).sub(1, 3, ESTIMATE["init_epoch"]) == USIZE_MAX - 1
    assert Usize(overflow_checks=False).mul(USIZE_MAX, 2, ESTIMATE["total_items"]) == USIZE_MAX - 1


def test_it_computes_burns_own_test_values():
    # progress.rs:269-295 at main: the tests burn ships with calculate_progress
    half = Snapshot(Progress(9, 10), Progress(5, 10))
    assert calculate_progress(half, 8, 0, Usize()) == 0.25
    warm = Snapshot(Progress(9, 10), Progress(110, 1000))
    assert calculate_progress(warm, 8, 10, Usize()) == 0.05


def test_a_resume_sent_epoch_one_underflows_once_the_estimate_starts():
    with pytest.raises(Panic) as caught:
        resumed(3, "epoch-one")
    assert caught.value.message == burn.OVERFLOW["sub"]
    assert caught.value.location == ESTIMATE["init_epoch"].location


def test_it_starts_after_ten_items_and_ten_seconds_not_before():
    clock = Clock()
    renderer = TuiRenderer(3, start="epoch-one", clock=clock, usize=Usize())
    renderer.start(4, 4)
    renderer.start_split("train", 512)
    for items in item_counts(512, 64)[:5]:  # 10 s: not yet past ten seconds
        clock.seconds += ITEM_SECONDS
        renderer.update_split(items)
    clock.seconds += ITEM_SECONDS
    with pytest.raises(Panic):
        renderer.update_split(384)


def test_a_resume_from_epoch_one_underflows_one_line_lower():
    with pytest.raises(Panic) as caught:
        resumed(1, "epoch-one")
    assert caught.value.location == "crates/burn-train/src/renderer/tui/progress.rs:202:27"


@pytest.mark.parametrize("checkpoint", [1, 3])
def test_main_sends_the_resumed_epoch_and_nothing_underflows(checkpoint):
    renderer, _ = resumed(checkpoint, "resumed-epoch")
    assert renderer.progress.estimate.started_after_warmup is not None
    assert 0 <= renderer.progress.estimate.progress <= 1


@pytest.mark.parametrize("start", ["epoch-one", "resumed-epoch"])
def test_a_run_that_does_not_resume_never_underflows(start):
    renderer, _ = resumed(None, start)
    assert renderer.progress.estimate.progress == pytest.approx(0.9, abs=0.1)


def test_a_release_build_wraps_and_counts_past_the_end_from_the_second_resumed_epoch():
    renderer, _ = resumed(3, "epoch-one", checks=False, epochs=4)
    assert renderer.progress.estimate.progress == 0.25  # the wrapped terms cancel out
    renderer, _ = resumed(3, "epoch-one", checks=False, epochs=5)
    assert renderer.progress.estimate.progress == 2.125  # past 100 %: the time left is wrong
    renderer, _ = resumed(3, "resumed-epoch", epochs=5)
    assert renderer.progress.estimate.progress == 0.625


@pytest.mark.parametrize("name", sorted(ESTIMATE))
def test_each_site_stands_at_its_column_at_main_and_at_2785abb3(name):
    site = ESTIMATE[name]
    for commit in (site.commit, BEFORE_5109):
        source = sources.line(commit, site.path, site.line)
        assert source[site.column - 1 :].startswith(site.code), (commit, source)


def _compile_burns_estimate(tmp_path):
    """burn's ProgressEstimate and calculate_progress (progress.rs:145-226 at main), each line
    where it stands, and a main that feeds them one progress from the command line."""
    lines = sources.source_lines(burn.MAIN, PROGRESS_RS)
    program = ["use std::time::{Duration, Instant};", *[""] * 143, *lines[144:226]]
    program += [
        "struct Progress { items_processed: usize, items_total: usize }",
        "struct ProgressSnapshot { global: Progress, split: Progress }",
        "fn main() {",
        "    let a: Vec<usize> = std::env::args().skip(1).map(|s| s.parse().unwrap()).collect();",
        "    let global = Progress { items_processed: a[1], items_total: a[2] };",
        "    let split = Progress { items_processed: a[3], items_total: a[4] };",
        "    let p = ProgressSnapshot { global, split };",
        "    if a[0] == 0 { ProgressEstimate::new().init(&p, a[5]); }",
        "    else { calculate_progress(&p, a[5], a[6]); }",
        "}",
    ]
    source = tmp_path / "progress.rs"
    source.write_text("\n".join(program) + "\n")
    binary = tmp_path / "progress"
    subprocess.run(
        ["rustc", "-A", "warnings", "-C", "overflow-checks=on", "-o", binary, source],
        check=True,
        capture_output=True,
    )
    return binary


# (init or calculate_progress, global processed, total, split processed, total, start, ignore)
CASES = [
    ((0, 1, 4, 64, 512, 3, 0), "init_epoch", "sub"),
    ((0, 1, 4, 64, 512, 1, 0), "init_epoch_items", "sub"),
    ((0, 5, 4, 64, USIZE_MAX, 1, 0), "init_epoch_items", "mul"),
    ((0, 2, 4, USIZE_MAX, 1, 0, 0), "init_warmup", "add"),
    ((1, 1, 2, 64, 512, 3, 0), "epoch_total", "sub"),
    ((1, 1, 4, 64, 512, 3, 0), "epoch", "sub"),
    ((1, 1, USIZE_MAX, 64, 3, 0, 0), "total_items", "mul"),
    ((1, 3, 4, 64, 512, 3, 0), "epoch_items", "sub"),
    ((1, 4, 4, 64, 512, 3, 600), "num_items", "sub"),
]


@pytest.mark.skipif(shutil.which("rustc") is None, reason="needs rustc to compile burn's lines")
def test_rustc_panics_where_the_mirror_does_for_the_same_progress(tmp_path):
    binary = _compile_burns_estimate(tmp_path)
    for args, name, operation in CASES:
        done = subprocess.run(
            [binary, *map(str, args)],
            capture_output=True,
            text=True,
            env={"RUST_BACKTRACE": "0"},
        )
        assert done.returncode == 101
        header, message = done.stderr.strip().splitlines()[:2]
        where = re.fullmatch(r"thread 'main' (?:\(\d+\) )?panicked at \S+?:(\d+):(\d+):", header)
        site = ESTIMATE[name]
        assert (int(where[1]), int(where[2])) == (site.line, site.column), (args, header)
        assert message == burn.OVERFLOW[operation]
        snapshot = Snapshot(Progress(args[1], args[2]), Progress(args[3], args[4]))
        with pytest.raises(Panic) as caught:
            mirror(args[0], snapshot, args[5], args[6])
        assert (caught.value.site, caught.value.message) == (site, message)


def mirror(function: int, snapshot: Snapshot, starting_epoch: int, ignore: int) -> None:
    renderer = TuiRenderer(None, start="resumed-epoch", clock=Clock(), usize=Usize())
    if function == 0:
        renderer.progress.estimate.init(snapshot, starting_epoch)
    else:
        calculate_progress(snapshot, starting_epoch, ignore, Usize())


def test_the_scenario_proves_rusts_message_in_the_resume_set_up():
    scenario = get(SCENARIO)
    assert scenario.setup == "supervised-tui" and scenario.phase == "tui-resume"
    assert scenario.proves[0] == "attempt to subtract with overflow"
    log, banner, panic = scenario.expected
    assert panic.pattern == "attempt to subtract with overflow"
    assert "progress\\.rs:199:21:" in log.pattern


def test_the_trainer_reproduces_the_panic_and_its_fix_trains_to_the_end():
    failure = run_scenario(SCENARIO, timeout_s=120)
    assert failure["status"] == "reproduced", failure
    assert failure["texts"][-1] == "attempt to subtract with overflow"
    assert re.fullmatch(
        r"thread 'train-renderer' \(\d+\) panicked at "
        r"crates/burn-train/src/renderer/tui/progress\.rs:199:21:\n"
        "attempt to subtract with overflow",
        failure["console"][-1],
    )
    assert failure["epochs_run"] == 4  # the renderer's thread died; training went on
    fixed = run_scenario(SCENARIO, variant="fixed", timeout_s=120)
    assert (fixed["status"], fixed["epochs_run"], fixed["texts"]) == ("fixed", 4, [])
