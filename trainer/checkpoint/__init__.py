"""burn-train's checkpointing: file and async checkpointers, and the strategies that drive them."""

from trainer.checkpoint.asynchronous import AsyncCheckpointer, Interrupter
from trainer.checkpoint.file import FileCheckpointer
from trainer.checkpoint.strategies import (
    ComposedStrategy,
    Delete,
    KeepLastStrategy,
    MetricStrategy,
    Save,
)

__all__ = [
    "AsyncCheckpointer",
    "ComposedStrategy",
    "Delete",
    "FileCheckpointer",
    "Interrupter",
    "KeepLastStrategy",
    "MetricStrategy",
    "Save",
]
