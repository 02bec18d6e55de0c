"""Weight files as users write them, with the real ``torch.save`` and ``safetensors``.

Each writer takes a PyTorch module (the trainer's MLP, ``trainer.model``) and a path, and
writes what a user hands to burn: the ``state_dict`` (the documented way), the whole
module (``torch.save(model)``), the legacy non-zip format, a ``state_dict`` nested under a
key, with renamed keys, of a model with other shapes, in another dtype, or a safetensors
file.  Nothing here imports burn's mirror: the files stand on their own.
"""

from __future__ import annotations

from pathlib import Path

import torch
from torch import nn


def save_state_dict(model: nn.Module, path: Path | str) -> None:
    """``torch.save(model.state_dict(), path)``: what burn's PyTorch import reads."""
    torch.save(model.state_dict(), path)


def save_module(model: nn.Module, path: Path | str) -> None:
    """``torch.save(model, path)``: the whole module pickled, classes and all."""
    torch.save(model, path)


def save_legacy_state_dict(model: nn.Module, path: Path | str) -> None:
    """The ``state_dict`` in the format of PyTorch < 1.6 (sequential pickles, no zip)."""
    torch.save(model.state_dict(), path, _use_new_zipfile_serialization=False)


def save_legacy_module(model: nn.Module, path: Path | str) -> None:
    torch.save(model, path, _use_new_zipfile_serialization=False)


def save_checkpoint(model: nn.Module, path: Path | str, key: str = "model_state_dict") -> None:
    """A training checkpoint: the ``state_dict`` under ``key``, beside an epoch count."""
    torch.save({key: model.state_dict(), "epoch": 3}, path)


def save_renamed(model: nn.Module, path: Path | str, prefix: str = "model.") -> None:
    """The ``state_dict`` with every key under ``prefix``, as a wrapper module (or
    ``DataParallel``'s ``module.``) leaves it."""
    torch.save({prefix + key: value for key, value in model.state_dict().items()}, path)


def save_as_dtype(model: nn.Module, path: Path | str, dtype: torch.dtype) -> None:
    """The ``state_dict`` with every tensor converted to ``dtype`` (``model.half()``)."""
    torch.save({key: value.to(dtype) for key, value in model.state_dict().items()}, path)


def save_safetensors(model: nn.Module, path: Path | str) -> None:
    """``safetensors.torch.save_file(model.state_dict(), path)``."""
    from safetensors.torch import save_file

    save_file({key: value.contiguous() for key, value in model.state_dict().items()}, path)


def save_truncated_safetensors(model: nn.Module, path: Path | str, keep: int = 5) -> None:
    """A safetensors file cut after ``keep`` bytes (a download that stopped)."""
    save_safetensors(model, path)
    data = Path(path).read_bytes()
    Path(path).write_bytes(data[:keep])
