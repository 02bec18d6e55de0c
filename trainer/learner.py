"""The learner: a readable training loop with burn-train's checkpointing.

Run it with ``python -m trainer train --epochs 4 --artifact-dir runs/demo``.

Each epoch trains, validates, then asks the checkpointing strategy what to do
and does it -- ``Save`` first, then any ``Delete`` -- through burn's async
checkpointers, unwrapping every call the way burn's learner does (``expect``).
The checkpointers are wired as one of burn's set-ups (``burn.SETUPS``): the
supervised launcher attaches the training interrupter, so a failed save stops
training with ``Training interrupted: <reason>`` logged; the RL paradigm and a
hand-built ``LearningCheckpointer`` attach none, so the worker panics and the
learner's next send to it fails.  Every text burn would print is collected in
``printed``, in order.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch
import torch.nn.functional as F

from trainer import burn
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
from trainer.errors import Panic, Printed, expect
from trainer.model import build_model, load_file
from trainer.record import apply_module_record


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
        self.valid_losses: dict[int, float] = {}  # by checkpoint number
        self.kept_epochs: set[int] = set()  # checkpoint numbers
        self.epochs_run = 0
        self.printed: list[Printed] = []  # what burn would print, in order
        self.before_checkpoint = before_checkpoint
        self.setup = burn.setup(config.setup)
        self.release = burn.RELEASES[self.setup.release]
        self.interrupter = Interrupter() if self.setup.interrupter else None
        self.checkpointers = self._build_checkpointers()
        self.strategy = self._build_strategy()

    # -- construction -------------------------------------------------------

    @property
    def checkpoint_dir(self) -> Path:
        return Path(self.config.artifact_dir) / "checkpoint"

    @property
    def batches_per_epoch(self) -> int:
        return -(-self.config.train_samples // self.config.batch_size)

    @property
    def components(self) -> tuple[str, ...]:
        return self.setup.components

    def _build_checkpointers(self) -> dict[str, AsyncCheckpointer]:
        """burn's learner only ever holds async checkpointers, whatever the set-up."""
        return {
            name: AsyncCheckpointer(
                FileCheckpointer(self.checkpoint_dir, name, release=self.release.name),
                interrupter=self.interrupter,
                on_panic=self._on_panic,
            )
            for name in self.components
        }

    def _build_strategy(self):
        keep_last = KeepLastStrategy(self.config.keep_last)
        if self.setup.strategy == "keep-last":
            return keep_last
        return ComposedStrategy([keep_last, MetricStrategy(self.best_epoch)])

    def number(self, epoch: int) -> int:
        """The number burn checkpoints ``epoch`` under: the epoch, or the RL loop's step count."""
        return epoch * self.setup.interval

    def wait_for_checkpointers(self) -> None:
        """Let the workers finish the writes already handed to them."""
        for checkpointer in self.checkpointers.values():
            checkpointer.wait_idle()

    def _on_panic(self, printed: Printed) -> None:
        self.printed.append(printed)
        print_panic(printed)

    @property
    def panicked(self) -> bool:
        return any(p.kind == "panic" for p in self.printed)

    def best_epoch(self) -> int | None:
        """The checkpoint with the lowest mean validation loss so far (the earliest on ties)."""
        if not self.valid_losses:
            return None
        return min(self.valid_losses, key=lambda epoch: (self.valid_losses[epoch], epoch))

    # -- the loop -----------------------------------------------------------

    def fit(self, *, stop_after: int | None = None) -> None:
        """Train from epoch 1, or from ``resume + 1`` after restoring that checkpoint.

        ``stop_after`` ends the run early after that epoch, as a crash or a
        preemption would, leaving the checkpoints for a later resume.  A panic
        ends the run as it ends a Rust program: recorded, then the checkpointers
        are dropped while unwinding.
        """
        try:
            first = 1
            if self.config.resume is not None:
                self.load_checkpoint(self.number(self.config.resume))
                first = self.config.resume + 1
            last = self.config.epochs if stop_after is None else stop_after
            for epoch in range(first, last + 1):
                if not self.run_epoch(epoch):
                    break
        except Panic as panic:
            self._on_panic(Printed.panic(panic))
            self.drop_checkpointers(unwinding=True)
            return
        self.drop_checkpointers(unwinding=False)

    def run_epoch(self, epoch: int) -> bool:
        """Train, validate, then checkpoint as the strategy says; False once interrupted."""
        train_loss = self.train_epoch(epoch)
        if self.interrupter is not None and self.interrupter.should_stop():
            # single/strategy.rs:83-90: checked after the train split, logged, loop left.
            reason = self.interrupter.reason or burn.REASON_UNKNOWN.render()
            self._log(burn.TRAINING_INTERRUPTED.render(reason), errno=self.interrupter.errno)
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

    def _log(self, text: str, *, errno: int | None = None) -> None:
        printed = Printed(text, "log", errno=errno)
        self.printed.append(printed)
        log(printed.render())

    def train_epoch(self, epoch: int) -> float:
        self.model.train()
        losses = []
        for inputs, labels in batches(
            self.train_set, self.config.batch_size, shuffle_seed=self.config.seed * 1000 + epoch
        ):
            if self.interrupter is not None and self.interrupter.should_stop():
                break  # the epoch's loop stops at the next item
            logits = self.model(inputs.to(self.device))
            loss = F.cross_entropy(logits, labels.to(self.device))
            self.optimizer.zero_grad(set_to_none=True)
            loss.backward()
            self.optimizer.step()
            self.scheduler.step()  # per iteration, as burn's schedulers step
            losses.append(loss.item())
        return sum(losses) / len(losses) if losses else float("nan")

    @torch.no_grad()
    def valid_epoch(self) -> float:
        self.model.eval()
        losses = [
            F.cross_entropy(self.model(x.to(self.device)), y.to(self.device)).item()
            for x, y in batches(self.valid_set, self.config.batch_size)
        ]
        return sum(losses) / len(losses)

    def drop_checkpointers(self, *, unwinding: bool) -> None:
        """Drop the checkpointers in field order, as Rust does.

        Each ``Drop`` sends the end message; a dead worker makes it panic with
        ``Can send the end message to the checkpointer thread.``.  A panic
        while already unwinding aborts the process: nothing after it runs.
        """
        for name, checkpointer in self.checkpointers.items():
            try:
                checkpointer.close()
            except Panic as panic:
                self._on_panic(Printed.panic(panic))
                if unwinding:
                    self._abort(after=name)
                    return
                unwinding = True

    def _abort(self, *, after: str) -> None:
        """What the abort leaves: quietly end the workers still alive (harness only)."""
        names = list(self.checkpointers)
        for name in names[names.index(after) + 1 :]:
            self.checkpointers[name].stop()

    # -- checkpointing ------------------------------------------------------

    def records(self) -> dict[str, Any]:
        """CPU copies of the records, keyed by checkpointer name."""
        model = cpu_copy(self.model.state_dict())
        optim = cpu_copy(self.optimizer.state_dict())
        scheduler = cpu_copy(self.scheduler.state_dict())
        if self.components == burn.RL_COMPONENTS:  # RLCheckpointer: policy, learning agent
            return {"policy": model, "learning-agent": {"optim": optim, "scheduler": scheduler}}
        return {"model": model, "optim": optim, "scheduler": scheduler}

    def checkpoint(self, epoch: int) -> None:
        """Run the strategy's actions for checkpoint number ``epoch``, Save before Delete."""
        for action in self.strategy.checkpointing(epoch):
            if isinstance(action, Save):
                self.save_checkpoint(epoch)
            else:
                self.delete_checkpoint(action.epoch)

    def _site(self, action: str, name: str) -> burn.Panic:
        return burn.learner_panic(self.release, action, name)

    def save_checkpoint(self, epoch: int) -> None:
        records = self.records()
        for name in self.components:
            expect(self._site("save", name), self.checkpointers[name].save, epoch, records[name])
        self.kept_epochs.add(epoch)

    def delete_checkpoint(self, epoch: int) -> None:
        for name in self.components:
            expect(self._site("delete", name), self.checkpointers[name].delete, epoch)
        self.kept_epochs.discard(epoch)

    def load_checkpoint(self, epoch: int) -> None:
        """Restore each record for ``epoch`` and apply it, each a blocking call."""
        restored = {name: self._restore(name, epoch) for name in self.components[:1]}
        first = self.components[0]
        # learner.load_model -> Module::load_record: a record that does not fit panics there.
        expect(burn.MODULE["load_record"], apply_module_record, self.model, restored[first])
        for name in self.components[1:]:
            restored[name] = self._restore(name, epoch)
        if self.components == burn.RL_COMPONENTS:
            agent = restored["learning-agent"]
            optim, scheduler = agent["optim"], agent["scheduler"]
        else:
            optim, scheduler = restored["optim"], restored["scheduler"]
        self.optimizer.load_state_dict(optim)
        self.scheduler.load_state_dict(scheduler)
        self.epochs_run = epoch // self.setup.interval

    def _restore(self, name: str, epoch: int) -> Any:
        return expect(self._site("load", name), self.checkpointers[name].restore, epoch)
