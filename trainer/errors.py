"""burn's error types, with the exact Display and Debug texts burn prints.

The knowledge base quotes burn's panic messages verbatim, so the trainer has to
produce them byte for byte: ``<expect text>: <Debug of the error>``.  Each error
here therefore knows two renderings, ``str(err)`` (Rust's ``Display``) and
``err.debug()`` (Rust's ``{:?}``).
"""

from __future__ import annotations

import errno as errno_codes
import os
import threading
from dataclasses import dataclass, field

from trainer import burn

# std::io::ErrorKind for the errnos the faults produce; Rust prints the kind in
# the Debug form of an OS error, so an unknown errno falls back to "Uncategorized".
_ERROR_KINDS = {
    errno_codes.EPERM: "PermissionDenied",
    errno_codes.ENOENT: "NotFound",
    errno_codes.EIO: "Uncategorized",
    errno_codes.EACCES: "PermissionDenied",
    errno_codes.EEXIST: "AlreadyExists",
    errno_codes.ENOTDIR: "NotADirectory",
    errno_codes.EISDIR: "IsADirectory",
    errno_codes.EMFILE: "Uncategorized",
    # EFBIG reaches burn from a filesystem's own size limit only: past RLIMIT_FSIZE the
    # kernel sends SIGXFSZ, whose default action (a Rust program keeps it) ends the process.
    errno_codes.EFBIG: "FileTooLarge",
    errno_codes.ENOSPC: "StorageFull",
    errno_codes.EROFS: "ReadOnlyFilesystem",
    errno_codes.ENAMETOOLONG: "InvalidFilename",
    errno_codes.EDQUOT: "FilesystemQuotaExceeded",
    errno_codes.EBUSY: "ResourceBusy",
}


def rust_str_debug(text: str) -> str:
    """Render a string the way Rust's ``{:?}`` does: quoted, with escapes."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    escaped = escaped.replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t")
    return f'"{escaped}"'


def shape_debug(dims: list[int]) -> str:
    """burn's ``Shape`` as ``{:?}`` prints it at main: ``Shape { dims: [16, 32] }``.

    burn-std re-exports cubecl-zspace's ``Shape`` (burn-std tensor/shape.rs:9 at 2c06be35;
    cubecl pinned at rev 48348968 in burn's Cargo.toml:225), a struct with a derived Debug
    and one field, ``dims``, a ``SmallVec`` (cubecl-zspace src/shape.rs:22-27 at that rev),
    which smallvec 1 prints as a list.
    """
    return f"Shape {{ dims: [{', '.join(str(d) for d in dims)}] }}"


def strerror(code: int) -> str:
    return os.strerror(code)


def os_error_display(err: OSError) -> str:
    """``std::io::Error``'s Display for an OS error: ``{strerror} (os error {errno})``."""
    return burn.STD["os_error"].replace("{}", strerror(err.errno), 1).replace("{}", str(err.errno))


def os_error_debug(err: OSError) -> str:
    """``std::io::Error``'s Debug for an OS error."""
    kind = _ERROR_KINDS.get(err.errno, "Uncategorized")
    message = rust_str_debug(strerror(err.errno))
    return f"Os {{ code: {err.errno}, kind: {kind}, message: {message} }}"


class BurnError(Exception):
    """Base of burn's errors: ``str()`` is Display, ``debug()`` is Debug.

    ``errno`` carries the OS error number through the layers of wrapping, so an
    outcome can report it even when the text only shows it inside a string.
    """

    errno: int | None = None

    def debug(self) -> str:
        raise NotImplementedError


class IoError(BurnError):
    """``std::io::Error``: either an OS error or a custom kind with a message."""

    def __init__(self, os_error: OSError | None = None, *, kind: str = "", message: str = ""):
        self.os_error = os_error
        self.kind = kind
        self.message = message
        self.errno = os_error.errno if os_error is not None else None
        super().__init__(str(self))

    @classmethod
    def unexpected_eof(cls) -> IoError:
        # What Read::read_exact reports when the file ends early.
        return cls(kind="UnexpectedEof", message="failed to fill whole buffer")

    def __str__(self) -> str:
        if self.os_error is not None:
            return os_error_display(self.os_error)
        return self.message

    def debug(self) -> str:
        if self.os_error is not None:
            return os_error_debug(self.os_error)
        return f"Error {{ kind: {self.kind}, message: {rust_str_debug(self.message)} }}"


