"""The host mechanisms the faults use, and the probes of whether this host has them."""

from __future__ import annotations

import ctypes
import os
import shutil
import signal
import stat
import subprocess
from pathlib import Path

NOBODY = 65534  # the conventional unprivileged uid/gid
_CLONE_NEWNS = 0x00020000
MS_RDONLY, MS_REMOUNT, MS_BIND, _MS_REC, _MS_PRIVATE = 1, 32, 4096, 16384, 1 << 18
_PR_SET_PDEATHSIG = 1

_libc = ctypes.CDLL(None, use_errno=True)


def _check(result: int, what: str) -> None:
    if result != 0:
        code = ctypes.get_errno()
        raise OSError(code, f"{what}: {os.strerror(code)}")


def mount(source: str | None, target: Path, fstype: str | None, flags: int, data: str | None):
    enc = lambda s: None if s is None else s.encode()  # noqa: E731
    _check(
        _libc.mount(enc(source), str(target).encode(), enc(fstype), flags, enc(data)),
        f"mount {target}",
    )


def enter_private_mount_namespace() -> None:
    """Give this process its own mounts, invisible to the host and gone when it exits."""
    _check(_libc.unshare(_CLONE_NEWNS), "unshare(CLONE_NEWNS)")
    # Without this, mounts would propagate back to the host's shared mounts.
    mount(None, Path("/"), None, _MS_REC | _MS_PRIVATE, None)


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
