"""A key given twice in one object of a dataset file is refused, at every level, naming
the key and the record: json.loads would keep the last one silently."""

import json

import pytest

from errorkb.kb.dataset.files import read_dataset
from errorkb.kb.dataset.stream import DatasetError
from errorkb.kb.models import ErrorEntry
from errorkb.kb.record.validation import validate_record
from tests.admin.admin_client import change_post, client_for
from tests.builders import applies_to_row, import_records, make_record
from tests.kb.dataset.test_hostile_imports import (
    existing,  # noqa: F401 (a fixture)
    refused_by_command,
    refused_by_upload,
    uploader,  # noqa: F401 (a fixture)
)
from tests.kb.people import editor

pytestmark = pytest.mark.django_db


def with_twice(record: dict, key: str, second, *, inside: str | None = None) -> bytes:
    """The record as JSON text, with `key` given a second time (inside the object at
    `inside`, a key of the record holding an object or a list of one object)."""
    text = json.dumps(record)
    twice = f"{json.dumps(key)}: {json.dumps(second)}, "
    if inside is None:
        return text.replace("{", "{" + twice, 1).encode()
    at = text.index(json.dumps(inside) + ": ")
    opening = text.index("{", at)
    return (text[: opening + 1] + twice + text[opening + 1 :]).encode()


def records_file(*records: bytes) -> bytes:
    return b'{"records": [' + b", ".join(records) + b"]}"


PROBES = [
    ("id", "0123456789abcdef", None),
    ("slug", "another-slug", None),
    ("documentation", "Said twice.", None),
    ("tags", ["rust"], None),
    ("seen", "Seen twice.", "appliesTo"),
    ("commit", "abcdef0", "removedUpstream"),
    ("release", "0.2.0", "raisedIn"),
]


@pytest.mark.parametrize(("key", "second", "inside"), PROBES, ids=[p[0] for p in PROBES])
def test_a_key_twice_is_refused_by_the_command_and_the_upload(
    tmp_path,
    existing,  # noqa: F811
    uploader,  # noqa: F811
    key,
    second,
    inside,
):
    record = make_record(
        "Twice said.",
        appliesTo=[applies_to_row()],
        removedUpstream={"commit": "1234567", "lastCommit": None, "lastRelease": None},
        raisedIn=[{"release": "0.1.0", "commit": "1234567", "filePath": "a.rs", "lineNumber": 4}],
    )
    validate_record(record, index=1)  # refused for the key twice alone
    first = json.dumps(make_record("First record.")).encode()
    raw = records_file(first, with_twice(record, key, second, inside=inside))
    expected = f"the key '{key}' appears twice in one object of record #1"
    assert expected in refused_by_command(tmp_path, raw, existing)
    assert expected in refused_by_upload(uploader, raw, existing)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (b'[{"id": "a", "id": "b"}]', "record #0"),
        (b'[1, {"x": 1, "x": 2}]', "record #1"),
        (b'{"record": {"slug": "a", "slug": "b"}}', "record #0"),
        (b'{"datasetVersion": "v", "records": [{"a": {"b": 1, "b": 2}}]}', "record #0"),
        (b'{"records": [], "records": []}', "appears twice at the top level"),
    ],
    ids=["array", "after-a-scalar", "one-record", "nested", "top-level"],
)
def test_the_reader_names_where_the_key_is_twice(raw, expected):
    with pytest.raises(DatasetError) as caught:
        read_dataset(raw)
    assert "appears twice" in str(caught.value) and expected in str(caught.value)


def test_the_same_key_in_two_objects_is_not_twice():
    raw = json.dumps([make_record("One."), make_record("Two.")]).encode()
    assert len(list(read_dataset(raw).records)) == 2


def test_a_huge_key_twice_is_quoted_short():
    key = "k" * 1_000_000
    with pytest.raises(DatasetError) as caught:
        read_dataset(json.dumps([{key: 1}]).replace("{", "{" + json.dumps(key) + ": 0, ").encode())
    assert len(str(caught.value)) < 300


@pytest.mark.parametrize(
    ("typed", "said"),
    [
        (
            '[{"versions": "0.19.1", "versions": "0.20.0"}]',
            "The key &quot;versions&quot; appears twice",
        ),
        ("[" * 100_000 + "]" * 100_000, "Nested too deeply"),
    ],
    ids=["key-twice", "deep"],
)
def test_the_admin_refuses_rows_with_a_key_twice_or_nested_too_deep(typed, said):
    entry = import_records(make_record("Admin rows."))[0]
    client = client_for(editor())
    response = client.post(
        f"/admin/kb/errorentry/{entry.pk}/change/", change_post(entry, applies_to=typed)
    )
    assert response.status_code == 200  # the form again, with the error
    assert said in response.content.decode()
    assert ErrorEntry.objects.get(pk=entry.pk).applies_to == entry.applies_to


@pytest.mark.parametrize(
    "raw",
    [
        b'{"records": [{"a": 1}], "notes": {"b": 1, "b": 2}}',
        b'{"record": {"a": 1}, "notes": {"b": 1, "b": 2}}',
    ],
    ids=["after-records", "after-one-record"],
)
def test_a_key_twice_outside_every_record_names_the_file(raw):
    with pytest.raises(DatasetError, match="'b' appears twice in one object of the file"):
        read_dataset(raw)
