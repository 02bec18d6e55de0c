"""A seeded synthetic classification task: a fixed random teacher labels Gaussian inputs."""

from __future__ import annotations

import torch

from trainer.config import TrainConfig


def make_dataset(config: TrainConfig) -> tuple[torch.utils.data.TensorDataset, ...]:
    """Train and validation sets, identical for a given seed on every machine."""
    generator = torch.Generator().manual_seed(config.seed)
    teacher = torch.randn(config.input_dim, config.num_classes, generator=generator)
    total = config.train_samples + config.valid_samples
    inputs = torch.randn(total, config.input_dim, generator=generator)
    labels = (inputs @ teacher).argmax(dim=1)
    train = torch.utils.data.TensorDataset(
        inputs[: config.train_samples], labels[: config.train_samples]
    )
    valid = torch.utils.data.TensorDataset(
        inputs[config.train_samples :], labels[config.train_samples :]
    )
    return train, valid


def batches(dataset, batch_size: int, *, shuffle_seed: int | None = None):
    """Yield (inputs, labels) batches; the shuffle depends only on ``shuffle_seed``.

    Seeding each epoch's shuffle from (seed, epoch) rather than from a running
    generator means a resumed run sees exactly the batches an uninterrupted run
    would, without checkpointing any RNG state.
    """
    inputs, labels = dataset.tensors
    order = torch.arange(len(inputs))
    if shuffle_seed is not None:
        order = torch.randperm(len(inputs), generator=torch.Generator().manual_seed(shuffle_seed))
    for start in range(0, len(order), batch_size):
        index = order[start : start + batch_size]
        yield inputs[index], labels[index]
