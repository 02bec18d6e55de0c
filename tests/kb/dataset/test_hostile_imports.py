"""Hostile dataset files: refused with a message naming file, record and field, never a 500.

Each probe is a file the database would refuse (an integer past its column, a lone
surrogate, a NUL, a timestamp that overflows in conversion) or that breaks a naive
reader (deep nesting, huge numbers, a byte order mark, a file past the size limit).
Both ways in are tried: import_errors and the admin upload. import_errors also refuses,
at once, a path that is not a regular file: a pipe or a device it would wait on or read
differently the second time.
"""

import html
import io
import json
import os
import socket
import subprocess
import sys
import threading
import time
import tracemalloc
from contextlib import suppress
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError
from django.test import Client

from errorkb.kb.dataset import stream
from errorkb.kb.dataset.files import MAX_DATASET_BYTES, DatasetError, read_dataset
from errorkb.kb.dataset.import_export import dumps_dataset, export_dataset
from errorkb.kb.dataset.uploads import store_upload
from errorkb.kb.models import DatasetUpload, ErrorEntry
from errorkb.kb.record.validation import InvalidRecord, validate_record
from tests.builders import applies_to_row, import_records, make_record
from tests.kb.dataset.test_import_errors import run_import
from tests.kb.people import editor

pytestmark = pytest.mark.django_db

UPLOAD_URL = "/admin/kb/errorentry/upload/"
NO_SPAN = {"sourceCodeStart": None, "sourceCodeEnd": None}  # so lineNumber stands alone


def hostile(**overrides) -> dict:
    return make_record("Hostile record.", **overrides)


# (overrides of a valid record, the field the refusal names, words of the reason)
RECORD_PROBES = [
    ({"lineNumber": 10**30, **NO_SPAN}, "'lineNumber'", "between 0 and 2147483647"),
    ({"lineNumber": 2**63, **NO_SPAN}, "'lineNumber'", "between 0 and 2147483647"),
    ({"lineNumber": 2**31, **NO_SPAN}, "'lineNumber'", "between 0 and 2147483647"),
    ({"httpStatus": 10**30}, "'httpStatus'", "between 0 and 32767"),
    ({"httpStatus": 2**63}, "'httpStatus'", "between 0 and 32767"),
    ({"httpStatus": 40_000}, "'httpStatus'", "between 0 and 32767"),
    ({"sourceCodeEnd": 2**31}, "'sourceCodeEnd'", "between 0 and 2147483647"),
    (
        {"appliesTo": [applies_to_row(lineNumber=2**63)]},
        "'appliesTo[0].lineNumber'",
        "at most 2147483647",
    ),
    ({"errorMessage": "Bad \ud800 text."}, "'errorMessage'", "lone surrogate"),
    ({"documentation": "Nul \x00 inside."}, "'documentation'", "NUL character"),
    ({"solutions": ["Fine.", "\udfff"]}, "'solutions'", "lone surrogate"),
    ({"preventionTips": ["a\x00b"]}, "'preventionTips'", "NUL character"),
    ({"appliesTo": [applies_to_row(note="\ud800")]}, "'appliesTo[0].note'", "lone surrogate"),
    ({"appliesTo": [applies_to_row(seen="a\x00")]}, "'appliesTo[0].seen'", "NUL character"),
    ({"analyzedAt": "0001-01-01T00:00:00+01:00"}, "'analyzedAt'", "between"),
    ({"contentChangedAt": "9999-12-31T23:59:59-01:00"}, "'contentChangedAt'", "between"),
    ({"analyzedAt": "0001-01-01T00:00:00+00:00"}, "'analyzedAt'", "between"),
    ({"tags": ["rust", "t" * 65]}, "'tags'", "longer than 64"),
    ({"repo": f"{'o' * 101}/rocket"}, "'repo'", "owner is longer than 100"),
    ({"repo": f"acme/{'n' * 101}"}, "'repo'", "name is longer than 100"),
    ({"slug": "trailing-newline\n"}, "'slug'", "lowercase words"),
    ({"tags": ["rust\n"]}, "'tags'", "not a lowercase tag"),
]
RECORD_IDS = [
    "line-10e30",
    "line-2e63",
    "line-2e31",
    "http-10e30",
    "http-2e63",
    "http-smallint",
    "end-2e31",
    "applies-line-2e63",
    "surrogate-text",
    "nul-text",
    "surrogate-list",
    "nul-list",
    "surrogate-row",
    "nul-row",
    "year-1-plus-1h",
    "year-9999-minus-1h",
    "year-1-utc",
    "long-tag",
    "long-owner",
    "long-name",
    "slug-newline",
    "tag-newline",
]


