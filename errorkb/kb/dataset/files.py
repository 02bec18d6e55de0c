"""One reader for dataset files, for the command and the upload alike: bytes to a valid Dataset.

Bounded as it parses (size, nesting depth), strict JSON, and every record validated
with the field named in the refusal. The file is read as a stream (stream.py), so
a file of any size holds little memory: a scan bounds it and finds its records, then a
second reading validates each record, keeps a few keys of each, and spools the validated
records to a temporary file, from which the Dataset's records are read back whenever
they are iterated. The writes take exactly the records that were checked: the file is
not parsed or validated a third time, and a change to it after its reading is not seen.
"""

import io
import json
import os
import pickle
import stat
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, BinaryIO, NamedTuple

from django.conf import settings

from ..models import ErrorEntry
from ..record.database_limits import text_error
from ..record.schema import format_timestamp
from ..record.validation import CleanRecord, InvalidRecord, validate_record
from .stream import ARRAY, DatasetError, Layout, raw_records, scan, too_large
from .stream import MAX_DATASET_DEPTH as MAX_DATASET_DEPTH

# Twenty times the whole demo dataset: the most an upload through the admin may hold
# (it is kept in the database). Files read from disk by import_errors may hold more, up
# to settings.DATASET_FILE_MAX_MB: 100,000 records of about 2 KB are over 200 MB.
MAX_DATASET_BYTES = 20 * 1024 * 1024
DATASET_VERSION_LENGTH = ErrorEntry._meta.get_field("dataset_version").max_length
# What a refusal calls each kind of file that is not a regular one.
NOT_REGULAR = {
    stat.S_IFIFO: "a named pipe",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFSOCK: "a socket",
    stat.S_IFDIR: "a directory",
}


class RecordKey(NamedTuple):
    """What the checks against the database and the writes need to know of a record first."""

    id: str
    repo: str
    slug: str
    related: tuple[str, ...]
    tags: tuple[str, ...]


class Records:
    """A file's validated records, in file order, read back one at a time on each iteration
    from the temporary file they were spooled to as they were checked."""

    def __init__(self, spool: BinaryIO, keys: list[RecordKey]):
        self.spool = spool  # pickled CleanRecords, one after another; this process wrote them
        self.keys = keys

    def __len__(self) -> int:
        return len(self.keys)

    def __iter__(self) -> Iterator[CleanRecord]:
        # Each iteration keeps its own place: two may be under way at once.
        position = 0
        for _ in self.keys:
            self.spool.seek(position)
            record = pickle.load(self.spool)
            position = self.spool.tell()
            yield record


@dataclass
class Dataset:
    records: Records
    version: str

    @property
    def keys(self) -> list[RecordKey]:
        return self.records.keys


@dataclass
class _Source:
    open: Callable[[], BinaryIO]
    limit: int
    layout: Layout
    prefix: str

    def values(self) -> Iterator[Any]:
        """The file's record objects, as parsed, in file order."""
        with self.open() as file:
            yield from raw_records(file, self.prefix, self.layout, limit=self.limit)


def read_dataset_file(path: str | Path) -> Dataset:
    """A dataset file on disk, read as read_dataset reads bytes; never read past the limit.

    The limit is settings.DATASET_FILE_MAX_MB, not the upload's.
    """
    limit = settings.DATASET_FILE_MAX_MB * 2**20
    try:
        return _refusing(lambda: _open_regular_file(path), limit)
    except OSError as exc:
        raise DatasetError(f"cannot read: {exc.strerror}") from exc


def _open_regular_file(path: str | Path) -> BinaryIO:
    """path opened for reading; DatasetError at once when it is not a regular file.

    A dataset file is read twice, and a pipe, a terminal or a device gives its bytes once:
    the second reading would find other bytes, or wait for them for ever.
    """
    _refuse_unless_regular(os.stat(path))  # a socket cannot even be opened, only named
    # A plain open of a named pipe waits for a writer, for ever if none comes. What was
    # opened is asked again: the path may have changed since it was looked at.
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        _refuse_unless_regular(os.fstat(descriptor))
        return os.fdopen(descriptor, "rb")
    except BaseException:
        os.close(descriptor)
        raise


def _refuse_unless_regular(status: os.stat_result) -> None:
    if stat.S_ISREG(status.st_mode):
        return
    kind = NOT_REGULAR.get(stat.S_IFMT(status.st_mode), "something else")
    if stat.S_ISDIR(status.st_mode):
        raise DatasetError(f"it is {kind}, not a regular file")
    raise DatasetError(
        f"it is {kind}, not a regular file: a dataset file is read twice, "
        "which a stream cannot be; save what it gives to a file first"
    )


