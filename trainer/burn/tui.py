"""burn-train's terminal dashboard (TUI): the lines of its time estimate where Rust panics.

The estimate (renderer/tui/progress.rs:145-226 at main) does its arithmetic in `usize`. Each
expression below is one Rust checks for overflow in a build with overflow checks on; the
column is the one Rust reports (rustc 1.95, checked by compiling these lines as they stand:
tests/trainer/test_tui_estimate.py). The file is the same from tracel-ai/burn#5012 (6b721d88,
2026-05-28) to main, so the lines are too, at 2785abb3 and in 0.22.0-pre.1 – main.
"""

from trainer.burn.sources import MAIN, TRAIN
from trainer.burn.text import Site

PROGRESS_RS = f"{TRAIN}/renderer/tui/progress.rs"
RENDERER_RS = f"{TRAIN}/renderer/tui/renderer.rs"
RENDERER_THREAD = "train-renderer"  # the TUI renderer's thread (renderer.rs:83-84 at main)
WARMUP_NUM_ITERATION = 10  # progress.rs:182: items before the estimate may start
WARMUP_SECONDS = 10  # progress.rs:190-192: ... and seconds since the renderer was made
WARMUP_TIMEOUT_SECONDS = 30  # progress.rs:184-185: or this long, whatever the items


def _site(line: int, column: int, code: str) -> Site:
    return Site(code, PROGRESS_RS, line, MAIN, column)


# ProgressEstimate::init (progress.rs:198-208) and calculate_progress (211-226).
ESTIMATE = {
    "init_epoch": _site(199, 21, "progress.global.items_processed - starting_epoch"),
    "init_epoch_items": _site(202, 27, "(epoch - 1) * local.items_total"),
    "init_warmup": _site(204, 33, "epoch_items + iteration_items"),
    "epoch_total": _site(216, 23, "progress.global.items_total - starting_epoch"),
    "epoch": _site(217, 17, "progress.global.items_processed - starting_epoch"),
    "total_items": _site(220, 23, "local.items_total * epoch_total"),
    "epoch_items": _site(221, 23, "(epoch - 1) * local.items_total"),
    "num_items": _site(223, 21, "epoch_items + iteration_items - ignore_num_items"),
}
