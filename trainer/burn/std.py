"""Rust's standard library's texts (not burn's; no citation)."""

STD = {
    "expect": "{}: {:?}",  # Result::expect: the message, ": ", the error's Debug
    # Result::unwrap: this message, then as expect (core's result.rs, unwrap_failed)
    "unwrap": "called `Result::unwrap()` on an `Err` value",
    "os_error": "{} (os error {})",  # io::Error's Display for an OS error
    "send_error_display": "sending on a closed channel",  # SendError's Display
    "send_error_debug": "SendError { .. }",  # SendError's Debug
    # The default panic hook's first line: the thread's name, its OS thread id (Rust >= 1.91,
    # rust-lang/rust#115746; the toolchain mirrored is 1.95), the location.
    "panic_header": "thread '{}' ({}) panicked at {}:",
    "panic_info": "panicked at {}:\n{}",  # PanicHookInfo's Display: location, then payload
}
UNNAMED_THREAD = "<unnamed>"  # std::thread::spawn gives the worker no name
MAIN_THREAD = "main"


def expect(message: str, debug: str) -> str:
    """What ``Result::expect(message)`` prints for an error whose Debug is ``debug``."""
    return f"{message}: {debug}"


def panic_info(location: str, message: str) -> str:
    """``PanicHookInfo``'s Display (Rust >= 1.73) for a panic with a string payload."""
    return STD["panic_info"].replace("{}", location, 1).replace("{}", message, 1)


# A panic while the thread unwinds from another (a Drop that panics during cleanup), as Rust
# >= 1.74 ends it (rust-lang/rust#115045; burn's edition 2024 needs >= 1.85): the panic cannot
# unwind out of the destructor, so core's `panic_in_cleanup` raises a non-unwinding panic (the
# panic hook runs for it too), then std prints the abort line and calls abort(): SIGABRT.
PANIC_IN_CLEANUP = "panic in a destructor during cleanup"  # core::panicking::panic_in_cleanup
NON_UNWINDING_ABORT = "thread caused non-unwinding panic. aborting."  # std, after the hook
ABORT_SIGNAL = "SIGABRT"
# Where core raises it, as the toolchain mirrored (Rust 1.95.0) reports it; the line moves
# with the toolchain, and the prefix with the build (`/rustc/<commit>/` for rustup's).
CLEANUP_LOCATION = (
    "/rustc/59807616e1fa2540724bfbac14d7976d7e4a3860/library/core/src/panicking.rs:233:5"
)
CLEANUP_LOCATION_PATTERN = r"\S*library/core/src/panicking\.rs:\d+:\d+"

# serde's text (not std's, not burn's) for a struct field absent from the input: the
# derived Deserialize reports the first missing field in declaration order, and rmp_serde's
# error shows it as is (serde::de::Error::missing_field).
SERDE_MISSING_FIELD = "missing field `{}`"

# Rust's own messages for an integer overflow in a build with overflow checks on (the dev
# profile's default, or `overflow-checks = true`): core's panic_const_*_overflow, reported at
# the expression's line and column. A release build wraps instead, silently.
OVERFLOW = {
    "sub": "attempt to subtract with overflow",
    "add": "attempt to add with overflow",
    "mul": "attempt to multiply with overflow",
}
