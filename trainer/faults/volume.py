"""The volume refuses the write: full, read-only, a file that is /dev/full, a size limit."""

from __future__ import annotations

import errno
import resource
import signal

from trainer.faults.base import Fault, Workspace
from trainer.faults.host import (
    MS_BIND,
    MS_RDONLY,
    MS_REMOUNT,
    enter_private_mount_namespace,
    mount,
    probe_mount_namespace,
)


class _PrivateMount(Fault):
    """A fault that mounts over the artifact directory, in a private mount namespace."""

    def probe(self, ws):
        return probe_mount_namespace()

    def prepare(self, ws):
        ws.artifact_dir.mkdir(parents=True, exist_ok=True)
        enter_private_mount_namespace()
        self.mount_over(ws)

    def mount_over(self, ws: Workspace) -> None:
        raise NotImplementedError


class DiskFull(_PrivateMount):
    """The checkpoint volume fills up: a tiny tmpfs, filled by a balloon file at the strike."""

    kind, errno = "disk-full", errno.ENOSPC
    description = "tmpfs of 1 MiB in a private mount namespace, filled to the last byte"

    def mount_over(self, ws):
        mount("tmpfs", ws.artifact_dir, "tmpfs", 0, "size=1m,mode=0755")

    def strike(self, ws, epoch):
        block = b"\0" * 4096
        with open(ws.artifact_dir / "balloon", "wb", buffering=0) as balloon:
            try:
                while True:
                    balloon.write(block)
            except OSError as err:
                if err.errno != errno.ENOSPC:
                    raise

    def remedy(self, ws, epoch):
        (ws.artifact_dir / "balloon").unlink()  # free space


class DevFull(Fault):
    """The epoch's file is a symlink to ``/dev/full``: opening works, every write is ENOSPC."""

    kind, errno = "dev-full", errno.ENOSPC
    description = "the epoch's checkpoint file is a symlink to /dev/full"

    def probe(self, ws):
        try:
            with open("/dev/full", "wb", buffering=0) as full:
                full.write(b"x")
        except OSError as err:
            return None if err.errno == errno.ENOSPC else f"/dev/full: {err}"
        return "/dev/full accepted a write"

    def strike(self, ws, epoch):
        ws.checkpoint_file(self.target, epoch).symlink_to("/dev/full")

    def remedy(self, ws, epoch):
        ws.checkpoint_file(self.target, epoch).unlink()


class ReadOnly(_PrivateMount):
    """The checkpoint volume is remounted read-only (a bind mount, privately)."""

    kind, errno = "read-only", errno.EROFS
    description = "read-only bind remount of the artifact directory in a private mount namespace"

    def mount_over(self, ws):
        mount(str(ws.artifact_dir), ws.artifact_dir, None, MS_BIND, None)

    def strike(self, ws, epoch):
        mount(None, ws.artifact_dir, None, MS_BIND | MS_REMOUNT | MS_RDONLY, None)

    def remedy(self, ws, epoch):
        mount(None, ws.artifact_dir, None, MS_BIND | MS_REMOUNT, None)


class FileSizeLimit(Fault):
    """``RLIMIT_FSIZE`` below the record size: the first write past it gets SIGXFSZ.

    A Rust program keeps SIGXFSZ's default action (its runtime ignores SIGPIPE only), so
    the signal ends the process before the write could return EFBIG: burn prints nothing.
    The scenario process restores that default (:mod:`trainer.child`); Python ignores it.
    """

    kind, errno = "file-size-limit", None
    description = (
        "RLIMIT_FSIZE lowered to 1 KiB; SIGXFSZ at its default action, as in a Rust program, "
        "so the first write past the limit kills the process"
    )
    LIMIT = 1024

    def probe(self, ws):
        if signal.getsignal(signal.SIGXFSZ) != signal.SIG_DFL:
            return "SIGXFSZ is not at its default action: the write would return EFBIG instead"
        return None

    def strike(self, ws, epoch):
        _, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
        resource.setrlimit(resource.RLIMIT_FSIZE, (self.LIMIT, hard))

    def remedy(self, ws, epoch):
        _, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
        resource.setrlimit(resource.RLIMIT_FSIZE, (hard, hard))
