"""burn's ``LearningCheckpointer``: one async checkpointer per component, each call unwrapped.

The learner hands it the model, optimizer and scheduler; it saves, deletes and
restores their records the way burn's learner does (learner/base.rs:133-212),
each call through ``expect`` with the panic burn raises there, and drops the
checkpointers in field order at the end, as Rust does.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch

from trainer import burn
from trainer.checkpoint.asynchronous import AsyncCheckpointer, Interrupter
from trainer.checkpoint.file import FileCheckpointer
from trainer.errors import Abort, Panic, Printed, expect
from trainer.layouts import (
    load_optimizer_item,
    load_optimizer_record,
    load_scheduler_item,
    load_scheduler_record,
    optimizer_item,
    optimizer_record,
    scheduler_record,
)
from trainer.record import apply_module_record, module_record
from trainer.recorder import load_module_record_19


def snapshot(value: Any) -> Any:
    """A host copy of a state tree, read on the training thread: from 0.22.0-pre.1 burn
    reads a record's tensor data when it builds the record (``ModuleRecord::from_module``,
    store/mod.rs:224-230 and 281-310 at main), before the worker writes it. The copy lets
    training go on while the worker writes."""
    if isinstance(value, torch.Tensor):
        return value.detach().to("cpu", copy=True)
    if isinstance(value, dict):
        return {k: snapshot(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [snapshot(v) for v in value]
    return value


class LearningCheckpointer:
    """The checkpointers of one set-up, keyed by component, in the order burn calls them."""

    def __init__(
        self,
        directory: Path,
        setup: burn.Setup,
        *,
        interrupter: Interrupter | None,
        on_panic: Callable[[Printed], None],
    ):
        self.components = setup.components
        self.release = burn.RELEASES[setup.release]
        self.on_panic = on_panic
        # burn's learner only ever holds async checkpointers, whatever the set-up.
        self.checkpointers = {
            name: AsyncCheckpointer(
                FileCheckpointer(directory, name, release=self.release.name),
                interrupter=interrupter,
                on_panic=on_panic,
            )
            for name in self.components
        }

    @property
    def rl(self) -> bool:
        return self.components == burn.RL_COMPONENTS  # RLCheckpointer: policy, learning agent

    def _site(self, action: str, name: str) -> burn.Panic:
        return burn.learner_panic(self.release, action, name)

    def save(self, epoch: int, model, optimizer, scheduler) -> None:
        records = self.records(model, optimizer, scheduler)
        for name in self.components:
            expect(self._site("save", name), self.checkpointers[name].save, epoch, records[name])

    def records(self, model, optimizer, scheduler) -> dict[str, Any]:
        """Snapshots of the records in burn's layouts (``trainer.layouts``), keyed by
        checkpointer name. The RL learning agent's record is the agent's own type
        (``RLAgentRecord``, learner/rl/checkpointer.rs:15 at main): the trainer's holds the
        optimizer's and the scheduler's in their nested recorder form (``optimizer_item``)."""
        policy = snapshot(module_record(model))
        if self.rl:
            agent = {
                "optim": optimizer_item(model, optimizer),
                "scheduler": scheduler.current_iter,
            }
            return {"policy": policy, "learning-agent": snapshot(agent)}
        if self.release.name == "main":
            optim, schedule = optimizer_record(model, optimizer), scheduler_record(scheduler)
        else:
            optim = optimizer_item(model, optimizer, self.release.name.removeprefix("v"))
            schedule = scheduler.current_iter
        return {"model": policy, "optim": snapshot(optim), "scheduler": schedule}

    def delete(self, epoch: int) -> None:
        for name in self.components:
            expect(self._site("delete", name), self.checkpointers[name].delete, epoch)

    def load(self, epoch: int, model, optimizer, scheduler) -> None:
        """Restore each record for ``epoch``, each a blocking call, and apply them."""
        first, *rest = self.components
        record = self._restore(first, epoch, like=module_record(model))
        if self.release.name == "main":
            # learner.load_model -> Module::load_record: a record that does not fit panics.
            expect(burn.MODULE["load_record"], apply_module_record, model, record)
        else:
            # learner/base.rs:89-93 at v0.19.1. v0.21.0 (learner/base.rs:126-127) loads a record
            # its CompactRecorder wrote back as v0.19.1 does: record/file.rs and recorder.rs
            # differ only in tests and a derive; for a successful load nothing else is mirrored.
            load_module_record_19(model, record)
        restored = {name: self._restore(name, epoch) for name in rest}
        if self.rl:
            agent = restored["learning-agent"]
            load_optimizer_item(model, optimizer, agent["optim"])
            load_scheduler_item(scheduler, agent["scheduler"])
        elif self.release.name == "main":
            load_optimizer_record(model, optimizer, restored["optim"])
            load_scheduler_record(scheduler, restored["scheduler"])
        else:
            load_optimizer_item(model, optimizer, restored["optim"])
            load_scheduler_item(scheduler, restored["scheduler"])

    def _restore(self, name: str, epoch: int, like: dict[str, Any] | None = None) -> Any:
        return expect(self._site("load", name), self.checkpointers[name].restore, epoch, like)

    def wait_idle(self) -> None:
        """Let the workers finish the writes already handed to them."""
        for checkpointer in self.checkpointers.values():
            checkpointer.wait_idle()

    def drop(self, *, unwinding: bool) -> None:
        """Drop the checkpointers in field order, as Rust does.

        Each ``Drop`` sends the end message; a dead worker makes it panic with
        ``Can send the end message to the checkpointer thread.``.  That panic
        cannot unwind out of a destructor while the thread already unwinds: core
        panics ``panic in a destructor during cleanup`` without unwinding (the
        hook reports it too), and the process aborts (``Abort``): nothing after it runs.
        """
        for name, checkpointer in self.checkpointers.items():
            try:
                checkpointer.close()
            except Panic as panic:
                self.on_panic(Printed.panic(panic))
                if unwinding:
                    self._stop_workers(after=name)
                    self.on_panic(Printed.panic_in_cleanup())
                    raise Abort() from panic
                unwinding = True

    def _stop_workers(self, *, after: str) -> None:
        """Quietly end the workers still alive before the abort (harness only: the abort
        would leave them mid-write, and in-process callers keep running)."""
        names = list(self.checkpointers)
        for name in names[names.index(after) + 1 :]:
            self.checkpointers[name].stop()
