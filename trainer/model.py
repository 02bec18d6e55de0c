"""The model: a two-layer MLP, and burn's module loading (``Module::load_file``)."""

from __future__ import annotations

from pathlib import Path

import torch
from torch import nn

from trainer import burn
from trainer.config import TrainConfig
from trainer.errors import expect
from trainer.record import apply_module_record, read_record


class MLP(nn.Module):
    def __init__(self, input_dim: int, hidden_dim: int, num_classes: int, extra_layer=False):
        super().__init__()
        self.hidden = nn.Linear(input_dim, hidden_dim)
        # Declared between the two: its record field comes before `output`, as in a burn
        # module struct that gained a layer.
        self.extra = nn.Linear(hidden_dim, hidden_dim) if extra_layer else None
        self.output = nn.Linear(hidden_dim, num_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = torch.relu(self.hidden(x))
        if self.extra is not None:
            x = torch.relu(self.extra(x))
        return self.output(x)


def build_model(config: TrainConfig) -> MLP:
    torch.manual_seed(config.seed)  # the same initial weights on every run with this seed
    model = MLP(config.input_dim, config.hidden_dim, config.num_classes, config.extra_layer)
    return model.to(config.device)


def load_file(model: nn.Module, path: Path | str) -> nn.Module:
    """burn's ``Module::load_file``: read *and* apply under one ``expect`` (module/base.rs:332-354).

    So a file that cannot be read and a record that does not fit the module
    both panic ``Failed to load module from file: <RecordError's Debug>``.
    """
    expect(burn.MODULE["load_file"], _try_load_file, model, path)
    return model


def _try_load_file(model: nn.Module, path: Path | str) -> None:
    apply_module_record(model, read_record(path))
