"""Real OS faults, each with a probe of host support.

Nothing here mocks ``open`` or patches ``os``: every fault changes the real
system the trainer writes to -- a tiny tmpfs in a private mount namespace, a
read-only bind mount, ``RLIMIT_FSIZE``, an unprivileged uid, ``chattr +i``, a
symlink to ``/dev/full``, a directory removed between epochs -- so the error
reaches the trainer through the same system calls as in the wild.

A fault has four steps, all run inside the isolated scenario process:

- ``probe(ws)``: ``None`` when the host supports the mechanism, else the reason
  (the outcome is then ``unsupported``, never ``reproduced``);
- ``prepare(ws)``: before the learner exists (mounts, permissions);
- ``strike(ws, epoch)``: just before the faulty epoch's checkpointing, or
  before the resume or the weight loading it breaks;
- ``remedy(ws, epoch)``: the documented fix, applied right after the strike in
  a scenario's *fixed* variant.

Mount faults need a private mount namespace; it dies with the process, so no
mount outlives a crashed or killed run.
"""

from __future__ import annotations

from trainer.faults.access import Immutable, PermissionDenied, UnreadableFile
from trainer.faults.base import Fault, Workspace
from trainer.faults.files import DirectoryAtPath, DirectoryRemoved, FileRemoved, Truncated
from trainer.faults.volume import DevFull, DiskFull, FileSizeLimit, ReadOnly
from trainer.faults.weights import (
    BadMetadata,
    BurnpackFileGone,
    EnumBlock,
    ForeignFile,
    LegacyPickle,
    NestedCheckpoint,
    NewerVersion,
    OtherArchitecture,
    PrefixedKeys,
    PytorchFileAsSafetensors,
    RecordFileGone,
    RenamedLayer,
    ShortFile,
    TensorList,
    TruncatedDownload,
    WholeModule,
    WiderModel,
)

__all__ = ["FAULTS", "Fault", "Workspace", "make_fault"]

FAULTS: dict[str, type[Fault]] = {
    cls.kind: cls
    for cls in (
        Fault,
        DiskFull,
        DevFull,
        ReadOnly,
        PermissionDenied,
        UnreadableFile,
        DirectoryRemoved,
        FileSizeLimit,
        Immutable,
        DirectoryAtPath,
        FileRemoved,
        Truncated,
        ForeignFile,
        ShortFile,
        OtherArchitecture,
        NewerVersion,
        BadMetadata,
        WholeModule,
        TruncatedDownload,
        TensorList,
        PrefixedKeys,
        NestedCheckpoint,
        WiderModel,
        RenamedLayer,
        EnumBlock,
        LegacyPickle,
        RecordFileGone,
        PytorchFileAsSafetensors,
        BurnpackFileGone,
    )
}


def make_fault(kind: str, target: str = "model") -> Fault:
    return FAULTS[kind](target)
