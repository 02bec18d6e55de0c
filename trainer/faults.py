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

import ctypes
import errno
import os
import resource
import shutil
import signal
import stat
import subprocess
from dataclasses import dataclass
from pathlib import Path

NOBODY = 65534  # the conventional unprivileged uid/gid
_CLONE_NEWNS = 0x00020000
_MS_RDONLY, _MS_REMOUNT, _MS_BIND, _MS_REC, _MS_PRIVATE = 1, 32, 4096, 16384, 1 << 18
_PR_SET_PDEATHSIG = 1


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


# -- host mechanisms ----------------------------------------------------------

_libc = ctypes.CDLL(None, use_errno=True)


def _check(result: int, what: str) -> None:
    if result != 0:
        code = ctypes.get_errno()
        raise OSError(code, f"{what}: {os.strerror(code)}")


def _mount(source: str | None, target: Path, fstype: str | None, flags: int, data: str | None):
    enc = lambda s: None if s is None else s.encode()  # noqa: E731
    _check(
        _libc.mount(enc(source), str(target).encode(), enc(fstype), flags, enc(data)),
        f"mount {target}",
    )


def enter_private_mount_namespace() -> None:
    """Give this process its own mounts, invisible to the host and gone when it exits."""
    _check(_libc.unshare(_CLONE_NEWNS), "unshare(CLONE_NEWNS)")
    # Without this, mounts would propagate back to the host's shared mounts.
    _mount(None, Path("/"), None, _MS_REC | _MS_PRIVATE, None)


def set_parent_death_signal(sig: int = signal.SIGKILL) -> None:
    """Die with the parent (Linux ``PR_SET_PDEATHSIG``); credential changes clear it."""
    _libc.prctl(_PR_SET_PDEATHSIG, sig, 0, 0, 0)


CAP_SETUID, CAP_LINUX_IMMUTABLE, CAP_SYS_ADMIN = 7, 9, 21


