"""The registry of reproduction scenarios: one real failure per entry, and its fix.

Each scenario names the burn message it proves, the learner's set-up, the
fault and the epoch it strikes, the full message it must produce (a regex,
matched against the whole text) and the errno, and the documented fix that
its *fixed* variant applies.  Names are stable slugs: the knowledge base
stores them.

Phases:

- ``train``: the fault strikes just before epoch ``epoch``'s checkpointing;
- ``resume``: a clean run stops after epoch 3 of 4, the fault strikes the
  checkpoint files of ``epoch``, and a new run resumes from ``resume``;
- ``init``: the fault produces the weights file the model is initialised from.

This module imports nothing heavy, so ``python -m trainer scenarios`` is fast.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from typing import Any

from trainer.faults import FAULTS

MESSAGES = (
    "Can save model checkpoint.",
    "Can save optimizer checkpoint.",
    "Can save learning rate scheduler checkpoint.",
    "Can delete model checkpoint.",
    "Can delete optimizer checkpoint.",
    "Can delete learning rate scheduler checkpoint.",
    "Can load model checkpoint.",
    "Can load optimizer checkpoint.",
    "Can load learning rate scheduler checkpoint.",
    "Failed to load module from file",
    "Failed to load record",
)
_LEARNER_MESSAGE = {  # (action, checkpointer) -> burn's text
    (action, name): f"Can {action} {label} checkpoint."
    for action in ("save", "delete", "load")
    for name, label in (
        ("model", "model"),
        ("optim", "optimizer"),
        ("scheduler", "learning rate scheduler"),
    )
}
STOP_AFTER = 3  # a resume scenario's first run stops after this epoch of 4


@dataclass(frozen=True)
class Scenario:
    name: str  # stable slug
    message: str  # the burn message this scenario proves (one of MESSAGES)
    description: str
    phase: str  # "train", "resume" or "init"
    checkpointer: str  # "sync" (plain file checkpointers) or "async" (burn's worker thread)
    interrupter: bool
    strategy: str  # "composed" (burn's default) or "keep-last"
    fault: str  # a kind from trainer.faults.FAULTS
    target: str  # the checkpointer whose file the fault hits
    epoch: int  # the epoch the fault strikes
    expected_pattern: str  # regex for the whole observed message
    expected_errno: int | None
    fix: str  # the documented fix, as the fixed variant applies it
    resume: int | None = None  # resume phase: the epoch the failing run resumes from
    fixed_overrides: dict[str, Any] = field(default_factory=dict)  # config in the fixed variant
    remedy: bool = True  # whether the fixed variant applies the fault's remedy

    @property
    def setup(self) -> dict[str, Any]:
        return {
            "checkpointer": self.checkpointer,
            "interrupter": self.interrupter,
            "strategy": self.strategy,
            "phase": self.phase,
        }

    def to_dict(self) -> dict[str, Any]:
        """The registry entry: the set-up grouped, the rest as declared."""
        data = asdict(self)
        for key in self.setup:
            del data[key]
        data["setup"] = self.setup
        data["fault_description"] = FAULTS[self.fault].description
        return data

    def matches(self, message: str, errno: int | None) -> bool:
        return re.fullmatch(self.expected_pattern, message or "") is not None and (
            errno == self.expected_errno
        )


# -- the full texts, as regexes ---------------------------------------------


def _os(code: int, text: str) -> str:
    return re.escape(f"{text} (os error {code})")


def _save_error(name: str, epoch: int, verb: str, code: int, text: str) -> str:
    """``Can save … checkpoint.: Record(Io("I/O error: cannot <verb> '<path>': <os error>"))``."""
    prefix = re.escape(f'{_LEARNER_MESSAGE["save", name]}: Record(Io("I/O error: {verb} ')
    path = rf"'/.*/checkpoint/{name}-{epoch}\.bpk'"
    return rf'{prefix}{path}: {_os(code, text)}"\)\)'


def _worker_then_closed_channel(name: str) -> str:
    return re.escape(f'{_LEARNER_MESSAGE["delete", name]}: Unknown("sending on a closed channel")')


def _load_error(name: str, inner: str) -> str:
    return re.escape(f'{_LEARNER_MESSAGE["load", name]}: Record(Io("') + inner + re.escape('"))')


ENOSPC, EROFS, EACCES, ENOENT, EFBIG, EPERM, EISDIR = 28, 30, 13, 2, 27, 1, 21
NO_SPACE = "No space left on device"
TRUNCATED = r"File truncated: expected at least \d+ bytes, got \d+ bytes"

SCENARIOS: tuple[Scenario, ...] = (
    # -- save: only a learner with synchronous file checkpointers can report these
    Scenario(
        name="sync-disk-full-model-save",
        message="Can save model checkpoint.",
        description="The checkpoint volume fills up; the synchronous model save fails mid-write.",
        phase="train",
        checkpointer="sync",
        interrupter=False,
        strategy="composed",
        fault="disk-full",
        target="model",
        epoch=2,
        expected_pattern=_save_error("model", 2, "cannot write to", ENOSPC, NO_SPACE),
        expected_errno=ENOSPC,
        fix="Free space on the checkpoint volume "
        "(size it for keep-last-N checkpoints plus headroom).",
    ),
    Scenario(
        name="sync-read-only-model-save",
        message="Can save model checkpoint.",
        description="The checkpoint volume is remounted read-only during training.",
        phase="train",
        checkpointer="sync",
        interrupter=False,
        strategy="composed",
        fault="read-only",
        target="model",
        epoch=2,
        expected_pattern=_save_error("model", 2, "cannot create", EROFS, "Read-only file system"),
        expected_errno=EROFS,
        fix="Remount the checkpoint volume read-write "
        "(or point the artifact directory at a writable one).",
    ),
    Scenario(
        name="sync-permission-denied-model-save",
        message="Can save model checkpoint.",
        description="Training runs as a user that cannot write into the checkpoint directory.",
        phase="train",
        checkpointer="sync",
        interrupter=False,
        strategy="composed",
        fault="permission-denied",
        target="model",
        epoch=2,
        expected_pattern=_save_error("model", 2, "cannot create", EACCES, "Permission denied"),
        expected_errno=EACCES,
        fix="Give the training user ownership of the checkpoint directory (chown).",
    ),
    Scenario(
        name="sync-directory-removed-model-save",
        message="Can save model checkpoint.",
        description="A cleanup job removes the checkpoint directory between epochs; "
        "the writer does not create parent directories.",
        phase="train",
        checkpointer="sync",
        interrupter=False,
        strategy="composed",
        fault="directory-removed",
        target="model",
        epoch=2,
        expected_pattern=_save_error(
            "model", 2, "cannot create", ENOENT, "No such file or directory"
        ),
        expected_errno=ENOENT,
        fix="Recreate the checkpoint directory (and keep cleanup jobs away from it).",
    ),
    Scenario(
        name="sync-file-size-limit-model-save",
        message="Can save model checkpoint.",
        description="The process's file size limit (ulimit -f) is below the record size.",
        phase="train",
        checkpointer="sync",
        interrupter=False,
        strategy="composed",
        fault="file-size-limit",
        target="model",
        epoch=2,
        expected_pattern=_save_error("model", 2, "cannot write to", EFBIG, "File too large"),
        expected_errno=EFBIG,
        fix="Raise the file size limit (ulimit -f unlimited) for the training process.",
    ),
    Scenario(
        name="sync-dev-full-optimizer-save",
        message="Can save optimizer checkpoint.",
        description="The optimizer's checkpoint file is a link to a full device; the model saves.",
        phase="train",
        checkpointer="sync",
        interrupter=False,
        strategy="composed",
        fault="dev-full",
        target="optim",
        epoch=2,
        expected_pattern=_save_error("optim", 2, "cannot write to", ENOSPC, NO_SPACE),
        expected_errno=ENOSPC,
        fix="Remove the stray link so the optimizer record lands on the checkpoint volume.",
    ),
    Scenario(
        name="sync-directory-at-scheduler-path",
        message="Can save learning rate scheduler checkpoint.",
        description="A directory sits where the scheduler's checkpoint file should be written.",
        phase="train",
        checkpointer="sync",
        interrupter=False,
        strategy="composed",
        fault="directory-at-path",
        target="scheduler",
        epoch=2,
        expected_pattern=_save_error("scheduler", 2, "cannot create", EISDIR, "Is a directory"),
        expected_errno=EISDIR,
        fix="Remove the directory at the checkpoint file's path.",
    ),
    # -- delete: with burn's async checkpointer a failed save kills the worker,
    #    and the Delete of the same round finds the channel closed (#3990)
    Scenario(
        name="async-disk-full",
        message="Can delete model checkpoint.",
        description="Disk full with burn's default async checkpointer and no interrupter: the "
        "worker panics 'Error when saving the state: …', then the learner's delete finds "
        "the worker gone.",
        phase="train",
        checkpointer="async",
        interrupter=False,
        strategy="composed",
        fault="disk-full",
        target="model",
        epoch=3,
        expected_pattern=_worker_then_closed_channel("model"),
        expected_errno=ENOSPC,
        fix="Free space on the checkpoint volume; the real error is the worker's "
        "'Error when saving the state' printed just before.",
    ),
    Scenario(
        name="async-read-only-volume",
        message="Can delete model checkpoint.",
        description="The checkpoint volume turns read-only; the async worker's save fails first.",
        phase="train",
        checkpointer="async",
        interrupter=False,
        strategy="composed",
        fault="read-only",
        target="model",
        epoch=3,
        expected_pattern=_worker_then_closed_channel("model"),
        expected_errno=EROFS,
        fix="Remount the checkpoint volume read-write.",
    ),
    Scenario(
        name="async-directory-removed",
        message="Can delete model checkpoint.",
        description="The checkpoint directory is removed mid-run; the async worker's save fails.",
        phase="train",
        checkpointer="async",
        interrupter=False,
        strategy="composed",
        fault="directory-removed",
        target="model",
        epoch=3,
        expected_pattern=_worker_then_closed_channel("model"),
        expected_errno=ENOENT,
        fix="Recreate the checkpoint directory (and keep cleanup jobs away from it).",
    ),
    Scenario(
        name="async-dev-full-optimizer",
        message="Can delete optimizer checkpoint.",
        description="Only the optimizer's file fails to write; its worker dies, and the "
        "optimizer delete of the same round finds the channel closed.",
        phase="train",
        checkpointer="async",
        interrupter=False,
        strategy="composed",
        fault="dev-full",
        target="optim",
        epoch=3,
        expected_pattern=_worker_then_closed_channel("optim"),
        expected_errno=ENOSPC,
        fix="Remove the stray link so the optimizer record lands on the checkpoint volume.",
    ),
    Scenario(
        name="async-directory-at-scheduler-path",
        message="Can delete learning rate scheduler checkpoint.",
        description="A directory at the scheduler's file path kills the scheduler's worker.",
        phase="train",
        checkpointer="async",
        interrupter=False,
        strategy="composed",
        fault="directory-at-path",
        target="scheduler",
        epoch=3,
        expected_pattern=_worker_then_closed_channel("scheduler"),
        expected_errno=EISDIR,
        fix="Remove the directory at the checkpoint file's path.",
    ),
    Scenario(
        name="sync-immutable-old-model-checkpoint",
        message="Can delete model checkpoint.",
        description="The old checkpoint the strategy deletes (epoch 1 at epoch 3) is immutable.",
        phase="train",
        checkpointer="sync",
        interrupter=False,
        strategy="composed",
        fault="immutable",
        target="model",
        epoch=3,
        expected_pattern=re.escape(
            "Can delete model checkpoint.: Io(Os { code: 1, kind: PermissionDenied, "
            'message: "Operation not permitted" })'
        ),
        expected_errno=EPERM,
        fix="Clear the immutable attribute (chattr -i) set by a backup or retention tool.",
    ),
    Scenario(
        name="sync-immutable-old-optimizer-checkpoint",
        message="Can delete optimizer checkpoint.",
        description="The old optimizer checkpoint the strategy deletes is immutable.",
        phase="train",
        checkpointer="sync",
        interrupter=False,
        strategy="composed",
        fault="immutable",
        target="optim",
        epoch=3,
        expected_pattern=re.escape(
            "Can delete optimizer checkpoint.: Io(Os { code: 1, kind: PermissionDenied, "
            'message: "Operation not permitted" })'
        ),
        expected_errno=EPERM,
        fix="Clear the immutable attribute (chattr -i) set by a backup or retention tool.",
    ),
    # -- load: resuming from checkpoints that are missing, unreadable or damaged
    Scenario(
        name="resume-missing-epoch",
        message="Can load model checkpoint.",
        description="Resuming from epoch 1, which keep-last-2 already deleted.",
        phase="resume",
        checkpointer="async",
        interrupter=False,
        strategy="composed",
        fault="none",
        target="model",
        epoch=1,
        resume=1,
        expected_pattern=_load_error("model", _os(ENOENT, "I/O error: No such file or directory")),
        expected_errno=ENOENT,
        fix="Resume from the latest kept epoch (3).",
        fixed_overrides={"resume": 3},
    ),
    Scenario(
        name="resume-unreadable-model-checkpoint",
        message="Can load model checkpoint.",
        description="The checkpoint was written by root with mode 0600; the resume runs as "
        "another user.",
        phase="resume",
        checkpointer="async",
        interrupter=False,
        strategy="composed",
        fault="unreadable-file",
        target="model",
        epoch=3,
        resume=3,
        expected_pattern=_load_error("model", _os(EACCES, "I/O error: Permission denied")),
        expected_errno=EACCES,
        fix="Give the training user ownership of the checkpoint directory and files (chown -R).",
    ),
    Scenario(
        name="resume-truncated-model-checkpoint",
        message="Can load model checkpoint.",
        description="The model checkpoint was cut short (an interrupted copy or write).",
        phase="resume",
        checkpointer="async",
        interrupter=False,
        strategy="composed",
        fault="truncated",
        target="model",
        epoch=3,
        resume=3,
        expected_pattern=_load_error("model", TRUNCATED),
        expected_errno=None,
        fix="Resume from the previous intact epoch (2); "
        "burn has no checksum to catch subtler damage.",
        fixed_overrides={"resume": 2},
    ),
    Scenario(
        name="resume-missing-optimizer-file",
        message="Can load optimizer checkpoint.",
        description="Only the optimizer's file of the epoch is gone; the model loads first.",
        phase="resume",
        checkpointer="async",
        interrupter=False,
        strategy="composed",
        fault="file-removed",
        target="optim",
        epoch=3,
        resume=3,
        expected_pattern=_load_error("optim", _os(ENOENT, "I/O error: No such file or directory")),
        expected_errno=ENOENT,
        fix="Resume from the latest epoch whose three files are all present (2).",
        fixed_overrides={"resume": 2},
    ),
    Scenario(
        name="resume-directory-at-scheduler-path",
        message="Can load learning rate scheduler checkpoint.",
        description="A directory replaced the scheduler's file of the epoch.",
        phase="resume",
        checkpointer="async",
        interrupter=False,
        strategy="composed",
        fault="directory-at-path",
        target="scheduler",
        epoch=3,
        resume=3,
        expected_pattern=_load_error("scheduler", _os(EISDIR, "I/O error: Is a directory")),
        expected_errno=EISDIR,
        fix="Remove the directory and resume from the latest complete epoch (2).",
        fixed_overrides={"resume": 2},
    ),
    # -- module loading: weights from a file that is not a fitting record
    Scenario(
        name="init-from-foreign-file",
        message="Failed to load module from file",
        description="The weights file is a torch.save() zip, not a record.",
        phase="init",
        checkpointer="async",
        interrupter=False,
        strategy="composed",
        fault="foreign-file",
        target="model",
        epoch=0,
        expected_pattern=re.escape('Failed to load module from file: Io("Invalid magic number")'),
        expected_errno=None,
        fix="Convert the weights to the record format before loading them.",
    ),
    Scenario(
        name="init-from-short-file",
        message="Failed to load module from file",
        description="The weights file is shorter than the record header (a failed download).",
        phase="init",
        checkpointer="async",
        interrupter=False,
        strategy="composed",
        fault="short-file",
        target="model",
        epoch=0,
        expected_pattern=re.escape(
            'Failed to load module from file: Io("I/O error: failed to fill whole buffer")'
        ),
        expected_errno=None,
        fix="Fetch the weights file again, completely.",
    ),
    Scenario(
        name="init-changed-architecture",
        message="Failed to load record",
        description="The weights were saved from a wider model (hidden_dim 64, now 32).",
        phase="init",
        checkpointer="async",
        interrupter=False,
        strategy="composed",
        fault="other-architecture",
        target="model",
        epoch=0,
        expected_pattern=re.escape('Failed to load record: Validation("')
        + r".*shape mismatch for 'hidden\.weight': expected \[32, 16\], got \[64, 16\].*"
        + re.escape('")'),
        expected_errno=None,
        fix="Build the model with the architecture the record was saved from (hidden_dim 64).",
        fixed_overrides={"hidden_dim": 64},
        remedy=False,
    ),
)

_BY_NAME = {scenario.name: scenario for scenario in SCENARIOS}


def get(name: str) -> Scenario:
    """The scenario called ``name``; ``KeyError`` lists the known names."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise KeyError(f"unknown scenario {name!r}; known: {', '.join(_BY_NAME)}") from None


def registry() -> list[dict[str, Any]]:
    """The registry as JSON-ready dicts, in a stable order."""
    return [scenario.to_dict() for scenario in SCENARIOS]
