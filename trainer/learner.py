"""The learner: a readable training loop with burn-train's checkpointing.

Run it with ``python -m trainer train --epochs 4 --artifact-dir runs/demo``.

Each epoch trains, validates, then asks the checkpointing strategy what to do
and does it -- ``Save`` first, then any ``Delete`` -- unwrapping every
checkpointer call the way burn's learner does (``expect``), so a failure
panics with burn's exact text, e.g.
``Can save model checkpoint.: Record(Io("I/O error: cannot write to ..."))``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch
import torch.nn.functional as F

from trainer.checkpoint import (
    AsyncCheckpointer,
    ComposedStrategy,
    FileCheckpointer,
    Interrupter,
    KeepLastStrategy,
    MetricStrategy,
    Save,
)
from trainer.checkpoint.asynchronous import print_panic
from trainer.config import TrainConfig
from trainer.data import batches, make_dataset
from trainer.errors import TrainingInterrupted, expect
from trainer.model import build_model, load_file
from trainer.record import apply_module_record

# burn's learner texts, per component: (save, delete, load).
MESSAGES = {
    "model": (
        "Can save model checkpoint.",
        "Can delete model checkpoint.",
        "Can load model checkpoint.",
    ),
    "optim": (
        "Can save optimizer checkpoint.",
        "Can delete optimizer checkpoint.",
        "Can load optimizer checkpoint.",
    ),
    "scheduler": (
        "Can save learning rate scheduler checkpoint.",
        "Can delete learning rate scheduler checkpoint.",
        "Can load learning rate scheduler checkpoint.",
    ),
}
COMPONENTS = tuple(MESSAGES)  # the order burn saves, deletes and restores in


def log(message: str) -> None:
    # stderr, so that a reproduction's stdout carries only its outcome JSON.
    print(message, file=sys.stderr, flush=True)


def cpu_copy(value: Any) -> Any:
    """A CPU copy of a state tree; the async worker writes it while training goes on."""
    if isinstance(value, torch.Tensor):
        return value.detach().to("cpu", copy=True)
    if isinstance(value, dict):
        return {k: cpu_copy(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [cpu_copy(v) for v in value]
    return value


class Learner:
    """Model, optimizer, scheduler, data and checkpointers for one training run."""

    def __init__(
        self,
        config: TrainConfig,
        *,
        before_checkpoint: Callable[[int], None] | None = None,
    ):
        self.config = config
        self.device = torch.device(config.device)
        self.model = build_model(config)
        if config.init_from is not None:
            load_file(self.model, config.init_from)
        self.train_set, self.valid_set = make_dataset(config)
        self.optimizer = torch.optim.AdamW(
            self.model.parameters(), lr=config.learning_rate, weight_decay=config.weight_decay
        )
        self.scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(
            self.optimizer, T_max=config.epochs * self.batches_per_epoch, eta_min=config.lr_min
        )
        self.valid_losses: dict[int, float] = {}
        self.kept_epochs: set[int] = set()
        self.epochs_run = 0
        self.worker_panics: list[tuple[str, int | None]] = []  # (message, errno)
        self.before_checkpoint = before_checkpoint
        self.interrupter = Interrupter() if config.interrupter else None
        self.checkpointers = self._build_checkpointers()
        self.strategy = self._build_strategy()

    # -- construction -------------------------------------------------------

    @property
    def checkpoint_dir(self) -> Path:
        return Path(self.config.artifact_dir) / "checkpoint"

    @property
    def batches_per_epoch(self) -> int:
        return -(-self.config.train_samples // self.config.batch_size)

    def _build_checkpointers(self) -> dict[str, Any]:
        files = {name: FileCheckpointer(self.checkpoint_dir, name) for name in COMPONENTS}
        if self.config.checkpointer == "sync":
            return files
        if self.config.checkpointer != "async":
            raise ValueError(f"unknown checkpointer {self.config.checkpointer!r}")
        return {
            name: AsyncCheckpointer(file, interrupter=self.interrupter, on_panic=self._on_panic)
            for name, file in files.items()
        }

    def _build_strategy(self):
        keep_last = KeepLastStrategy(self.config.keep_last)
        if self.config.strategy == "keep-last":
            return keep_last
        if self.config.strategy != "composed":
            raise ValueError(f"unknown strategy {self.config.strategy!r}")
        return ComposedStrategy([keep_last, MetricStrategy(self.best_epoch)])

    def wait_for_checkpointers(self) -> None:
        """Let async checkpointers finish the writes already handed to them."""
        for checkpointer in self.checkpointers.values():
            if isinstance(checkpointer, AsyncCheckpointer):
                checkpointer.wait_idle()

    def _on_panic(self, thread_name: str, message: str, errno: int | None) -> None:
        self.worker_panics.append((message, errno))
        print_panic(thread_name, message)

    def best_epoch(self) -> int | None:
        """The epoch with the lowest mean validation loss so far (the earliest on ties)."""
        if not self.valid_losses:
            return None
        return min(self.valid_losses, key=lambda epoch: (self.valid_losses[epoch], epoch))

    # -- the loop -----------------------------------------------------------

    def fit(self, *, stop_after: int | None = None) -> None:
        """Train from epoch 1, or from ``resume + 1`` after restoring that checkpoint.

        ``stop_after`` ends the run early after that epoch, as a crash or a
        preemption would, leaving the checkpoints for a later resume.
        """
        first = 1
        if self.config.resume is not None:
            self.load_checkpoint(self.config.resume)
            first = self.config.resume + 1
        last = self.config.epochs if stop_after is None else stop_after
        try:
            for epoch in range(first, last + 1):
                self.run_epoch(epoch)
        except BaseException:
            self.stop_workers()
            raise
        self.close()

    def run_epoch(self, epoch: int) -> None:
        """Train, validate, then checkpoint as the strategy says."""
        train_loss = self.train_epoch(epoch)
        valid_loss = self.valid_epoch()
        self.valid_losses[epoch] = valid_loss
        self.epochs_run = epoch
        lr = self.scheduler.get_last_lr()[0]
        log(
            f"epoch {epoch}/{self.config.epochs} "
            f"train {train_loss:.4f} valid {valid_loss:.4f} lr {lr:.5f}"
        )
        if self.before_checkpoint is not None:
            self.before_checkpoint(epoch)
        self.checkpoint(epoch)

    def train_epoch(self, epoch: int) -> float:
        self.model.train()
        losses = []
        for inputs, labels in batches(
            self.train_set, self.config.batch_size, shuffle_seed=self.config.seed * 1000 + epoch
        ):
            self._check_interrupter()
            logits = self.model(inputs.to(self.device))
            loss = F.cross_entropy(logits, labels.to(self.device))
            self.optimizer.zero_grad(set_to_none=True)
            loss.backward()
            self.optimizer.step()
            self.scheduler.step()  # per iteration, as burn's schedulers step
            losses.append(loss.item())
        return sum(losses) / len(losses)

    @torch.no_grad()
    def valid_epoch(self) -> float:
        self.model.eval()
        losses = [
            F.cross_entropy(self.model(x.to(self.device)), y.to(self.device)).item()
            for x, y in batches(self.valid_set, self.config.batch_size)
        ]
        return sum(losses) / len(losses)

    def _check_interrupter(self) -> None:
        if self.interrupter is not None and self.interrupter.should_stop():
            raise TrainingInterrupted(self.interrupter.reason or "")

    def close(self) -> None:
        """Stop the async workers (burn's ``Drop``) after they finish pending work."""
        for checkpointer in self.checkpointers.values():
            if isinstance(checkpointer, AsyncCheckpointer):
                checkpointer.close()
        self._check_interrupter()

    def stop_workers(self) -> None:
        """Quietly end the async workers after a failure (they may hold pending writes)."""
        for checkpointer in self.checkpointers.values():
            if isinstance(checkpointer, AsyncCheckpointer):
                checkpointer.stop()

    # -- checkpointing ------------------------------------------------------

    def records(self) -> dict[str, Any]:
        """CPU copies of the three records, keyed by checkpointer name."""
        return {
            "model": cpu_copy(self.model.state_dict()),
            "optim": cpu_copy(self.optimizer.state_dict()),
            "scheduler": cpu_copy(self.scheduler.state_dict()),
        }

    def checkpoint(self, epoch: int) -> None:
        """Run the strategy's actions for ``epoch``, Save before Delete."""
        for action in self.strategy.checkpointing(epoch):
            if isinstance(action, Save):
                self.save_checkpoint(epoch)
            else:
                self.delete_checkpoint(action.epoch)

    def save_checkpoint(self, epoch: int) -> None:
        records = self.records()
        for name in COMPONENTS:
            expect(MESSAGES[name][0], self.checkpointers[name].save, epoch, records[name])
        self.kept_epochs.add(epoch)

    def delete_checkpoint(self, epoch: int) -> None:
        for name in COMPONENTS:
            expect(MESSAGES[name][1], self.checkpointers[name].delete, epoch)
        self.kept_epochs.discard(epoch)

    def load_checkpoint(self, epoch: int) -> None:
        """Restore model, optimizer and scheduler for ``epoch``, each a blocking call."""
        record = self._restore("model", epoch)
        expect("Failed to load record", apply_module_record, self.model, record)
        self.optimizer.load_state_dict(self._restore("optim", epoch))
        self.scheduler.load_state_dict(self._restore("scheduler", epoch))
        self.epochs_run = epoch

    def _restore(self, name: str, epoch: int) -> Any:
        return expect(MESSAGES[name][2], self.checkpointers[name].restore, epoch)
