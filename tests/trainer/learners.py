"""The learner's parts after a few batches, for the record layout tests."""

import torch

from trainer.config import TrainConfig
from trainer.learner import build_model, build_optimizer, train_step


def trained_learner(steps: int = 3, epochs: int = TrainConfig.epochs):
    """An MLP, its AdamW and cosine schedule after ``steps`` batches, as the learner builds them."""
    config = TrainConfig(seed=1, input_dim=4, hidden_dim=8, num_classes=3, epochs=epochs)
    model = build_model(config)
    optimizer, scheduler = build_optimizer(config, model)
    generator = torch.Generator().manual_seed(0)
    for _ in range(steps):
        inputs = torch.randn(5, 4, generator=generator)
        labels = torch.randint(0, 3, (5,), generator=generator)
        train_step(model, optimizer, scheduler, inputs, labels)
    return config, model, optimizer, scheduler
