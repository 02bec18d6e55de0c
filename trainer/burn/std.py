"""Rust's standard library's texts (not burn's; no citation)."""

STD = {
    "expect": "{}: {:?}",  # Result::expect: the message, ": ", the error's Debug
    "os_error": "{} (os error {})",  # io::Error's Display for an OS error
    "send_error_display": "sending on a closed channel",  # SendError's Display
    "send_error_debug": "SendError { .. }",  # SendError's Debug
    "panic_header": "thread '{}' panicked at {}:",  # the default panic hook's first line
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