def read_dataset(raw: bytes) -> Dataset:
    """A dataset file's bytes parsed and validated; the single reader for every way in.

    Raises DatasetError, worded for whoever sent the file; for a bad record it names the
    record and the field.
    """
    if len(raw) > MAX_DATASET_BYTES:
        raise too_large(MAX_DATASET_BYTES)
    return _refusing(lambda: io.BytesIO(raw), MAX_DATASET_BYTES)


def decode_dataset(raw: bytes, *, limit: int = MAX_DATASET_BYTES) -> str:
    """The file's text: at most limit bytes of UTF-8, with or without a byte order mark."""
    if len(raw) > limit:
        raise too_large(limit)
    try:
        # utf-8-sig: a byte order mark, as some editors write, is not part of the JSON.
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DatasetError(f"the file is not UTF-8 text (bad byte at offset {exc.start})") from None


def load_dataset(content: str) -> Dataset:
    """Decoded file text parsed as strict JSON, bounded in depth, and every record validated."""
    return read_dataset(content.encode())


def parse_dataset(data: Any) -> Dataset:
    """Validate every record of decoded data: an API response, a list, or an export dump.

    Read as the file it would be, by the same reader. A bad record raises InvalidRecord.
    """
    raw = json.dumps(data).encode()  # ASCII: a lone surrogate stays the escape it came as
    return _read(lambda: io.BytesIO(raw), len(raw))


def _refusing(open_file: Callable[[], BinaryIO], limit: int) -> Dataset:
    try:
        return _read(open_file, limit)
    except InvalidRecord as exc:
        raise DatasetError(str(exc)) from exc


def _read(open_file: Callable[[], BinaryIO], limit: int) -> Dataset:
    layout = scan(open_file, limit=limit)
    prefix, version = _unwrap(layout)
    records = _validated(_Source(open_file, limit, layout, prefix))
    # "" is a version too: entries no dataset brought in (drafted by a scan, made in the
    # admin) export it, and must import back with it.
    stamp = format_timestamp(datetime.now(UTC)) if version is None else version
    return Dataset(records=records, version=stamp)


def _unwrap(layout: Layout) -> tuple[str, str | None]:
    """Where the records are, and the file's datasetVersion."""
    if layout.top == "start_array":
        return "item", None
    if layout.top != "start_map":
        raise DatasetError("expected a JSON object or array at the top level")
    keys = layout.keys
    if "record" in keys:
        prefix = "record"
    elif "records" in keys:
        if keys["records"] is not ARRAY:
            raise DatasetError("'records' must be an array")
        prefix = "records.item"
    else:
        raise DatasetError("expected a 'record' or 'records' key, or an array of records")
    version = keys.get("datasetVersion")
    if version is not None and not isinstance(version, str):
        raise DatasetError("'datasetVersion' must be a string")
    if version is not None:
        _check_version(version)
    return prefix, version


def _check_version(version: str) -> None:
    # Every entry the file writes stores it.
    if len(version) > DATASET_VERSION_LENGTH:
        raise DatasetError(f"'datasetVersion' is longer than {DATASET_VERSION_LENGTH} characters")
    reason = text_error(version)
    if reason:
        raise DatasetError(f"'datasetVersion' {reason}")


def _validated(source: _Source) -> Records:
    """Every record validated, each id and slug once in the file, and spooled as it is."""
    # Pickled to an anonymous temporary file: nothing else can open it, and reading a
    # record back is a fifth of what parsing and validating it again cost.
    spool = tempfile.TemporaryFile(prefix="errorkb-dataset-")
    try:
        keys = []
        seen_ids: set[str] = set()
        seen_slugs: set[tuple[str, str]] = set()
        names: dict[str, str] = {}  # one string for each repository and tag name
        for index, data in enumerate(source.values()):
            record = validate_record(data, index=index)
            key = _key(record, names)
            if key.id in seen_ids:
                raise InvalidRecord(key.id, "id", "appears twice in this file")
            if (key.repo, key.slug) in seen_slugs:
                raise InvalidRecord(key.id, "slug", f"{key.slug!r} is used twice in {key.repo}")
            seen_ids.add(key.id)
            seen_slugs.add((key.repo, key.slug))
            keys.append(key)
            pickle.dump(record, spool, pickle.HIGHEST_PROTOCOL)
    except BaseException:
        spool.close()
        raise
    return Records(spool, keys)


def _key(record: CleanRecord, names: dict[str, str]) -> RecordKey:
    def shared(name: str) -> str:
        return names.setdefault(name, name)

    tags = tuple(shared(tag) for tag in record.tags)
    slug = record.values["slug"]
    return RecordKey(record.id, shared(record.repo), slug, tuple(record.related), tags)
