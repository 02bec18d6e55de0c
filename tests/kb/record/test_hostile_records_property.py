"""Whatever a dataset file holds, it is refused cleanly or it imports: never a database error.

Hypothesis throws JSON-shaped values (integers past every column, lone surrogates,
NULs, timestamps at the ends of time, nested junk) into the fields of a valid record,
into an appliesTo row, and at the reader itself. Only InvalidRecord or DatasetError may
come out, and whatever validation lets through must be writable and readable back.
"""

import json
from datetime import datetime, timedelta, timezone

import pytest
from django.db import transaction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from errorkb.kb.dataset.files import DatasetError, parse_dataset, read_dataset
from errorkb.kb.dataset.import_export import export_dataset, import_dataset
from errorkb.kb.record.schema import (
    APPLIES_TO_KEY,
    APPLIES_TO_ROW_KEYS,
    RELATED_KEY,
    SEED_FIELDS,
    STATUS_KEY,
)
from errorkb.kb.record.validation import InvalidRecord
from tests.builders import applies_to_row, make_record

pytestmark = pytest.mark.django_db

RECORD_KEYS = [key for _attr, key in SEED_FIELDS] + [RELATED_KEY, STATUS_KEY, APPLIES_TO_KEY]
ROW_KEYS = list(APPLIES_TO_ROW_KEYS)  # the note among them

EDGE_INTS = st.sampled_from(
    [0, 1, -1, 2**15 - 1, 2**15, 2**16, 2**31 - 1, 2**31, 2**63 - 1, 2**63, 10**30]
)
EDGE_TEXTS = st.sampled_from(
    [
        "",
        "\x00",
        "\ud800",
        "ok\udfff",
        "t" * 65,
        "x" * 501,
        "rust\n",
        "acme/rocket",
        f"{'o' * 101}/rocket",
        "0123456789abcdef",
        "0123456789abcdef\n",
        "2c06be3",
        "published",
        "raised",
    ]
)
# Every code point, surrogates and control characters included.
TEXTS = st.text(st.characters(exclude_categories=()), max_size=12)
# Any moment at any offset, the first and last days that datetime holds most of all.
TIMESTAMPS = st.builds(
    lambda moment, minutes: moment.replace(tzinfo=timezone(timedelta(minutes=minutes))).isoformat(),
    st.datetimes()
    | st.datetimes(max_value=datetime(1, 1, 3))
    | st.datetimes(min_value=datetime(9999, 12, 29)),
    st.integers(-1439, 1439),
)
SCALARS = (
    st.none()
    | st.booleans()
    | EDGE_INTS
    | st.integers()
    | st.floats()
    | TEXTS
    | EDGE_TEXTS
    | TIMESTAMPS
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(TEXTS | st.sampled_from(ROW_KEYS), inner, max_size=3)
    ),
    max_leaves=8,
)

CHECKS = settings(
    max_examples=150,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)


def record_with(changes: dict) -> dict:
    # Changed after it is built: make_record derives the id from repo and filePath.
    return {**make_record(), **changes}


class RolledBack(Exception):
    pass


def assert_refused_or_importable(data) -> None:
    try:
        dataset = parse_dataset(data)
    except (InvalidRecord, DatasetError):
        return
    try:
        with transaction.atomic():
            try:
                import_dataset(dataset)
            except InvalidRecord:
                return  # refused against the database (an unknown related entry): fine
            export_dataset()  # what was written reads back as a record
            raise RolledBack
    except RolledBack:
        pass


@CHECKS
@given(st.dictionaries(st.sampled_from(RECORD_KEYS), VALUES, min_size=1, max_size=3))
def test_a_record_with_hostile_fields_is_refused_or_imports(changes):
    assert_refused_or_importable([record_with(changes)])


@CHECKS
@given(
    st.dictionaries(st.sampled_from(RECORD_KEYS), EDGE_INTS | EDGE_TEXTS | TIMESTAMPS, max_size=3)
)
def test_a_record_with_edge_values_is_refused_or_imports(changes):
    # Without a source span a lineNumber is not bounded by it, so the column's range is reached.
    record = record_with({"sourceCodeStart": None, "sourceCodeEnd": None, **changes})
    assert_refused_or_importable([record])


@CHECKS
@given(st.sampled_from(["analyzedAt", "contentChangedAt"]), TIMESTAMPS)
def test_a_timestamp_at_any_offset_is_refused_or_imports(key, timestamp):
    assert_refused_or_importable([record_with({key: timestamp})])


@CHECKS
@given(st.dictionaries(st.sampled_from(ROW_KEYS), VALUES | EDGE_INTS, min_size=1, max_size=2))
def test_an_applies_to_row_with_hostile_values_is_refused_or_imports(changes):
    assert_refused_or_importable([record_with({"appliesTo": [applies_to_row(**changes)]})])


@CHECKS
@given(VALUES)
def test_any_json_document_is_refused_or_read(document):
    try:
        read_dataset(json.dumps(document).encode())
    except DatasetError:
        pass


@CHECKS
@given(st.binary(max_size=64) | st.builds(lambda b: b"[" * b, st.integers(0, 200)))
def test_any_bytes_are_refused_or_read(raw):
    try:
        read_dataset(raw)
    except DatasetError:
        pass
