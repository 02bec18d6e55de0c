"""burn-train's terminal dashboard (the TUI renderer): its time estimate, as a debug build runs it.

burn's TUI renderer draws on its own thread, ``train-renderer`` (renderer.rs:83-87 at main).
After each item the training thread sends it the progress: the global progress in epochs,
the split's in items (``update_split``, renderer.rs:254-265), and on a training item the
renderer updates its time estimate (renderer.rs:415-420, progress.rs:38-44). The estimate
(progress.rs:145-226) subtracts ``usize``s: built with overflow checks (the dev profile's
default, or ``overflow-checks = true``) a subtraction below zero panics with Rust's own
``attempt to subtract with overflow`` at the expression's line and column; a release build
wraps and the estimate is only wrong. ``Usize`` is that arithmetic.

On a resume (``SupervisedTraining::checkpoint(n)``) the estimate counts epochs from ``n``
(``ProgressBarState::new(checkpoint)``, renderer.rs:385, progress.rs:27-35), so the global
progress it is sent must start at ``n + 1``:

- main (tracel-ai/burn#5109, in 0.22.0-pre.1 and later): ``start(total_epochs,
  starting_epoch)`` sets it to ``n + 1`` (renderer.rs:231-237, full.rs:211-228,
  strategies/base.rs:128-137);
- main from tracel-ai/burn#5012 (6b721d88, 2026-05-28) to 2785abb3 (2026-06-25), in no
  release: ``start(total_epochs)`` set it to 1 (renderer.rs:218-219, full.rs:171-185 at
  2785abb3). Once the estimate starts, after ten items and ten seconds or after thirty
  seconds (progress.rs:176-196), ``1 - n`` underflows at progress.rs:199:21 (``n >= 2``), or
  ``(0 - 1)`` at 202:27 (``n = 1``).

A ``DashboardLearner`` is the trainer's learner with this renderer attached; it trains for
real. Its model trains an epoch in milliseconds, so the renderer reads a clock that advances
``ITEM_SECONDS`` per item, as a real model's steps do. The renderer's panic ends the renderer
thread only: training goes on, and each event the training thread sends afterwards is logged
as a warning (``Failed to send TUI event: {e}``, renderer.rs:138-143), as many as race the
thread's unwinding: those are not mirrored.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from trainer import burn
from trainer.burn.tui import (
    ESTIMATE,
    RENDERER_THREAD,
    WARMUP_NUM_ITERATION,
    WARMUP_SECONDS,
    WARMUP_TIMEOUT_SECONDS,
)
from trainer.errors import Panic, Printed

USIZE_MAX = 2**64 - 1  # usize on the 64-bit targets burn trains on
ITEM_SECONDS = 2.0  # a real model's training step; the estimate starts at the 6th item
STARTS = ("resumed-epoch", "epoch-one")  # main from #5109; main at 6b721d88 – 2785abb3


class Usize:
    """``usize`` arithmetic as rustc compiles it: checked (a panic at the expression's site)
    with overflow checks on, wrapping without."""

    def __init__(self, *, overflow_checks: bool = True):
        self.overflow_checks = overflow_checks

    def sub(self, a: int, b: int, site: burn.Site) -> int:
        return self._checked(a - b, "sub", site)

    def add(self, a: int, b: int, site: burn.Site) -> int:
        return self._checked(a + b, "add", site)

    def mul(self, a: int, b: int, site: burn.Site) -> int:
        return self._checked(a * b, "mul", site)

    def _checked(self, value: int, operation: str, site: burn.Site) -> int:
        if 0 <= value <= USIZE_MAX:
            return value
        if self.overflow_checks:
            raise Panic(burn.OVERFLOW[operation], site=site)
        return value % (USIZE_MAX + 1)


@dataclass(frozen=True)
class Progress:
    """burn-core's dataloader ``Progress``: items processed of a total."""

    items_processed: int
    items_total: int


@dataclass(frozen=True)
class Snapshot:
    """``ProgressSnapshot``: the global progress (epochs) and the split's (items)."""

    global_: Progress
    split: Progress


class ProgressEstimate:
    """``ProgressEstimate`` (progress.rs:145-209): the share done since the warm-up."""

    def __init__(self, clock: Any, usize: Usize):
        self.clock = clock  # seconds since the renderer was made: Instant::elapsed
        self.usize = usize
        self.started = clock()
        self.started_after_warmup: float | None = None
        self.warmup_num_items = 0
        self.progress = 0.0

    def update(self, progress: Snapshot, starting_epoch: int) -> None:
        if self.started_after_warmup is not None:
            self.progress = self.calculate(progress, starting_epoch, self.warmup_num_items)
            return
        elapsed = self.clock() - self.started
        if elapsed > WARMUP_TIMEOUT_SECONDS:
            self.init(progress, starting_epoch)
            return
        if progress.split.items_processed >= WARMUP_NUM_ITERATION and elapsed > WARMUP_SECONDS:
            self.init(progress, starting_epoch)

    def init(self, progress: Snapshot, starting_epoch: int) -> None:
        u = self.usize
        epoch = u.sub(progress.global_.items_processed, starting_epoch, ESTIMATE["init_epoch"])
        site = ESTIMATE["init_epoch_items"]
        epoch_items = u.mul(u.sub(epoch, 1, site), progress.split.items_total, site)
        self.warmup_num_items = u.add(
            epoch_items, progress.split.items_processed, ESTIMATE["init_warmup"]
        )
        self.started_after_warmup = self.clock()
        self.progress = self.calculate(progress, starting_epoch, self.warmup_num_items)

    def calculate(self, progress: Snapshot, starting_epoch: int, ignore_num_items: int) -> float:
        return calculate_progress(progress, starting_epoch, ignore_num_items, self.usize)


def calculate_progress(
    progress: Snapshot, starting_epoch: int, ignore_num_items: int, u: Usize
) -> float:
    """``calculate_progress`` (progress.rs:211-226), its operations in Rust's order."""
    global_, local = progress.global_, progress.split
    epoch_total = u.sub(global_.items_total, starting_epoch, ESTIMATE["epoch_total"])
    epoch = u.sub(global_.items_processed, starting_epoch, ESTIMATE["epoch"])
    total_items = u.mul(local.items_total, epoch_total, ESTIMATE["total_items"])
    site = ESTIMATE["epoch_items"]
    epoch_items = u.mul(u.sub(epoch, 1, site), local.items_total, site)
    site = ESTIMATE["num_items"]
    num_items = u.sub(u.add(epoch_items, local.items_processed, site), ignore_num_items, site)
    return num_items / total_items if total_items else float("nan")


class ProgressBarState:
    """``ProgressBarState`` (progress.rs:14-44): the bars, and the estimate from the checkpoint."""

    def __init__(self, checkpoint: int | None, clock: Any, usize: Usize):
        self.usize = usize
        self.starting_epoch = checkpoint or 0
        self.estimate = ProgressEstimate(clock, usize)
        self.progress_total = 0.0

    def update_train(self, progress: Snapshot) -> None:
        self.progress_total = calculate_progress(progress, 0, 0, self.usize)
        self.estimate.update(progress, self.starting_epoch)


class TuiRenderer:
    """``TuiMetricsRendererWrapper`` (the training thread's side) and the renderer thread it
    feeds, which handles each event as it is sent; a panic there is the renderer thread's."""

    def __init__(self, checkpoint: int | None, *, start: str, clock: Any, usize: Usize):
        if start not in STARTS:
            raise ValueError(f"start must be one of {STARTS}, not {start!r}")
        self.start_at = start
        self.progress = ProgressBarState(checkpoint, clock, usize)  # made on the thread
        self.global_ = Progress(0, 0)
        self.split = Progress(0, 0)
        self.current_split = "train"
        self.alive = True  # until the renderer thread panics; later events reach no one

    def start(self, total_epochs: int, starting_epoch: int) -> None:
        """``LearnerEvent::Start``: from #5109 at the resumed epoch, before it at 1."""
        first = starting_epoch if self.start_at == "resumed-epoch" else 1
        self.global_ = Progress(first, total_epochs)

    def update_epoch(self, epoch: int) -> None:
        self.global_ = Progress(epoch + 1, self.global_.items_total)

    def start_split(self, split: str, total_items: int) -> None:
        self.split = Progress(0, total_items)
        self.current_split = split

    def update_split(self, items_processed: int) -> None:
        """Sends the snapshot; the renderer thread updates the estimate on a training item."""
        self.split = Progress(items_processed, self.split.items_total)
        if self.global_.items_total == 0:
            self.global_ = self.split
        if self.alive and self.current_split == "train":
            self.progress.update_train(Snapshot(self.global_, self.split))

    def end_split(self) -> None:
        self.current_split = "train"


def item_counts(total: int, batch_size: int) -> list[int]:
    """The split's items processed after each batch (the dataloader's progress)."""
    return [min(end, total) for end in range(batch_size, total + batch_size, batch_size)]


def dashboard_learner(config: Any, *, start: str, **kwargs: Any):
    """A trainer learner with burn's TUI renderer attached (torch is imported here)."""
    from trainer.learner import Learner

    class DashboardLearner(Learner):
        """The learner, each item's progress sent to the TUI renderer as burn's loop sends it."""

        def __init__(self) -> None:
            super().__init__(config, **kwargs)
            self.seconds = 0.0
            self.tui = TuiRenderer(
                config.resume, start=start, clock=lambda: self.seconds, usize=Usize()
            )

        def fit(self, *, stop_after: int | None = None) -> None:
            first = 1 if self.config.resume is None else self.config.resume + 1
            self.tui.start(self.config.epochs, first)
            super().fit(stop_after=stop_after)

        def run_epoch(self, epoch: int) -> bool:
            ran = super().run_epoch(epoch)
            if ran:
                self.tui.update_epoch(epoch)  # EndEpoch, after the valid split
            return ran

        def train_epoch(self, epoch: int) -> float:
            loss = super().train_epoch(epoch)
            self._split("train", len(self.train_set))
            return loss

        def valid_epoch(self) -> float:
            loss = super().valid_epoch()
            self._split("valid", len(self.valid_set))
            return loss

        def _split(self, split: str, total: int) -> None:
            self.tui.start_split(split, total)
            for items in item_counts(total, self.config.batch_size):
                self.seconds += ITEM_SECONDS
                self._send(items)
            self.tui.end_split()

        def _send(self, items: int) -> None:
            try:
                self.tui.update_split(items)
            except Panic as panic:
                # The renderer thread's panic: it ends that thread, not training.
                self.tui.alive = False
                self._on_panic(Printed.panic(panic, thread=RENDERER_THREAD))

    return DashboardLearner()


def run_resume_phase(attempt: Any) -> None:
    """A run trained to its last epoch, then a resume from it with more epochs, under the TUI
    renderer as burn's main had it before tracel-ai/burn#5109; the fix, as main has it."""
    start = "resumed-epoch" if attempt.fixed else "epoch-one"
    finished = attempt.config.with_overrides(resume=None, epochs=attempt.scenario.resume)
    for config in (finished, attempt.config):
        learner = dashboard_learner(config, start=start, on_print=attempt.announce)
        attempt.learners.append(learner)
        learner.fit()