class RecordError(BurnError):
    """burn-core's ``RecordError`` (main): an I/O or format error, or a record that does not fit."""

    def __init__(self, variant: str, message: str, *, errno: int | None = None):
        if variant not in burn.RECORD_VARIANTS:
            raise ValueError(f"unknown RecordError variant {variant!r}")
        self.variant = variant
        self.message = message
        self.errno = errno
        super().__init__(str(self))

    @classmethod
    def io(cls, message: str, *, errno: int | None = None) -> RecordError:
        return cls("Io", message, errno=errno)

    @classmethod
    def validation(cls, message: str) -> RecordError:
        return cls("Validation", message)

    def __str__(self) -> str:
        return burn.RECORD_DISPLAY[self.variant].render(self.message)

    def debug(self) -> str:
        return burn.RECORD_VARIANTS[self.variant].debug(rust_str_debug(self.message))


class RecorderError(BurnError):
    """burn-core's ``RecorderError`` (v0.19.1): its Display is its Debug (recorder.rs:170)."""

    def __init__(self, variant: str, message: str, *, errno: int | None = None):
        if variant not in burn.RECORDER_VARIANTS_19:
            raise ValueError(f"unknown RecorderError variant {variant!r}")
        self.variant = variant
        self.message = message
        self.errno = errno
        super().__init__(str(self))

    @classmethod
    def from_open(cls, err: OSError) -> RecorderError:
        """How the file recorder maps an open/create error (record/file.rs:97-100, 125-128)."""
        variant = "FileNotFound" if err.errno == errno_codes.ENOENT else "Unknown"
        return cls(variant, os_error_display(err), errno=err.errno)

    def __str__(self) -> str:
        return self.debug()

    def debug(self) -> str:
        return burn.RECORDER_VARIANTS_19[self.variant].debug(rust_str_debug(self.message))


class CheckpointerError(BurnError):
    """burn-train's ``CheckpointerError``: I/O, record (recorder in v0.19.1), or unknown."""

    def __init__(self, variant: str, payload: IoError | RecordError | RecorderError | str):
        self.variant = variant
        self.payload = payload
        self.errno = getattr(payload, "errno", None)
        super().__init__(self.debug())

    @classmethod
    def io(cls, err: OSError) -> CheckpointerError:
        return cls("IOError", IoError(err))

    @classmethod
    def record(cls, err: RecordError | RecorderError) -> CheckpointerError:
        return cls("RecorderError" if isinstance(err, RecorderError) else "Record", err)

    @classmethod
    def unknown(cls, message: str) -> CheckpointerError:
        return cls("Unknown", message)

    def __str__(self) -> str:
        # Only main's CheckpointerError has a Display (thiserror); v0.19.1's is Debug only.
        display = burn.CHECKPOINTER_DISPLAY.get(self.variant)
        if display is None:
            raise TypeError(f"CheckpointerError::{self.variant} has no Display in burn")
        return display.render(self.payload)

    def debug(self) -> str:
        variant = (burn.CHECKPOINTER_VARIANTS | burn.CHECKPOINTER_VARIANTS_19)[self.variant]
        if isinstance(self.payload, str):
            return variant.debug(rust_str_debug(self.payload))
        return variant.debug(self.payload.debug())


class Panic(Exception):
    """A Rust panic: ``message`` is the text burn prints, ``site`` the line that raises it."""

    def __init__(
        self,
        message: str,
        *,
        site: burn.Panic | burn.MacroPanic | None = None,
        errno: int | None = None,
    ):
        super().__init__(message)
        self.message = message
        self.site = site
        self.errno = errno

    @classmethod
    def at(
        cls, site: burn.Panic | burn.MacroPanic, *values: object, errno: int | None = None
    ) -> Panic:
        """``panic!`` at ``site`` with its placeholders filled."""
        return cls(site.text.render(*values), site=site, errno=errno)

    @property
    def location(self) -> str | None:
        return self.site.location if self.site else None


