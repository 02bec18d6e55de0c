"""One reader for dataset files, for the command and the upload alike: bytes to a valid Dataset.

Bounded before it parses (size, nesting depth), strict JSON, and every record validated
with the field named in the refusal.
"""

import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from itertools import accumulate
from pathlib import Path
from typing import Any

from django.conf import settings

from .models import ErrorEntry
from .records import format_timestamp
from .storable import text_error
from .validation import CleanRecord, RecordError, validate_record

# Twenty times the whole demo dataset: the most an upload through the admin may hold
# (it is kept in the database). Files read from disk by import_errors may hold more, up
# to settings.DATASET_FILE_MAX_MB: 100,000 records of about 2 KB are over 200 MB.
MAX_DATASET_BYTES = 20 * 1024 * 1024
# A dump nests four levels (file, records, record, appliesTo row). Far deeper is no
# dataset, and json.loads recurses once per level: refused before it is called.
MAX_DATASET_DEPTH = 64
DATASET_VERSION_LENGTH = ErrorEntry._meta.get_field("dataset_version").max_length

# A JSON string, escapes included: the brackets inside one nest nothing. An unterminated
# one runs to the end, and nothing backtracks (*+), so every quote is looked at once: a
# pattern that could fail would be retried at each later quote, quadratic in the file.
_JSON_STRING_RE = re.compile(r'"[^"\\]*+(?:\\.[^"\\]*+)*+(?:"|\\?\Z)', re.DOTALL)
_NOT_A_BRACKET_RE = re.compile(r"[^\[\]{}]+")
_NESTING = {"[": 1, "{": 1, "]": -1, "}": -1}


class DatasetError(ValueError):
    """A dataset file that cannot be imported as a whole."""


@dataclass
class Dataset:
    records: list[CleanRecord]
    version: str


def read_dataset_file(path: str | Path) -> Dataset:
    """A dataset file on disk, read as read_dataset reads bytes; never read past the limit.

    The limit is settings.DATASET_FILE_MAX_MB, not the upload's.
    """
    limit = settings.DATASET_FILE_MAX_MB * 2**20
    try:
        with open(path, "rb") as file:
            raw = file.read(limit + 1)
    except OSError as exc:
        raise DatasetError(f"cannot read: {exc.strerror}") from exc
    content = decode_dataset(raw, limit=limit)
    del raw  # a file of hundreds of megabytes: its bytes go before its records come
    return load_dataset(content)


def read_dataset(raw: bytes) -> Dataset:
    """A dataset file's bytes decoded, parsed and validated; the one reader for every way in.

    Raises DatasetError, worded for whoever sent the file; for a bad record it names the
    record and the field.
    """
    return load_dataset(decode_dataset(raw))


def decode_dataset(raw: bytes, *, limit: int = MAX_DATASET_BYTES) -> str:
    """The file's text: at most limit bytes of UTF-8, with or without a byte order mark."""
    if len(raw) > limit:
        raise DatasetError(f"the file is larger than {limit // 2**20} MB")
    try:
        # utf-8-sig: a byte order mark, as some editors write, is not part of the JSON.
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DatasetError(f"the file is not UTF-8 text (bad byte at offset {exc.start})") from None


def load_dataset(content: str) -> Dataset:
    """Decoded file text parsed as strict JSON, bounded in depth, and every record validated."""
    too_deep = f"the file is not valid JSON: it is nested more than {MAX_DATASET_DEPTH} levels deep"
    if nesting_depth(content) > MAX_DATASET_DEPTH:
        raise DatasetError(too_deep)
    try:
        data = json.loads(content, parse_constant=_refuse_constant)
    except RecursionError:  # not reached past the depth check; kept so it can never escape
        raise DatasetError(too_deep) from None
    except json.JSONDecodeError as exc:
        raise DatasetError(f"the file is not valid JSON: {exc}") from None
    except ValueError:
        # json.loads takes NaN and Infinity, and Python refuses integers of over 4300
        # digits; no field of a record could hold either.
        raise DatasetError(
            "the file is not valid JSON: it holds NaN, Infinity or a number too long to read"
        ) from None
    try:
        return parse_dataset(data, consume=True)
    except RecordError as exc:
        raise DatasetError(str(exc)) from exc


def nesting_depth(content: str) -> int:
    """How deep the JSON text's arrays and objects nest, found without recursing."""
    brackets = _NOT_A_BRACKET_RE.sub("", _JSON_STRING_RE.sub("", content))
    return max(accumulate(map(_NESTING.__getitem__, brackets)), default=0)


def _refuse_constant(name: str):
    raise ValueError(f"{name} is not JSON")


def parse_dataset(data: Any, *, consume: bool = False) -> Dataset:
    """Validate every record of a decoded file: an API response, a list, or an export dump.

    consume: the decoded data is the reader's own, and each record's object is let go
    once it is validated (its values live on in the clean record), so a big file is not
    held twice over.
    """
    raw_records, version = _unwrap(data)
    records = []
    for i in range(len(raw_records)):
        records.append(validate_record(raw_records[i], index=i))
        if consume:
            raw_records[i] = None
    _check_unique(records)
    # "" is a version too: entries no dataset brought in (drafted by a scan, made in the
    # admin) export it, and must import back with it.
    stamp = format_timestamp(datetime.now(UTC)) if version is None else version
    return Dataset(records=records, version=stamp)


def _unwrap(data: Any) -> tuple[list, str | None]:
    if isinstance(data, list):
        return data, None
    if not isinstance(data, dict):
        raise DatasetError("expected a JSON object or array at the top level")
    if "record" in data:
        raw = [data["record"]]
    elif "records" in data:
        raw = data["records"]
        if not isinstance(raw, list):
            raise DatasetError("'records' must be an array")
    else:
        raise DatasetError("expected a 'record' or 'records' key, or an array of records")
    version = data.get("datasetVersion")
    if version is not None and not isinstance(version, str):
        raise DatasetError("'datasetVersion' must be a string")
    if version is not None:
        _check_version(version)
    return raw, version


def _check_version(version: str) -> None:
    # Every entry the file writes stores it.
    if len(version) > DATASET_VERSION_LENGTH:
        raise DatasetError(f"'datasetVersion' is longer than {DATASET_VERSION_LENGTH} characters")
    reason = text_error(version)
    if reason:
        raise DatasetError(f"'datasetVersion' {reason}")


def _check_unique(records: list[CleanRecord]) -> None:
    seen_ids: set[str] = set()
    seen_slugs: set[tuple[str, str]] = set()
    for record in records:
        if record.id in seen_ids:
            raise RecordError(record.id, "id", "appears twice in this file")
        slug = (record.repo, record.values["slug"])
        if slug in seen_slugs:
            raise RecordError(record.id, "slug", f"{slug[1]!r} is used twice in {record.repo}")
        seen_ids.add(record.id)
        seen_slugs.add(slug)
