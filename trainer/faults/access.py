"""Access is refused: an unprivileged user, a file only root reads, an immutable file."""

from __future__ import annotations

import errno
import os

from trainer.faults.base import Fault, Workspace
from trainer.faults.host import (
    CAP_SETUID,
    NOBODY,
    clear_immutable_tree,
    drop_privileges,
    has_capability,
    probe_chattr,
    set_immutable,
    unreachable_ancestor,
)


def make_traversable(ws: Workspace) -> None:
    # The runner's temp dir is 0700 root; another uid must be able to reach the
    # checkpoint directory for the permission to depend on that directory alone.
    for path in (ws.root, ws.artifact_dir):
        path.mkdir(parents=True, exist_ok=True)
        path.chmod(0o755)


class PermissionDenied(Fault):
    """Training continues as an unprivileged user in a directory it does not own."""

    kind, errno = "permission-denied", errno.EACCES
    description = "the process drops to uid 65534; the checkpoint directory stays root's, 0755"

    def probe(self, ws):
        if not has_capability(CAP_SETUID):
            return "dropping to another uid needs root with CAP_SETUID"
        blocked = unreachable_ancestor(ws.root)
        if blocked is not None:
            # Any EACCES would then come from that folder, not from the fault.
            return f"uid {NOBODY} cannot reach the run directory: {blocked} is closed to others"
        return None

    def prepare(self, ws):
        make_traversable(ws)

    def strike(self, ws, epoch):
        drop_privileges()

    def remedy(self, ws, epoch):
        os.chown(ws.checkpoint_dir, NOBODY, NOBODY)  # the training user owns its directory

    def strike_fixed(self, ws, epoch):
        # Once the uid is dropped nothing can be chowned, so the fix comes first.
        self.remedy(ws, epoch)
        self.strike(ws, epoch)


class UnreadableFile(PermissionDenied):
    """The epoch's file is root's and 0600, read by an unprivileged user."""

    kind = "unreadable-file"
    description = "the epoch's file is chmod 0600 (root) and the resume runs as uid 65534"

    def strike(self, ws, epoch):
        ws.checkpoint_file(self.target, epoch).chmod(0o600)
        drop_privileges()

    def remedy(self, ws, epoch):
        # The training user owns its checkpoints: it reads them and writes new ones.
        for path in [ws.checkpoint_dir, *ws.checkpoint_dir.iterdir()]:
            os.chown(path, NOBODY, NOBODY)

    def strike_fixed(self, ws, epoch):
        ws.checkpoint_file(self.target, epoch).chmod(0o600)
        self.remedy(ws, epoch)  # before the uid drop: afterwards nothing can be chowned
        drop_privileges()


class Immutable(Fault):
    """An old checkpoint the strategy will delete this epoch is ``chattr +i``."""

    kind, errno = "immutable", errno.EPERM
    description = "chattr +i on the file this epoch's Delete removes (epoch - keep_last)"
    keep_last = 2

    def _victim(self, ws, epoch):
        return ws.checkpoint_file(self.target, epoch - self.keep_last)

    def probe(self, ws):
        ws.root.mkdir(parents=True, exist_ok=True)
        return probe_chattr(ws.root)

    def strike(self, ws, epoch):
        set_immutable(self._victim(ws, epoch), True)

    def remedy(self, ws, epoch):
        set_immutable(self._victim(ws, epoch), False)

    def cleanup(self, ws):
        clear_immutable_tree(ws.root)
