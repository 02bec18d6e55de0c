"""burn's error texts: Display and Debug, byte for byte."""

import errno

import pytest

from trainer import burn
from trainer.errors import (
    CheckpointerError,
    IoError,
    Panic,
    RecorderError,
    RecordError,
    exception_chain,
    expect,
    os_error_debug,
    os_error_display,
    rust_str_debug,
)


def test_it_prints_os_errors_like_rust():
    err = OSError(errno.ENOSPC, "ignored")
    assert os_error_display(err) == "No space left on device (os error 28)"
    assert os_error_debug(err) == (
        'Os { code: 28, kind: StorageFull, message: "No space left on device" }'
    )


def test_it_escapes_strings_like_rusts_debug():
    assert rust_str_debug('say "hi"\n\\') == r'"say \"hi\"\n\\"'


def test_it_nests_record_errors_in_checkpointer_errors():
    record = RecordError.io("I/O error: No such file or directory (os error 2)", errno=2)
    err = CheckpointerError.record(record)
    assert err.debug() == 'Record(Io("I/O error: No such file or directory (os error 2)"))'
    assert str(err) == (
        "Record error: `Record I/O error: I/O error: No such file or directory (os error 2)`"
    )
    assert err.errno == 2


def test_it_renders_validation_and_unknown_variants():
    assert str(RecordError.validation("bad")) == "Record validation error: bad"
    unknown = CheckpointerError.unknown("sending on a closed channel")
    assert unknown.debug() == 'Unknown("sending on a closed channel")'
    assert str(unknown) == "Unknown error: `sending on a closed channel`"


def test_it_renders_io_checkpointer_errors_with_the_os_debug_form():
    err = CheckpointerError.io(OSError(errno.EPERM, "x"))
    assert err.debug() == (
        'IOError(Os { code: 1, kind: PermissionDenied, message: "Operation not permitted" })'
    )
    assert str(err) == "I/O Error: `Operation not permitted (os error 1)`"


def test_it_renders_custom_io_errors():
    err = IoError.unexpected_eof()
    assert str(err) == "failed to fill whole buffer"
    assert err.debug() == 'Error { kind: UnexpectedEof, message: "failed to fill whole buffer" }'


def test_it_panics_with_expect_text_and_debug_and_keeps_the_errno():
    def fail():
        raise CheckpointerError.record(RecordError.io("I/O error: x (os error 13)", errno=13))

    with pytest.raises(Panic) as caught:
        expect(burn.LEARNER["load", "model"], fail)
    assert (
        caught.value.message
        == 'Can load model checkpoint.: Record(Io("I/O error: x (os error 13)"))'
    )
    assert caught.value.location == "crates/burn-train/src/learner/base.rs:200:14"
    assert caught.value.errno == 13
    assert exception_chain(caught.value)[0].startswith("Panic: Can load model checkpoint.")


def test_it_rejects_unknown_record_error_variants():
    with pytest.raises(ValueError):
        RecordError("Nope", "x")
    with pytest.raises(ValueError):
        RecorderError("Io", "x")


def test_it_renders_0_19_recorder_errors_with_display_equal_to_debug():
    err = RecorderError.from_open(OSError(errno.EROFS, "x"))
    assert err.debug() == str(err) == 'Unknown("Read-only file system (os error 30)")'
    assert RecorderError.from_open(OSError(errno.ENOENT, "x")).variant == "FileNotFound"
    wrapped = CheckpointerError.record(err)
    assert wrapped.debug() == 'RecorderError(Unknown("Read-only file system (os error 30)"))'
    with pytest.raises(TypeError, match="no Display"):
        str(wrapped)  # v0.19.1's CheckpointerError derives Debug only
