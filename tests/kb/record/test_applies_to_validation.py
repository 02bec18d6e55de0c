"""appliesTo rows are checked on import: a bad row names the record, the row and its key."""

import pytest

from errorkb.kb.dataset.import_export import dumps_dataset, export_dataset
from errorkb.kb.record.validation import InvalidRecord, validate_record
from tests.builders import applies_to_row, import_records, make_record, raised_row, write_json
from tests.kb.dataset.test_import_errors import assert_refused

pytestmark = pytest.mark.django_db


def refusal(applies_to) -> str:
    record = make_record(appliesTo=applies_to)
    with pytest.raises(InvalidRecord) as caught:
        validate_record(record, index=0)
    assert record["id"] in str(caught.value)
    return str(caught.value)


def without(key: str) -> dict:
    row = applies_to_row()
    del row[key]
    return row


@pytest.mark.parametrize(
    ("rows", "where", "why"),
    [
        ("0.20.0", "'appliesTo'", "must be an array of rows"),
        ([applies_to_row(), "raised"], "'appliesTo[1]'", "must be a JSON object"),
        ([applies_to_row(release="main")], "'appliesTo[0].release'", "unknown key"),
        ([raised_row(), without("commit")], "'appliesTo[1].commit'", "missing"),
        ([applies_to_row(versions="")], "'appliesTo[0].versions'", "non-empty string"),
        ([applies_to_row(setup="  ")], "'appliesTo[0].setup'", "non-empty string"),
        ([applies_to_row(seen=None)], "'appliesTo[0].seen'", "non-empty string"),
        ([applies_to_row(note="")], "'appliesTo[0].note'", "non-empty string"),
        ([applies_to_row(outcome="printed")], "'appliesTo[0].outcome'", '"raised" or'),
        ([applies_to_row(lineNumber=0)], "'appliesTo[0].lineNumber'", "positive integer"),
        ([applies_to_row(lineNumber="46")], "'appliesTo[0].lineNumber'", "positive integer"),
        ([applies_to_row(lineNumber=True)], "'appliesTo[0].lineNumber'", "positive integer"),
        ([raised_row(), applies_to_row(commit="2C06BE3")], "'appliesTo[1].commit'", "hex"),
        ([applies_to_row(commit="2c06be")], "'appliesTo[0].commit'", "7 to 40"),
        ([applies_to_row(commit="v0.21.0")], "'appliesTo[0].commit'", "7 to 40"),
    ],
)
def test_it_names_the_bad_row_and_key(rows, where, why):
    message = refusal(rows)
    assert where in message and why in message, message


def test_it_accepts_rows_an_empty_list_and_a_note():
    rows = [raised_row(note="Only without an interrupter."), applies_to_row(commit="2c06be3")]
    assert validate_record(make_record(appliesTo=rows), index=0).values["applies_to"] == rows
    assert validate_record(make_record(appliesTo=[]), index=0).values["applies_to"] == []


def test_it_keeps_an_absent_key_apart_from_an_empty_list():
    assert validate_record(make_record(), index=0).values["applies_to"] is None


def test_it_puts_the_keys_of_a_row_in_the_record_order():
    shuffled = dict(reversed(list(raised_row(note="n").items())))
    cleaned = validate_record(make_record(appliesTo=[shuffled]), index=0).values["applies_to"]
    assert list(cleaned[0]) == list(raised_row(note="n"))


def test_the_import_command_refuses_a_bad_row_and_writes_nothing(tmp_path):
    import_records(make_record("Existing entry."))
    existing = dumps_dataset(export_dataset())
    record = make_record("New.", appliesTo=[raised_row(), applies_to_row(lineNumber=-3)])
    path = write_json(tmp_path / "a.json", [record])
    assert_refused(path, existing, record["id"], "'appliesTo[1].lineNumber'", "positive")