def has_capability(bit: int) -> bool:
    """Whether this process holds a capability (being uid 0 is not enough in a container)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("CapEff:"):
            return bool(int(line.split()[1], 16) >> bit & 1)
    return False


def probe_mount_namespace() -> str | None:
    """Whether this process may create a private mount namespace and mount in it."""
    if not has_capability(CAP_SYS_ADMIN):
        return "private mount namespaces need root with CAP_SYS_ADMIN"
    if not Path("/proc/self/ns/mnt").exists():
        return "kernel without mount namespaces"
    return None


def probe_chattr(directory: Path) -> str | None:
    """Whether ``chattr +i`` works in ``directory`` (needs root and a filesystem with it)."""
    if not has_capability(CAP_LINUX_IMMUTABLE):
        return "chattr +i needs root with CAP_LINUX_IMMUTABLE"
    if shutil.which("chattr") is None:
        return "chattr is not installed"
    probe = directory / ".chattr-probe"
    probe.write_bytes(b"")
    try:
        if subprocess.run(["chattr", "+i", str(probe)], capture_output=True).returncode != 0:
            return f"chattr +i is not supported on the filesystem of {directory}"
        subprocess.run(["chattr", "-i", str(probe)], check=True, capture_output=True)
        return None
    finally:
        probe.unlink(missing_ok=True)


def set_immutable(path: Path, immutable: bool) -> None:
    subprocess.run(
        ["chattr", "+i" if immutable else "-i", str(path)], check=True, capture_output=True
    )


def clear_immutable_tree(root: Path) -> None:
    """Undo ``chattr +i`` below ``root`` so the tree can be removed (best effort)."""
    if shutil.which("chattr") and root.exists():
        subprocess.run(["chattr", "-R", "-f", "-i", str(root)], capture_output=True)


def drop_privileges(uid: int = NOBODY, gid: int = NOBODY) -> None:
    """Become an unprivileged user for the rest of the process (no way back)."""
    os.setgroups([])
    os.setresgid(gid, gid, gid)
    os.setresuid(uid, uid, uid)
    set_parent_death_signal()  # setresuid cleared it


def unreachable_ancestor(path: Path) -> Path | None:
    """The first folder above ``path`` that other users cannot pass through, if any."""
    for parent in path.resolve().parents:
        if not parent.stat().st_mode & stat.S_IXOTH:
            return parent
    return None


def make_traversable(ws: Workspace) -> None:
    # The runner's temp dir is 0700 root; another uid must be able to reach the
    # checkpoint directory for the permission to depend on that directory alone.
    for path in (ws.root, ws.artifact_dir):
        path.mkdir(parents=True, exist_ok=True)
        path.chmod(0o755)


# -- the faults ---------------------------------------------------------------


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

    def strike_fixed(self, ws: Workspace, epoch: int) -> None:
        """The strike followed by the documented fix (a fixed variant's step)."""
        self.strike(ws, epoch)
        self.remedy(ws, epoch)

    def cleanup(self, ws: Workspace) -> None:
        pass


class DiskFull(Fault):
    """The checkpoint volume fills up: a tiny tmpfs, filled by a balloon file at the strike."""

    kind, errno = "disk-full", errno.ENOSPC
    description = "tmpfs of 1 MiB in a private mount namespace, filled to the last byte"

    def probe(self, ws):
        return probe_mount_namespace()

    def prepare(self, ws):
        ws.artifact_dir.mkdir(parents=True, exist_ok=True)
        enter_private_mount_namespace()
        _mount("tmpfs", ws.artifact_dir, "tmpfs", 0, "size=1m,mode=0755")

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


class ReadOnly(Fault):
    """The checkpoint volume is remounted read-only (a bind mount, privately)."""

    kind, errno = "read-only", errno.EROFS
    description = "read-only bind remount of the artifact directory in a private mount namespace"

    def probe(self, ws):
        return probe_mount_namespace()

    def prepare(self, ws):
        ws.artifact_dir.mkdir(parents=True, exist_ok=True)
        enter_private_mount_namespace()
        _mount(str(ws.artifact_dir), ws.artifact_dir, None, _MS_BIND, None)

    def strike(self, ws, epoch):
        _mount(None, ws.artifact_dir, None, _MS_BIND | _MS_REMOUNT | _MS_RDONLY, None)

    def remedy(self, ws, epoch):
        _mount(None, ws.artifact_dir, None, _MS_BIND | _MS_REMOUNT, None)


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


class DirectoryRemoved(Fault):
    """Something (a cleanup job) removes the checkpoint directory between epochs."""

    kind, errno = "directory-removed", errno.ENOENT
    description = "the checkpoint directory is removed before the epoch's checkpointing"

    def strike(self, ws, epoch):
        shutil.rmtree(ws.checkpoint_dir)

    def remedy(self, ws, epoch):
        ws.checkpoint_dir.mkdir()


class FileSizeLimit(Fault):
    """``RLIMIT_FSIZE`` below the record size: the write stops at the limit with EFBIG."""

    kind, errno = "file-size-limit", errno.EFBIG
    description = "RLIMIT_FSIZE lowered to 1 KiB (Python ignores SIGXFSZ, so write returns EFBIG)"
    LIMIT = 1024

    def probe(self, ws):
        if signal.getsignal(signal.SIGXFSZ) != signal.SIG_IGN:
            return "SIGXFSZ is not ignored: exceeding the limit would kill the process"
        return None

    def strike(self, ws, epoch):
        _, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
        resource.setrlimit(resource.RLIMIT_FSIZE, (self.LIMIT, hard))

    def remedy(self, ws, epoch):
        _, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
        resource.setrlimit(resource.RLIMIT_FSIZE, (hard, hard))


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


class _InitFileFault(Fault):
    """Produces the weights file a run initialises its model from."""

    errno = None

    @staticmethod
    def _state(hidden_dim: int | None = None) -> dict:
        # Imported here: faults.py itself stays free of torch for the runner.
        from trainer.config import TrainConfig
        from trainer.model import build_model

        config = TrainConfig(seed=1)
        if hidden_dim is not None:
            config = config.with_overrides(hidden_dim=hidden_dim)
        return build_model(config).state_dict()

    def remedy(self, ws, epoch):
        from trainer.record import write_record

        write_record(ws.init_file, self._state())  # weights in the record format


class ForeignFile(_InitFileFault):
    """The weights file is a ``torch.save`` zip archive, not a record."""

    kind = "foreign-file"
    description = "the weights file is written by torch.save (a zip archive)"

    def strike(self, ws, epoch):
        import torch

        torch.save(self._state(), ws.init_file)


class ShortFile(_InitFileFault):
    """The weights file stops inside the header (a failed download)."""

    kind = "short-file"
    description = "the weights file holds only the first 6 bytes of a record"

    def strike(self, ws, epoch):
        from trainer.record import encode

        ws.init_file.write_bytes(encode(self._state())[:6])


class OtherArchitecture(_InitFileFault):
    """The weights file is a valid record of a wider model."""

    kind = "other-architecture"
    description = "the weights file is a record of the MLP with hidden_dim 64"

    def strike(self, ws, epoch):
        from trainer.record import write_record

        write_record(ws.init_file, self._state(hidden_dim=64))


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
    )
}


def make_fault(kind: str, target: str = "model") -> Fault:
    return FAULTS[kind](target)