def as_bytes(data) -> bytes:
    # ensure_ascii: a lone surrogate travels as the JSON escape "\ud800", as an attacker writes it.
    return json.dumps(data).encode()


@pytest.fixture
def existing():
    """One entry already there, to prove a refused file leaves the database alone."""
    import_records(make_record("Existing entry."))
    return dumps_dataset(export_dataset())


@pytest.fixture
def uploader():
    client = Client(raise_request_exception=False)
    client.force_login(editor())
    return client


def refused_by_command(tmp_path, raw: bytes, existing: str) -> str:
    path = tmp_path / "hostile.json"
    path.write_bytes(raw)
    with pytest.raises(CommandError) as caught:
        run_import(path)
    message = str(caught.value)
    assert str(path) in message, message
    assert dumps_dataset(export_dataset()) == existing
    return message


def refused_by_upload(client: Client, raw: bytes, existing: str) -> str:
    response = client.post(UPLOAD_URL, {"file": SimpleUploadedFile("hostile.json", raw)})
    assert response.status_code == 400, response.status_code
    assert not DatasetUpload.objects.exists()
    assert dumps_dataset(export_dataset()) == existing
    return html.unescape(response.content.decode())


@pytest.mark.parametrize(("overrides", "where", "why"), RECORD_PROBES, ids=RECORD_IDS)
def test_it_refuses_a_hostile_record_in_validation(overrides, where, why):
    record = hostile(**overrides)
    with pytest.raises(InvalidRecord) as caught:
        validate_record(record, index=3)
    message = str(caught.value)
    assert f"record {record['id']} (#3), field {where}" in message and why in message, message


@pytest.mark.parametrize(("overrides", "where", "why"), RECORD_PROBES, ids=RECORD_IDS)
def test_it_refuses_a_hostile_record_from_the_command(tmp_path, existing, overrides, where, why):
    record = hostile(**overrides)
    message = refused_by_command(tmp_path, as_bytes([record]), existing)
    assert record["id"] in message and where in message and why in message, message


@pytest.mark.parametrize(("overrides", "where", "why"), RECORD_PROBES, ids=RECORD_IDS)
def test_it_refuses_a_hostile_record_from_the_upload(uploader, existing, overrides, where, why):
    record = hostile(**overrides)
    page = refused_by_upload(uploader, as_bytes([record]), existing)
    assert f"record {record['id']} (#0), field {where}" in page and why in page, page


# Whole files that a reader must refuse before any record is looked at.
FILE_PROBES = [
    (b"[" * 100_000, "nested more than 64 levels deep"),
    (b'{"records": [' * 40 + b"]" * 40, "nested more than 64 levels deep"),
    (b"[" + b"1" * 5000 + b"]", "not valid JSON"),
    (b"[NaN]", "not valid JSON"),
    (b'{"records": [\xff]}', "not UTF-8"),
    (b'["\xed\xa0\x80"]', "not UTF-8"),  # a surrogate encoded as UTF-8 bytes
    (b" " * (MAX_DATASET_BYTES + 1), "larger than 20 MB"),
    (as_bytes({"datasetVersion": "v" * 41, "records": []}), "'datasetVersion'"),
    (as_bytes({"datasetVersion": "v\ud800", "records": []}), "'datasetVersion'"),
]
FILE_IDS = [
    "deep",
    "deep-records",
    "huge-number",
    "nan",
    "not-utf8",
    "utf8-surrogate",
    "too-large",
    "long-version",
    "surrogate-version",
]


