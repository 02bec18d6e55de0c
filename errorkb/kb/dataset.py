"""Import and export of whole datasets: validated first, written in one transaction."""

import hashlib
import json
from dataclasses import asdict, dataclass, field
from typing import Any

import reversion

from . import editing
from .dataset_files import Dataset
from .models import ErrorEntry, Repository
from .records import (
    APPLIES_TO_KEY,
    FIELDS,
    RAISED_IN_KEY,
    RELATED_KEY,
    REMOVED_KEY,
    STATUS_KEY,
    stored_record,
    to_record,
)
from .validation import CleanRecord, RecordError

# The scanner's keys, beside appliesTo: record key, entry attribute.
UPSTREAM_KEYS = ((RAISED_IN_KEY, "raised_in"), (REMOVED_KEY, "removed_upstream"))


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


def import_dataset(dataset: Dataset, *, user=None, source: str = "") -> ImportResult:
    """Create or update every entry of the dataset, all or nothing, as one revision.

    The dataset is authoritative: its contentChangedAt and status are taken as they are.
    """
    with reversion.create_revision():  # one transaction, as well as one revision
        _check_against_database(dataset.records)
        result = ImportResult()
        for record in dataset.records:
            outcome = _upsert_entry(record, dataset.version, user)
            setattr(result, outcome, getattr(result, outcome) + 1)
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


def _upsert_entry(record: CleanRecord, dataset_version: str, user) -> str:
    entry = ErrorEntry.objects.for_record().filter(id=record.id).first()
    if entry is not None and not _changed_keys(entry, record):
        return "unchanged"
    outcome = "created" if entry is None else "updated"
    entry = entry or ErrorEntry(id=record.id)
    # A change of an entry that exists claims its version: an import that lands while a
    # curator edits makes the curator's save conflict. Related entries may come later
    # in the file; the links' keys are checked when the transaction commits.
    with editing.change(entry, user, comment="Imported", stamp=False):
        for attr, value in record.values.items():
            setattr(entry, attr, value)
        entry.repository = _repository(record.repo)
        entry.status = record.status
        entry.dataset_version = dataset_version
        entry.save()
        editing.set_tags(entry, record.tags)
        editing.set_related(entry, record.related)
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
    for key, attr in ((APPLIES_TO_KEY, "applies_to"), *UPSTREAM_KEYS):
        if getattr(entry, attr) != record.values[attr]:
            changed.append(key)
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
        records.append(stored_record(entry))
        versions.append(entry.dataset_version)
    return {"datasetVersion": max(versions, default=None), "records": records}


def dumps_dataset(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
