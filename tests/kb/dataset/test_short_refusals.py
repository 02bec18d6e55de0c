"""A refused dataset file is named with at most a line of what it refuses, never the
megabyte it may hold: a number of a million digits, an unknown key of a million
characters. Both ways in: import_errors and the admin upload."""

import json

import pytest

from errorkb.kb.dataset.files import read_dataset
from errorkb.kb.dataset.stream import DatasetError
from tests.builders import applies_to_row, make_record
from tests.kb.dataset.test_hostile_imports import (
    existing,  # noqa: F401 (a fixture)
    refused_by_command,
    refused_by_upload,
    uploader,  # noqa: F401 (a fixture)
)

pytestmark = pytest.mark.django_db

DIGITS = "9" * 1_000_000
LONG_KEY = "k" * 1_000_000
SHORT = 300  # characters: a line of refusal, far below what the file quotes


def with_line_number(literal: str) -> bytes:
    """A file of one record whose lineNumber is written as literal, a JSON number."""
    record = make_record("Long number.", lineNumber=7777, sourceCodeStart=None, sourceCodeEnd=None)
    return ("[" + json.dumps(record).replace("7777", literal) + "]").encode()


NUMBERS = [
    (DIGITS, "a number too long to read"),
    ("-" + DIGITS, "a number too long to read"),
    (DIGITS + ".5", "a number too large to read"),
    ("1e" + DIGITS, "a number too large to read"),
]


@pytest.mark.parametrize(("literal", "why"), NUMBERS, ids=["int", "negative", "float", "exponent"])
def test_a_number_of_a_million_digits_is_refused_without_quoting_it(
    tmp_path,
    existing,  # noqa: F811
    uploader,  # noqa: F811
    literal,
    why,
):
    raw = with_line_number(literal)
    message = refused_by_command(tmp_path, raw, existing)
    assert why in message and len(message) < SHORT + len(str(tmp_path)), message[:SHORT]
    page = refused_by_upload(uploader, raw, existing)
    assert why in page and "9" * SHORT not in page


@pytest.mark.parametrize("inside", [None, "appliesTo"], ids=["record", "row"])
def test_an_unknown_key_of_a_million_characters_is_named_by_its_start(
    tmp_path,
    existing,  # noqa: F811
    uploader,  # noqa: F811
    inside,
):
    record = make_record("Long key.", appliesTo=[applies_to_row()])
    (record["appliesTo"][0] if inside else record)[LONG_KEY] = 1
    raw = json.dumps([record]).encode()
    message = refused_by_command(tmp_path, raw, existing)
    assert "kkk" in message and "…" in message and "unknown" in message, message[:SHORT]
    assert len(message) < SHORT + len(str(tmp_path)), message[:SHORT]
    page = refused_by_upload(uploader, raw, existing)
    assert "unknown" in page and "k" * SHORT not in page


def test_a_symbol_the_exact_parser_refuses_is_quoted_short():
    # A lone surrogate escape sends the file to ijson's pure Python parser, which quotes
    # the whole of a symbol it refuses.
    raw = b'["\\ud800", ' + b"t" * 1_000_000 + b"]"
    with pytest.raises(DatasetError) as caught:
        read_dataset(raw)
    message = str(caught.value)
    assert "not valid JSON" in message and len(message) < SHORT, message[:SHORT]