@pytest.mark.parametrize(("raw", "why"), FILE_PROBES, ids=FILE_IDS)
def test_it_refuses_a_hostile_file_from_the_command(tmp_path, existing, settings, raw, why):
    settings.DATASET_FILE_MAX_MB = MAX_DATASET_BYTES // 2**20  # the upload's, for the probes
    assert why in refused_by_command(tmp_path, raw, existing)


@pytest.mark.parametrize(("raw", "why"), FILE_PROBES, ids=FILE_IDS)
def test_it_refuses_a_hostile_file_from_the_upload(uploader, existing, raw, why):
    assert why in refused_by_upload(uploader, raw, existing)


def test_it_names_a_record_by_index_when_its_id_cannot_be_shown(uploader, existing):
    # A label made of the raw id would carry the surrogate into the page and break it.
    record = hostile(id="\ud800")
    page = refused_by_upload(uploader, as_bytes([make_record("Fine."), record]), existing)
    assert "record #1, field 'id'" in page, page


def test_the_upload_keeps_only_the_printable_part_of_a_file_name():
    upload = store_upload("bad\x00na\ud800me.json", as_bytes([make_record()]), editor())
    assert DatasetUpload.objects.get(pk=upload.pk).file_name == "badname.json"


def test_the_command_accepts_a_file_that_starts_with_a_byte_order_mark(tmp_path):
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + as_bytes([make_record()]))
    assert "1 created" in run_import(path)


