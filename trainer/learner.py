"""The learner: a readable training loop with burn-train's checkpointing.

Run it with ``python -m trainer train --epochs 4 --artifact-dir runs/demo``.

Each epoch trains, validates, then asks the checkpointing strategy what to do
and does it -- ``Save`` first, then any ``Delete`` -- through burn's async
checkpointers, unwrapping every call the way burn's learner does (``expect``).
The checkpointers are wired as one of burn's set-ups (``burn.SETUPS``): the
supervised launcher attaches the training interrupter, so a failed save stops
training with ``Training interrupted: <reason>`` logged; the RL paradigm and a
hand-built ``LearningCheckpointer`` attach none, so the worker panics and the
learner's next send to it fails.  ``fit`` is burn's ``launch``: from there on burn's
file logger is installed, so each panic is logged (``PANIC => …``) and announced
by a banner before the default hook reports it.  Every text burn would print is
collected in ``printed``, in order, and handed to ``on_print`` as it is printed.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import torch
import torch.nn.functional as F

from trainer import burn
from trainer.checkpoint import ComposedStrategy, Interrupter, KeepLastStrategy, MetricStrategy, Save
from trainer.checkpoint.asynchronous import AsyncCheckpointer, print_panic
from trainer.checkpoint.learning import LearningCheckpointer
from trainer.config import TrainConfig
from trainer.data import batches, make_dataset
from trainer.dispatch import DispatchDevice, float_to_device, load_record
from trainer.errors import Abort, Panic, Printed, panic_hook
from trainer.model import build_model, load_file
from trainer.schedule import CosineAnnealingLr


def log(message: str) -> None:
    # stderr, so that a reproduction's stdout carries only its outcome JSON.
    print(message, file=sys.stderr, flush=True)


class Learner:
    """Model, optimizer, scheduler, data and checkpointers for one training run."""

    def __init__(
        self,
        config: TrainConfig,
        *,
        before_checkpoint: Callable[[int], None] | None = None,
        on_print: Callable[[Printed], None] | None = None,
    ):
        self.config = config
        self.on_print = on_print
        self.launched = False  # burn's launch installed its logger and panic hook
        self.device = torch.device(config.device)
        self.model = build_model(config)
        if config.init_from is not None:
            load_file(self.model, config.init_from)
        self.train_set, self.valid_set = make_dataset(config)
        self.optimizer, self.scheduler = build_optimizer(config, self.model)
        self.valid_losses: dict[int, float] = {}  # by checkpoint number
        self.kept_epochs: set[int] = set()  # checkpoint numbers
        self.epochs_run = 0
        self.printed: list[Printed] = []  # what burn would print, in order
        self.before_checkpoint = before_checkpoint
        self.setup = burn.setup(config.setup)
        # The Dispatch device the model's parameters are on (Dispatch set-ups only): burn's
        # MNIST example builds the model on DispatchDevice::autodiff(device) (mnist.rs:45).
        self.param_device: DispatchDevice | None = None
        if self.setup.dispatch:
            self.param_device = DispatchDevice.default(config.device).to_autodiff()
        self.interrupter = Interrupter() if self.setup.interrupter else None
        self.checkpointer = LearningCheckpointer(
            Path(config.artifact_dir) / "checkpoint",
            self.setup,
            interrupter=self.interrupter,
            on_panic=self._on_panic,
        )
        self.strategy = build_strategy(self.setup, config.keep_last, self.valid_losses)

    # -- construction -------------------------------------------------------

    @property
    def components(self) -> tuple[str, ...]:
        return self.setup.components

    @property
    def checkpointers(self) -> dict[str, AsyncCheckpointer]:
        return self.checkpointer.checkpointers

    def number(self, epoch: int) -> int:
        """The number burn checkpoints ``epoch`` under: the epoch, or the RL loop's step count."""
        return epoch * self.setup.interval

    def wait_for_checkpointers(self) -> None:
        """Let the workers finish the writes already handed to them."""
        self.checkpointer.wait_idle()

    @property
    def experiment_log(self) -> Path:
        """The file burn's logger writes: ``<artifact dir>/experiment.log``."""
        return Path(self.config.artifact_dir) / "experiment.log"

    def _on_panic(self, printed: Printed) -> None:
        if self.launched:
            release = burn.RELEASES[self.setup.release]
            for hooked in panic_hook(release, str(self.experiment_log), printed):
                self._print(hooked)
        self._print(printed)

    def _print(self, printed: Printed) -> None:
        self.printed.append(printed)
        if printed.logged:
            log(printed.render())
        else:
            print_panic(printed)
        if self.on_print is not None:
            self.on_print(printed)

    @property
    def panicked(self) -> bool:
        return any(p.kind == "panic" for p in self.printed)

    # -- the loop -----------------------------------------------------------

    def fit(self, *, stop_after: int | None = None) -> None:
        """Train from epoch 1, or from ``resume + 1`` after restoring that checkpoint.

        ``stop_after`` ends the run early after that epoch, as a crash or a
        preemption would, leaving the checkpoints for a later resume.  A panic
        ends the run as it ends a Rust program: recorded, then the checkpointers
        are dropped while unwinding; a second panic there aborts (``Abort`` propagates).
        """
        self.launched = True
        # launch trains on the model's device, taken before any restore (paradigm.rs:380-383
        # at v0.21.0); the strategy's fit forks the learner onto it (single/strategy.rs:60).
        training_device = self.param_device
        try:
            first = 1
            if self.config.resume is not None:
                self.load_checkpoint(self.number(self.config.resume), training_device)
                first = self.config.resume + 1
            if training_device is not None:
                # Learner::fork -> Param::fork -> float_to_device (learner/base.rs:71-73,
                # param/tensor.rs:306-309 at v0.21.0): a record left on a plain device panics.
                self.param_device = float_to_device(self.param_device, training_device)
            last = self.config.epochs if stop_after is None else stop_after
            for epoch in range(first, last + 1):
                if not self.run_epoch(epoch):
                    break
        except Panic as panic:
            self._on_panic(Printed.panic(panic))
            self._drop_checkpointer(unwinding=True)
            return
        # At the end of training too: two dead workers make the second Drop panic while
        # the first one's panic unwinds, and std prints its line before it aborts.
        self._drop_checkpointer(unwinding=False)

    def _drop_checkpointer(self, *, unwinding: bool) -> None:
        try:
            self.checkpointer.drop(unwinding=unwinding)
        except Abort:
            self._print(Printed.abort())
            raise

    def run_epoch(self, epoch: int) -> bool:
        """Train, validate, then checkpoint as the strategy says; False once interrupted."""
        train_loss = self.train_epoch(epoch)
        if self._interrupted():
            # single/strategy.rs:83-90: checked after the train split, logged, loop left.
            reason = self.interrupter.reason or burn.REASON_UNKNOWN.render()
            self._print(
                Printed.log(burn.TRAINING_INTERRUPTED, reason, errno=self.interrupter.errno)
            )
            return False
        valid_loss = self.valid_epoch()
        self.valid_losses[self.number(epoch)] = valid_loss
        self.epochs_run = epoch
        lr = self.scheduler.get_last_lr()[0]
        log(
            f"epoch {epoch}/{self.config.epochs} "
            f"train {train_loss:.4f} valid {valid_loss:.4f} lr {lr:.5f}"
        )
        if self.before_checkpoint is not None:
            self.before_checkpoint(epoch)
        self.checkpoint(self.number(epoch))
        return True

    def train_epoch(self, epoch: int) -> float:
        self.model.train()
        losses = []
        for inputs, labels in batches(
            self.train_set, self.config.batch_size, shuffle_seed=self.config.seed * 1000 + epoch
        ):
            inputs, labels = inputs.to(self.device), labels.to(self.device)
            losses.append(train_step(self.model, self.optimizer, self.scheduler, inputs, labels))
            if self._interrupted():  # single/epoch.rs:135: after the item, as burn checks
                break
        return sum(losses) / len(losses)

    @torch.no_grad()
    def valid_epoch(self) -> float:
        self.model.eval()
        losses = []
        for x, y in batches(self.valid_set, self.config.batch_size):
            losses.append(F.cross_entropy(self.model(x.to(self.device)), y.to(self.device)).item())
            if self._interrupted():  # single/epoch.rs:60
                break
        return sum(losses) / len(losses)

    def _interrupted(self) -> bool:
        return self.interrupter is not None and self.interrupter.should_stop()

    # -- checkpointing ------------------------------------------------------

    def checkpoint(self, epoch: int) -> None:
        """Run the strategy's actions for checkpoint number ``epoch``, Save before Delete."""
        for action in self.strategy.checkpointing(epoch):
            if isinstance(action, Save):
                self.checkpointer.save(epoch, self.model, self.optimizer, self.scheduler)
                self.kept_epochs.add(epoch)
            else:
                self.checkpointer.delete(action.epoch)
                self.kept_epochs.discard(action.epoch)

    def load_checkpoint(self, epoch: int, training_device: DispatchDevice | None = None) -> None:
        """Restore checkpoint number ``epoch``: the model, then the optimizer and scheduler."""
        self.checkpointer.load(epoch, self.model, self.optimizer, self.scheduler)
        if self.param_device is not None:
            # The records are read onto the restore device, and load_record keeps it.
            self.param_device = load_record(self.param_device, self.restore_device(training_device))
        self.epochs_run = epoch // self.setup.interval

    def restore_device(self, training_device: DispatchDevice | None) -> DispatchDevice:
        """The device a Dispatch set-up's launch restores a checkpoint on: v0.21.0's
        `load_checkpoint(learner, &Default::default(), checkpoint)` (strategies/base.rs:175-184
        at v0.21.0), or, as tracel-ai/burn#5084 fixed it (0.22.0-pre.1), the training device
        itself: main restores in launch, before the strategy, onto the learner's existing
        parameters' device (supervised/paradigm.rs:416-421 at 2c06be35)."""
        if self.config.restore_device == "training" and training_device is not None:
            return training_device
        return DispatchDevice.default(self.config.device)