class Abort(BaseException):
    """The process aborts, as Rust's std does after a non-unwinding panic: nothing after it
    runs, so no handler of ordinary errors may catch it (the scenario process ends by
    SIGABRT once it has told what was printed)."""


def expect(site: burn.Panic, action, *args, **kwargs):
    """Rust's ``Result::expect`` at ``site``: run ``action``, panic with burn's text on error."""
    try:
        return action(*args, **kwargs)
    except BurnError as err:
        message = burn.expect(site.text.format, err.debug())
        raise Panic(message, site=site, errno=err.errno) from err


def exception_chain(exc: BaseException | None) -> list[str]:
    """The chain from outermost to root cause, each as ``Type: message``."""
    chain = []
    while exc is not None:
        chain.append(f"{type(exc).__name__}: {exc}")
        exc = exc.__cause__ or exc.__context__
    return chain


@dataclass(frozen=True)
class Printed:
    """One text burn writes: a panic or the logger's banner (stderr), or a log record.

    Log records go to ``<artifact dir>/experiment.log``: the launchers install burn's
    file logger, so they never reach the console.
    """

    text: str
    kind: str  # "panic", "banner", "abort" (std's last line before abort()) or "log"
    thread: str = burn.MAIN_THREAD
    location: str | None = None  # path:line:column of the panic in burn's source
    errno: int | None = None
    level: str = "INFO"  # a log record's level
    target: str = ""  # a log record's target: the module that logs it
    # The OS id of the thread that made it: Rust's panic header names the panicking thread's.
    thread_id: int = field(default_factory=threading.get_native_id)

    @classmethod
    def panic(cls, panic: Panic, *, thread: str = burn.MAIN_THREAD) -> Printed:
        return cls(panic.message, "panic", thread, panic.location, panic.errno)

    @classmethod
    def panic_in_cleanup(cls) -> Printed:
        """core's non-unwinding panic for a panic that unwinds out of a destructor during
        cleanup: raised on the unwinding thread, at core's own line."""
        return cls(burn.PANIC_IN_CLEANUP, "panic", burn.MAIN_THREAD, burn.CLEANUP_LOCATION)

    @classmethod
    def abort(cls) -> Printed:
        """std's line after the hook has run for a non-unwinding panic, just before abort()."""
        return cls(burn.NON_UNWINDING_ABORT, "abort")

    @classmethod
    def log(cls, text: burn.Text, *values: object, level: str = "INFO", errno=None) -> Printed:
        """A ``log::info!``/``log::error!`` of ``text`` on its cited line."""
        target = burn.LOG_TARGETS[text.path]
        return cls(text.render(*values), "log", errno=errno, level=level, target=target)

    @property
    def logged(self) -> bool:
        """Whether it goes to experiment.log rather than the console."""
        return self.kind == "log"

    def render(self) -> str:
        """As it is shown: Rust's default panic hook, the banner, or the log file's line."""
        if self.kind == "log":
            # tracing-subscriber's fmt layer, less its timestamp: `LEVEL target: message`.
            return f"{self.level:>5} {self.target}: {self.text}"
        if self.kind in ("banner", "abort"):
            return self.text
        if not self.location:
            return f"thread '{self.thread}' ({self.thread_id}) panicked:\n{self.text}"
        header = burn.STD["panic_header"].format(self.thread, self.thread_id, self.location)
        return f"{header}\n{self.text}"


def panic_hook(release: burn.Release, experiment_log: str, panic: Printed) -> list[Printed]:
    """What the launcher's logger adds before the default hook's report of ``panic``:
    ``PANIC => {info}`` logged, then the banner (application_logger.rs:57-65)."""
    hook = release.panic_hook
    info = burn.panic_info(panic.location, panic.text)
    return [
        Printed.log(hook["log"], info, level="ERROR"),
        Printed(hook["banner"].render(experiment_log), "banner"),
    ]
