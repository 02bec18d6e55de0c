"""Import and export of whole datasets: validated first, written in one transaction."""

import hashlib
import json
import re
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from itertools import accumulate
from pathlib import Path
from typing import Any

import reversion

from .curation import claim_edit, set_related, set_tags
from .models import ErrorEntry, Repository
from .records import APPLIES_TO_KEY, FIELDS, RELATED_KEY, STATUS_KEY, format_timestamp, to_record
from .storable import text_error
from .validation import CleanRecord, RecordError, validate_record

# Twenty times the whole demo dataset; a file past this is a mistake, not a dataset.
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


@dataclass
class ImportResult:
    created: int = 0
    updated: int = 0
    unchanged: int = 0

    def __str__(self) -> str:
        return f"{self.created} created, {self.updated} updated, {self.unchanged} unchanged"


@dataclass
class PlannedChange:
    """What importing one record would do to the knowledge base."""

    entry_id: str
    error_message: str
    action: str  # created | updated | unchanged, as ImportResult counts them
    changed: list[str] = field(default_factory=list)  # record keys, in record order
    # The entry's edit version when planned: an edit in between changes the plan's digest
    # even when it leaves the same keys to change.
    base_version: int | None = None


def read_dataset_file(path: str | Path) -> Dataset:
    """A dataset file on disk, read as read_dataset reads bytes; never read past the limit."""
    try:
        with open(path, "rb") as file:
            raw = file.read(MAX_DATASET_BYTES + 1)
    except OSError as exc:
        raise DatasetError(f"cannot read: {exc.strerror}") from exc
    return read_dataset(raw)


def read_dataset(raw: bytes) -> Dataset:
    """A dataset file's bytes decoded, parsed and validated; the one reader for every way in.

    Raises DatasetError, worded for whoever sent the file; for a bad record it names the
    record and the field.
    """
    return load_dataset(decode_dataset(raw))


def decode_dataset(raw: bytes) -> str:
    """The file's text: at most MAX_DATASET_BYTES of UTF-8, with or without a byte order mark."""
    if len(raw) > MAX_DATASET_BYTES:
        raise DatasetError(f"the file is larger than {MAX_DATASET_BYTES // 2**20} MB")
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
        return parse_dataset(data)
    except RecordError as exc:
        raise DatasetError(str(exc)) from exc


def nesting_depth(content: str) -> int:
    """How deep the JSON text's arrays and objects nest, found without recursing."""
    brackets = _NOT_A_BRACKET_RE.sub("", _JSON_STRING_RE.sub("", content))
    return max(accumulate(map(_NESTING.__getitem__, brackets)), default=0)


def _refuse_constant(name: str):
    raise ValueError(f"{name} is not JSON")


def parse_dataset(data: Any) -> Dataset:
    """Validate every record of a decoded file: an API response, a list, or an export dump."""
    raw_records, version = _unwrap(data)
    records = [validate_record(item, index=i) for i, item in enumerate(raw_records)]
    _check_unique(records)
    return Dataset(records=records, version=version or format_timestamp(datetime.now(UTC)))


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


def import_dataset(dataset: Dataset, *, user=None, source: str = "") -> ImportResult:
    """Create or update every entry of the dataset, all or nothing, as one revision.

    The dataset is authoritative: its contentChangedAt and status are taken as they are.
    """
    with reversion.create_revision():  # one transaction, as well as one revision
        _check_against_database(dataset.records)
        result = ImportResult()
        changed = []
        for record in dataset.records:
            outcome = _upsert_entry(record, dataset.version)
            setattr(result, outcome, getattr(result, outcome) + 1)
            if outcome != "unchanged":
                changed.append(record)
        for record in dataset.records:
            set_related(ErrorEntry(pk=record.id), record.related)
        # After tags and links are written, so that each revision holds them as saved.
        for entry in ErrorEntry.objects.filter(pk__in=[r.id for r in changed]):
            reversion.add_to_revision(entry)
        reversion.set_user(user)
        where = f" from {source}" if source else ""
        reversion.set_comment(f"Imported dataset {dataset.version}{where}: {result}")
    return result