def build_optimizer(config: TrainConfig, model: torch.nn.Module):
    """AdamW, and burn's cosine schedule stepped once per batch over the whole run."""
    optimizer = torch.optim.AdamW(
        model.parameters(), lr=config.learning_rate, weight_decay=config.weight_decay
    )
    batches_per_epoch = -(-config.train_samples // config.batch_size)
    scheduler = CosineAnnealingLr(
        optimizer, num_iters=config.epochs * batches_per_epoch, min_lr=config.lr_min
    )
    return optimizer, scheduler


def best_epoch(valid_losses: dict[int, float]) -> int | None:
    """The checkpoint with the lowest mean validation loss so far (the earliest on ties)."""
    if not valid_losses:
        return None
    return min(valid_losses, key=lambda epoch: (valid_losses[epoch], epoch))


def train_step(model, optimizer, scheduler, inputs: torch.Tensor, labels: torch.Tensor) -> float:
    """One batch: forward, backward, an optimizer and a scheduler step; returns the loss."""
    loss = F.cross_entropy(model(inputs), labels)
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    optimizer.step()
    scheduler.step()  # per iteration, as burn's schedulers step
    return loss.item()


def build_strategy(setup: burn.Setup, keep_last: int, valid_losses: dict[int, float]):
    """Keep-last-N alone, or composed with the metric strategy (burn's default)."""
    keep = KeepLastStrategy(keep_last)
    if setup.strategy == "keep-last":
        return keep
    return ComposedStrategy([keep, MetricStrategy(lambda: best_epoch(valid_losses))])
