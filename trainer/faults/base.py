"""A fault's steps, and the workspace they act on."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Workspace:
    """The scenario's private directory tree."""

    root: Path
    extension: str = "bpk"  # the checkpoint files' extension in the release mirrored

    @property
    def artifact_dir(self) -> Path:
        return self.root / "artifacts"

    @property
    def checkpoint_dir(self) -> Path:
        return self.artifact_dir / "checkpoint"

    @property
    def init_file(self) -> Path:
        return self.root / "pretrained.bpk"

    def checkpoint_file(self, name: str, epoch: int) -> Path:
        return self.checkpoint_dir / f"{name}-{epoch}.{self.extension}"


class Fault:
    """A fault with no effect; subclasses override the steps they need."""

    kind = "none"
    errno: int | None = None
    description = "no fault"

    def __init__(self, target: str = "model"):
        self.target = target  # the checkpointer whose file is hit: model, optim, scheduler

    def probe(self, ws: Workspace) -> str | None:
        return None

    def prepare(self, ws: Workspace) -> None:
        pass

    def strike(self, ws: Workspace, epoch: int) -> None:
        pass

    def remedy(self, ws: Workspace, epoch: int) -> None:
        pass

    def strike_learner(self, learner, epoch: int, *, fixed: bool) -> None:
        """A fault inside the training process rather than on its files (the model's
        record), struck with ``strike``; ``fixed``: the fixed variant's run."""

    def strike_fixed(self, ws: Workspace, epoch: int) -> None:
        """The strike followed by the documented fix (a fixed variant's step)."""
        self.strike(ws, epoch)
        self.remedy(ws, epoch)

    def cleanup(self, ws: Workspace) -> None:
        pass
