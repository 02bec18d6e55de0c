"""Every demo entry says what burn's source says, at the commit it pins.

Plain pytest over the shipped dataset and the kept burn files: no database.
"""

import json
import re
from pathlib import Path

import pytest

from errorkb.upstream.sites.rust import written_string_value
from tests.upstream.sources import COMMITS, line, source_lines

FIXTURES = Path(__file__).resolve().parents[3] / "errorkb/kb/fixtures"
DEMO = FIXTURES / "demo.json"
RECORDS = json.loads(DEMO.read_text(encoding="utf-8"))["records"]
BURN = "tracel-ai/burn"

by_entry = pytest.mark.parametrize("record", RECORDS, ids=[r["id"] for r in RECORDS])

ROWS = [(r, i, row) for r in RECORDS for i, row in enumerate(r.get("appliesTo", []))]
by_row = pytest.mark.parametrize(
    ("record", "index", "row"), ROWS, ids=[f"{r['id']}-row{i}" for r, i, _ in ROWS]
)


def literal(message: str) -> str:
    """The message's fixed text: all of it, or what comes before its first placeholder."""
    return message.split("{", 1)[0]


# Rust's own messages a site-keyed entry may hold, and the operation its line must do.
OPERATIONS = {
    "attempt to subtract with overflow": " - ",
    "attempt to add with overflow": " + ",
    "attempt to multiply with overflow": " * ",
}


def fires_at(record: dict, commit: str, path: str, number: int) -> bool:
    """Whether a site-keyed entry keys the line: it does the message's operation and lies
    in a firesAt row of that commit (check_claims holds each row to the same lines at every
    release it names)."""
    if OPERATIONS[record["errorMessage"]] not in line(commit, path, number):
        return False
    return any(
        row["commit"] == commit and row["filePath"] == path
        and row["firstLine"] <= number <= row["lastLine"]
        for row in record.get("firesAt") or ()
    )  # fmt: skip


def opens(commit: str, path: str, number: int, text: str) -> bool:
    """Whether a string literal opening on the cited line starts with the text's fixed part
    and holds the text: as written, or as Rust reads it (a text with a line break is
    written with `\\n` and may be continued over lines with a backslash)."""
    cited = line(commit, path, number)
    if f'"{literal(text)}' in cited and text in cited:
        return True
    if '"' not in cited:
        return False
    after = "\n".join(source_lines(commit, path)[number - 1 :]).split('"', 1)[1]
    written = re.match(r'((?:[^"\\]|\\.)*)"', after, re.S)
    value = written_string_value(written[1]) if written else ""
    return value.startswith(literal(text)) and text in value


def test_every_entry_is_a_burn_entry_with_source_rows():
    assert RECORDS
    assert all(r["repo"] == BURN and r.get("appliesTo") for r in RECORDS)


@by_entry
def test_it_pins_a_kept_burn_commit(record):
    assert record["analyzedSha"] in COMMITS.values()


@by_entry
def test_its_snippet_is_the_pinned_file_byte_for_byte(record):
    lines = source_lines(record["analyzedSha"], record["filePath"])
    start, end = record["sourceCodeStart"], record["sourceCodeEnd"]
    assert 1 <= start <= end <= len(lines)
    assert record["sourceCode"] == "\n".join(lines[start - 1 : end])


@by_entry
def test_its_line_raises_its_message(record):
    number = record["lineNumber"]
    assert record["sourceCodeStart"] <= number <= record["sourceCodeEnd"]
    if record.get("firesAt"):  # Rust's own message, keyed by burn's lines
        assert fires_at(record, record["analyzedSha"], record["filePath"], number)
        return
    assert opens(record["analyzedSha"], record["filePath"], number, literal(record["errorMessage"]))


@by_entry
def test_its_address_is_the_pinned_snippet_on_github(record):
    expected = (
        f"https://github.com/{BURN}/blob/{record['analyzedSha']}/{record['filePath']}"
        f"#L{record['sourceCodeStart']}-L{record['sourceCodeEnd']}"
    )
    assert record["githubUrl"] == expected


@by_row
def test_each_release_row_cites_a_line_that_says_what_is_seen(record, index, row):
    assert row["commit"] in COMMITS.values()
    if record.get("firesAt") and row["seen"] == record["errorMessage"]:
        assert fires_at(record, row["commit"], row["filePath"], row["lineNumber"])
        return
    # a text burn raises: it opens a string literal there
    assert opens(row["commit"], row["filePath"], row["lineNumber"], row["seen"])


@by_row
def test_a_raised_row_shows_the_entrys_own_message(record, index, row):
    if row["outcome"] == "raised":
        assert row["seen"] == record["errorMessage"]
    else:
        assert row["outcome"] == "not raised"
        assert row["seen"] != record["errorMessage"]
