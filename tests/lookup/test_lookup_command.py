"""bin/errorkb lookup: a log from a file or from standard input, and clear refusals."""

from io import BytesIO, StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from tests.lookup.texts import demo_panic, demo_records

RECORD = next(r for r in demo_records() if r["errorMessage"] == "Failed to load record")


class Stdin:
    """Standard input holding `data`, piped in or typed at a terminal."""

    def __init__(self, data: bytes, *, terminal: bool = False):
        self.buffer = BytesIO(data)
        self.terminal = terminal

    def isatty(self) -> bool:
        return self.terminal


def lookup(*args: str) -> str:
    printed = StringIO()
    call_command("lookup", *args, stdout=printed)
    return printed.getvalue()


def test_it_reads_a_piped_log_when_no_file_is_named(demo, monkeypatch):
    monkeypatch.setattr("sys.stdin", Stdin(demo_panic(RECORD).encode()))

    entries = lookup().split("Entries in this text:\n", 1)[1]

    assert entries.startswith(f"1. Failed to load record  [{RECORD['id']},")


def test_it_refuses_empty_standard_input_saying_so(demo, monkeypatch):
    monkeypatch.setattr("sys.stdin", Stdin(b" \n\n"))

    with pytest.raises(CommandError, match="^standard input is empty: give the command a log"):
        lookup("-")


def test_it_refuses_a_missing_file_naming_it(demo, tmp_path):
    missing = tmp_path / "train.log"

    with pytest.raises(CommandError, match=f"^{missing}: cannot read it: No such file"):
        lookup(str(missing))


def test_it_asks_for_a_log_when_nothing_is_named_or_piped(demo, monkeypatch):
    # At a terminal with nothing piped in, reading standard input would look like a hang.
    monkeypatch.setattr("sys.stdin", Stdin(b"", terminal=True))

    with pytest.raises(CommandError, match=r"give a log file \(bin/errorkb lookup train.log\)"):
        lookup()


def test_a_dash_reads_the_terminal_until_it_ends(demo, monkeypatch):
    # `lookup -` at a terminal reads what is pasted, up to Ctrl-D, as cat does.
    monkeypatch.setattr("sys.stdin", Stdin(demo_panic(RECORD).encode(), terminal=True))

    assert f"1. Failed to load record  [{RECORD['id']}," in lookup("-")
