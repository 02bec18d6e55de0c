"""Training configuration: one dataclass, one comment per default."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from typing import Any


@dataclass(frozen=True)
class TrainConfig:
    artifact_dir: str = "artifacts"  # checkpoints go to <artifact_dir>/checkpoint, as in burn
    device: str = "cpu"  # "cpu" or "cuda"; records are always saved from CPU copies
    seed: int = 0  # seeds the data, the initial weights and each epoch's shuffle
    epochs: int = 4  # a handful: enough for keep-last-2 to delete, small enough to take seconds
    # data: a seeded synthetic classification task (see data.py)
    input_dim: int = 16  # features per sample
    num_classes: int = 4  # output classes
    train_samples: int = 512  # 8 batches per training epoch
    valid_samples: int = 128  # 2 batches per validation epoch
    batch_size: int = 64  # small model, small batches: each epoch takes milliseconds
    # model: a two-layer MLP
    hidden_dim: int = 32  # change it and old checkpoints no longer fit (a scenario relies on it)
    extra_layer: bool = False  # a third layer: records saved without it lack its field
    # optimizer and schedule
    learning_rate: float = 1e-2  # AdamW on a tiny MLP converges quickly at this rate
    weight_decay: float = 1e-2  # AdamW's default
    lr_min: float = 1e-4  # cosine annealing floor, reached at the last iteration
    # checkpointing, mirroring burn-train (trainer/burn/setups.py: RELEASES, SETUPS)
    setup: str = "supervised"  # how burn's checkpointers are wired (and which release has it)
    keep_last: int = 2  # N for keep-last-N; burn's default is 2
    resume: int | None = None  # restore this epoch's checkpoint and continue at resume + 1
    init_from: str | None = None  # load the model's weights from this record file before training
    # Dispatch set-ups: the device launch restores a checkpoint on: "default" (burn 0.21,
    # `Default::default()`, never an autodiff device) or "training" (tracel-ai/burn#5084)
    restore_device: str = "default"

    def with_overrides(self, **overrides: Any) -> TrainConfig:
        return replace(self, **overrides)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def field_names(cls) -> set[str]:
        return {f.name for f in fields(cls)}
