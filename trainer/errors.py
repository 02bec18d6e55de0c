"""burn's error types, with the exact Display and Debug texts burn prints.

The knowledge base quotes burn's panic messages verbatim, so the trainer has to
produce them byte for byte: ``<expect text>: <Debug of the error>``.  Each error
here therefore knows two renderings, ``str(err)`` (Rust's ``Display``) and
``err.debug()`` (Rust's ``{:?}``).
"""

from __future__ import annotations

import errno as errno_codes
import os

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


def strerror(code: int) -> str:
    return os.strerror(code)


def os_error_display(err: OSError) -> str:
    """``std::io::Error``'s Display for an OS error: ``{strerror} (os error {errno})``."""
    return f"{strerror(err.errno)} (os error {err.errno})"


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
    """burn's recorder error: an I/O problem or a record that does not fit."""

    _DISPLAY = {"Io": "Record I/O error: {}", "Validation": "Record validation error: {}"}

    def __init__(self, variant: str, message: str, *, errno: int | None = None):
        if variant not in self._DISPLAY:
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
        return self._DISPLAY[self.variant].format(self.message)

    def debug(self) -> str:
        return f"{self.variant}({rust_str_debug(self.message)})"


class CheckpointerError(BurnError):
    """burn-train's ``CheckpointerError``: I/O, record, or unknown."""

    def __init__(self, variant: str, payload: IoError | RecordError | str):
        self.variant = variant
        self.payload = payload
        self.errno = getattr(payload, "errno", None)
        super().__init__(str(self))

    @classmethod
    def io(cls, err: OSError) -> CheckpointerError:
        return cls("Io", IoError(err))

    @classmethod
    def record(cls, err: RecordError) -> CheckpointerError:
        return cls("Record", err)

    @classmethod
    def unknown(cls, message: str) -> CheckpointerError:
        return cls("Unknown", message)

    def __str__(self) -> str:
        if self.variant == "Io":
            return f"I/O Error: `{self.payload}`"
        if self.variant == "Record":
            return f"Record error: `{self.payload}`"
        return f"Unknown error: `{self.payload}`"

    def debug(self) -> str:
        if isinstance(self.payload, str):
            return f"{self.variant}({rust_str_debug(self.payload)})"
        return f"{self.variant}({self.payload.debug()})"


class Panic(Exception):
    """A Rust panic: the message is the full text burn prints after ``panicked at``."""

    def __init__(self, message: str, *, errno: int | None = None):
        super().__init__(message)
        self.message = message
        self.errno = errno


class TrainingInterrupted(Exception):
    """The interrupter stopped training; burn reports ``Training interrupted: {reason}``."""

    def __init__(self, reason: str):
        super().__init__(f"Training interrupted: {reason}")
        self.reason = reason


def expect(message: str, action, *args, **kwargs):
    """Rust's ``Result::expect``: run ``action`` and panic with burn's text on error."""
    try:
        return action(*args, **kwargs)
    except BurnError as err:
        raise Panic(f"{message}: {err.debug()}", errno=err.errno) from err


def find_errno(exc: BaseException | None) -> int | None:
    """The first errno found along an exception's cause chain."""
    while exc is not None:
        code = getattr(exc, "errno", None)
        if code is not None:
            return code
        exc = exc.__cause__ or exc.__context__
    return None


def exception_chain(exc: BaseException | None) -> list[str]:
    """The chain from outermost to root cause, each as ``Type: message``."""
    chain = []
    while exc is not None:
        chain.append(f"{type(exc).__name__}: {exc}")
        exc = exc.__cause__ or exc.__context__
    return chain
