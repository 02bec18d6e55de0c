"""burn's cosine annealing learning-rate schedule, as a PyTorch scheduler."""

from __future__ import annotations

import math

import torch

USIZE_MAX = (1 << 64) - 1


class CosineAnnealingLr(torch.optim.lr_scheduler.LRScheduler):
    """burn's ``CosineAnnealingLrScheduler``: each step's rate in closed form from the
    iteration alone (lr_scheduler/cosine.rs:88-99 at main, 76-87 at v0.19.1).

    PyTorch's ``CosineAnnealingLR`` derives each rate from the last one, so its state is
    more than burn's record holds; this one's state is burn's ``current_iter``, which is
    ``last_epoch - 1``: PyTorch steps once when it builds the scheduler, burn counts from
    ``usize::MAX`` and wraps to 0 on the first step. v0.19.1 wraps past ``num_iters`` back
    to 0; the trainer never steps that far.
    """

    def __init__(self, optimizer: torch.optim.Optimizer, num_iters: int, min_lr: float):
        self.num_iters = num_iters
        self.min_lr = min_lr
        super().__init__(optimizer)

    def get_lr(self) -> list[float]:
        progress = self.last_epoch / self.num_iters * math.pi
        return [
            self.min_lr + 0.5 * (max_lr - self.min_lr) * (1.0 + math.cos(progress))
            for max_lr in self.base_lrs
        ]

    @property
    def current_iter(self) -> int:
        return (self.last_epoch - 1) & USIZE_MAX

    def restore(self, current_iter: int) -> None:
        """Take burn's ``current_iter`` and set the optimizer's rate as the schedule had it."""
        self.last_epoch = (current_iter + 1) & USIZE_MAX
        self._step_count = self.last_epoch + 1
        rates = self.get_lr()
        for group, rate in zip(self.optimizer.param_groups, rates, strict=True):
            group["lr"] = rate
        self._last_lr = rates
