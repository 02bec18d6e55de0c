"""burn's checkpointing strategies: which epochs to save and which to delete.

After each epoch the learner asks the strategy for actions and runs them in
order; ``Save`` (this epoch) comes before any ``Delete(epoch)``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Save:
    """Save this epoch's model, optimizer and scheduler records."""


@dataclass(frozen=True)
class Delete:
    """Delete the records of ``epoch``."""

    epoch: int


Action = Save | Delete


class KeepLastStrategy:
    """Always save; delete ``epoch - n`` once that is a real epoch (> 0)."""

    def __init__(self, n: int = 2):
        self.n = n

    def checkpointing(self, epoch: int) -> list[Action]:
        actions: list[Action] = [Save()]
        if epoch - self.n > 0:
            actions.append(Delete(epoch - self.n))
        return actions


class MetricStrategy:
    """Keep the epoch with the lowest metric (burn: mean validation loss).

    ``best_epoch`` is asked of the metric store each time, as burn asks its
    event store; the strategy deletes the previous best once the best moves.
    """

    def __init__(self, best_epoch: Callable[[], int | None]):
        self.best_epoch = best_epoch
        self.current: int | None = None

    def checkpointing(self, epoch: int) -> list[Action]:
        best = self.best_epoch()
        best = epoch if best is None else best
        actions: list[Action] = []
        if self.current is not None and self.current != best:
            actions.append(Delete(self.current))
        if best == epoch:
            actions.append(Save())
        self.current = best
        return actions


class ComposedStrategy:
    """Save if any strategy saves; delete an epoch only once every strategy let it go.

    A strategy that returns no action for an epoch does not want it, so the
    epoch counts as let go by that strategy (burn does the same).
    """

    def __init__(self, strategies: list):
        self.strategies = strategies
        self.let_go: list[set[int]] = [set() for _ in strategies]

    def checkpointing(self, epoch: int) -> list[Action]:
        save = False
        candidates: list[int] = []
        for let_go, strategy in zip(self.let_go, self.strategies, strict=True):
            actions = strategy.checkpointing(epoch)
            if not actions:
                let_go.add(epoch)
            for action in actions:
                if isinstance(action, Save):
                    save = True
                else:
                    let_go.add(action.epoch)
                    candidates.append(action.epoch)
        result: list[Action] = [Save()] if save else []
        for candidate in candidates:
            if all(candidate in let_go for let_go in self.let_go):
                result.append(Delete(candidate))
                for let_go in self.let_go:
                    let_go.discard(candidate)
        return result