def plan_import(dataset: Dataset) -> list[PlannedChange]:
    """What import_dataset would do, record by record, refused the same way; writes nothing."""
    _check_against_database(dataset.records)
    entries = ErrorEntry.objects.for_record().in_bulk([r.id for r in dataset.records])
    return [_plan(record, entries.get(record.id)) for record in dataset.records]


def _plan(record: CleanRecord, entry: ErrorEntry | None) -> PlannedChange:
    message = record.values["error_message"]
    if entry is None:
        return PlannedChange(record.id, message, "created")
    changed = _changed_keys(entry, record)
    action = "updated" if changed else "unchanged"
    return PlannedChange(record.id, message, action, changed, base_version=entry.edit_version)


def plan_digest(plan: list[PlannedChange]) -> str:
    """A fingerprint of the plan: applying checks it to refuse a preview gone stale."""
    data = json.dumps([asdict(change) for change in plan], sort_keys=True)
    return hashlib.sha256(data.encode()).hexdigest()


def _check_against_database(records: list[CleanRecord]) -> None:
    incoming = {r.id for r in records}
    wanted = {target for r in records for target in r.related} - incoming
    existing = set(ErrorEntry.objects.filter(id__in=wanted).values_list("id", flat=True))
    for record in records:
        missing = [target for target in record.related if target not in incoming | existing]
        if missing:
            raise RecordError(record.id, "related", f"unknown entry {missing[0]!r}")
        owner, name = record.repo.split("/")
        taken = (
            ErrorEntry.objects.filter(repository__owner=owner, repository__name=name)
            .filter(slug=record.values["slug"])
            .exclude(id=record.id)
            .exclude(id__in=incoming)
        )
        if taken.exists():
            raise RecordError(record.id, "slug", f"already used by entry {taken[0].id}")


def _upsert_entry(record: CleanRecord, dataset_version: str) -> str:
    repository = _repository(record.repo)
    entry = ErrorEntry.objects.for_record().filter(id=record.id).first()
    if entry is not None and not _changed_keys(entry, record):
        return "unchanged"
    outcome = "created" if entry is None else "updated"
    if entry is None:
        entry = ErrorEntry(id=record.id)
    else:
        # An import that lands while a curator edits makes the curator's save conflict.
        entry.edit_version = claim_edit(entry.pk, entry.edit_version)
    for attr, value in record.values.items():
        setattr(entry, attr, value)
    entry.repository = repository
    entry.status = record.status
    entry.dataset_version = dataset_version
    entry.save()
    set_tags(entry, record.tags)
    return outcome


def _changed_keys(entry: ErrorEntry, record: CleanRecord) -> list[str]:
    """The record keys whose value differs from the entry's, in record order."""
    current = to_record(entry)
    incoming = {**record.values, "repo": record.repo, "tags": record.tags}
    changed = []
    for f in FIELDS:
        if f.key == "id":
            continue
        # Compare model values, not formatted ones: a timestamp is equal however it is written.
        ours = current[f.key] if f.key in ("repo", "tags") else getattr(entry, f.attr)
        if ours != incoming[f.attr]:
            changed.append(f.key)
    if current[RELATED_KEY] != record.related:
        changed.append(RELATED_KEY)
    if entry.status != record.status:
        changed.append(STATUS_KEY)
    if entry.applies_to != record.values["applies_to"]:
        changed.append(APPLIES_TO_KEY)
    return changed


def _repository(full_name: str) -> Repository:
    owner, name = full_name.split("/")
    repository, _ = Repository.objects.get_or_create(
        owner=owner, name=name, defaults={"url": f"https://github.com/{owner}/{name}"}
    )
    return repository


def export_dataset(entries=None) -> dict[str, Any]:
    """Entries (every one by default), any status, as {"datasetVersion", "records"}, by id."""
    entries = (ErrorEntry.objects.all() if entries is None else entries).for_record().order_by("id")
    records = []
    versions = []
    for entry in entries:
        records.append(to_record(entry, with_status=True))
        versions.append(entry.dataset_version)
    return {"datasetVersion": max(versions, default=None), "records": records}


def dumps_dataset(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
