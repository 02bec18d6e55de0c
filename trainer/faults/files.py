"""The checkpoint files themselves change: removed, cut short, a directory in their place."""

from __future__ import annotations

import errno
import os
import shutil

from trainer.faults.base import Fault


class DirectoryRemoved(Fault):
    """Something (a cleanup job) removes the checkpoint directory between epochs."""

    kind, errno = "directory-removed", errno.ENOENT
    description = "the checkpoint directory is removed before the epoch's checkpointing"

    def strike(self, ws, epoch):
        shutil.rmtree(ws.checkpoint_dir)

    def remedy(self, ws, epoch):
        ws.checkpoint_dir.mkdir()


class DirectoryAtPath(Fault):
    """A directory sits where the epoch's file should be."""

    kind, errno = "directory-at-path", errno.EISDIR
    description = "a directory is created at the epoch's checkpoint file path"

    def strike(self, ws, epoch):
        path = ws.checkpoint_file(self.target, epoch)
        path.unlink(missing_ok=True)
        path.mkdir()

    def remedy(self, ws, epoch):
        ws.checkpoint_file(self.target, epoch).rmdir()


class FileRemoved(Fault):
    """Only this checkpointer's file of the epoch is removed before the resume."""

    kind, errno = "file-removed", errno.ENOENT
    description = "the epoch's file of one checkpointer is removed before the resume"

    def strike(self, ws, epoch):
        ws.checkpoint_file(self.target, epoch).unlink()


class Truncated(Fault):
    """The epoch's file is cut to half its size (an interrupted copy or write)."""

    kind, errno = "truncated", None
    description = "the epoch's file is truncated to half its size"

    def strike(self, ws, epoch):
        path = ws.checkpoint_file(self.target, epoch)
        os.truncate(path, path.stat().st_size // 2)