def test_the_command_reads_no_more_than_the_limit_of_a_huge_file(tmp_path, settings):
    # A sparse file of 256 MiB: refused after reading one byte past the limit, not loaded whole.
    settings.DATASET_FILE_MAX_MB = MAX_DATASET_BYTES // 2**20
    path = tmp_path / "huge.json"
    with path.open("wb") as file:
        file.truncate(2**28)
    tracemalloc.start()
    try:
        with pytest.raises(CommandError, match="larger than 20 MB"):
            run_import(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 2 * MAX_DATASET_BYTES, peak


def test_the_command_records_a_file_name_that_is_not_utf8(tmp_path):
    # Undecodable bytes in a name reach Python as lone surrogates; the revision must still save.
    path = tmp_path / "caf\udce9.json"
    path.write_bytes(as_bytes([make_record()]))
    assert "1 created" in run_import(path)
    assert ErrorEntry.objects.count() == 1


@pytest.mark.parametrize("key", ["tags", "related"])
def test_it_refuses_more_items_than_a_position_column_counts(key):
    # Tags and related links are stored at their position, a small integer column.
    items = [f"t{n}" for n in range(32_769)]
    if key == "related":
        items = [f"{n:016x}" for n in range(1, 32_770)]
    with pytest.raises(InvalidRecord, match=f"field '{key}': lists more than 32768 items"):
        validate_record(hostile(**{key: items}), index=0)


@pytest.mark.parametrize(
    ("text", "deep"),
    [
        ("[" * 64 + "]" * 64, False),
        ("[" * 65 + "]" * 65, True),
        ('["' + "[" * 100 + '"]', False),
        ('["\\"' + "[" * 100 + '", "]]"]', False),
        ('["\\\\", ' + "[" * 70 + "]" * 70 + "]", True),
    ],
)
def test_it_counts_nesting_outside_strings_only(text, deep):
    # Every one is refused (no item is a record); only real nesting past 64 as too deep.
    with pytest.raises(DatasetError) as caught:
        read_dataset(text.encode())
    assert ("nested more than 64 levels deep" in str(caught.value)) == deep, caught.value


def test_it_refuses_a_file_of_quotes_and_backslashes_in_linear_time():
    # Each quote opens a string that never closes: a scan that backtracked would retry
    # from every one of them, for hours on a file this size.
    started = time.monotonic()
    with pytest.raises(DatasetError, match="not valid JSON"):
        read_dataset(b'"\\' * (MAX_DATASET_BYTES // 2))
    assert time.monotonic() - started < 30


class _Reads(io.BytesIO):
    """Bytes that remember how many were asked for at each read."""

    def __init__(self, raw: bytes, asked: list):
        super().__init__(raw)
        self.asked = asked

    def read(self, size=-1):
        self.asked.append(size)
        return super().read(size)


def test_a_string_over_many_chunks_is_read_in_doubling_chunks_and_the_rest_as_before():
    # yajl lexes a token spanning chunks again from its start at every chunk: with reads
    # of one size, a long string costs the square of its length.
    chunk = stream.CHUNK
    raw = b'["' + b"x" * (20 * chunk) + b'", 1, 2]'
    asked = []
    layout = stream.scan(lambda: _Reads(raw, asked), limit=10 * len(raw))
    # The first read ends on the string's start; the sixth holds its end and the rest.
    assert asked == [chunk, chunk, 2 * chunk, 4 * chunk, 8 * chunk, 16 * chunk, chunk]
    assert layout.chunk == 16 * chunk  # the second reading reads as wide
    records = stream.raw_records(io.BytesIO(raw), "item", layout, limit=10 * len(raw))
    assert list(records) == ["x" * (20 * chunk), 1, 2]


def named_pipe(folder: Path) -> Path:
    path = folder / "records.json"
    os.mkfifo(path)
    return path


def unix_socket(folder: Path) -> Path:
    path = folder / "records.json"
    with socket.socket(socket.AF_UNIX) as listener:
        listener.bind(str(path))  # the socket's file outlives it
    return path


NOT_REGULAR_FILES = {
    "named-pipe": (named_pipe, "it is a named pipe, not a regular file"),
    "character-device": (lambda _: Path("/dev/null"), "it is a character device, not a regular"),
    "socket": (unix_socket, "it is a socket, not a regular file"),
    "directory": (lambda folder: folder, "it is a directory, not a regular file"),
}


def _open_and_close_for_writing(pipe: Path) -> None:
    # Without blocking: no reader waiting (the command refused it) is no error to report.
    with suppress(OSError):
        os.close(os.open(pipe, os.O_WRONLY | os.O_NONBLOCK))


@pytest.mark.parametrize(("make", "why"), NOT_REGULAR_FILES.values(), ids=NOT_REGULAR_FILES.keys())
def test_the_command_refuses_at_once_what_is_not_a_regular_file(tmp_path, existing, make, why):
    path = make(tmp_path)
    # A command that opened a named pipe to read it would wait for a writer for ever: one
    # comes, late, to end such a wait, which then ends in another refusal than this one.
    rescue = threading.Timer(60, _open_and_close_for_writing, [path])
    rescue.daemon = True
    rescue.start()
    try:
        with pytest.raises(CommandError) as caught:
            run_import(path)
    finally:
        rescue.cancel()
    assert str(caught.value).startswith(f"{path}: {why}"), caught.value
    assert dumps_dataset(export_dataset()) == existing


def test_the_command_refuses_its_standard_input_as_a_pipe_not_as_a_changed_file():
    # The production recipe's probe: `... | import_errors /dev/stdin` was refused as "the
    # file changed while it was imported" after reading the pipe once.
    result = subprocess.run(
        [sys.executable, "manage.py", "import_errors", "/dev/stdin"],
        cwd=Path(__file__).resolve().parents[3],
        env={**os.environ, "DEBUG": "1"},
        input=as_bytes([make_record()]),
        capture_output=True,
        timeout=120,
    )
    assert result.returncode == 1, result
    assert b"/dev/stdin: it is a named pipe, not a regular file" in result.stderr, result.stderr
    assert b"changed" not in result.stderr
