"""Every demo entry says what burn's source says, at the commit it pins.

Plain pytest over the shipped dataset and the kept burn files: no database.
"""

import json
from pathlib import Path

import pytest

from tests.upstream.sources import COMMITS, line, source_lines

DEMO = Path(__file__).resolve().parents[2] / "errorkb/kb/fixtures/demo.json"
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
    raising = line(record["analyzedSha"], record["filePath"], number)
    assert f'"{literal(record["errorMessage"])}' in raising


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
    cited = line(row["commit"], row["filePath"], row["lineNumber"])
    assert row["seen"] in cited
    assert f'"{literal(row["seen"])}' in cited  # a text burn raises: it opens a string literal


@by_row
def test_a_raised_row_shows_the_entrys_own_message(record, index, row):
    if row["outcome"] == "raised":
        assert row["seen"] == record["errorMessage"]
    else:
        assert row["outcome"] == "not raised"
        assert row["seen"] != record["errorMessage"]
