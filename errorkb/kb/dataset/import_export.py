"""Import and export of whole datasets: validated first, written in one transaction."""

import hashlib
import json
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from typing import Any

from django.db import transaction

from ..models import ErrorEntry, Repository
from ..record.schema import (
    APPLIES_TO_KEY,
    FIRES_AT_KEY,
    RAISED_IN_KEY,
    RELATED_KEY,
    REMOVED_KEY,
    SEED_FIELDS,
    STATUS_KEY,
    SUMMARY_KEY,
    stored_record,
    to_record,
)
from ..record.validation import CleanRecord, InvalidRecord
from ..signals import TEXT_FIELDS, gathering_text_changes, texts_changed
from . import bulk_writes
from .files import Dataset, RecordKey

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
    Set-based: a few queries and a few bulk writes per batch of records, never one per
    record; unchanged entries are not written at all. The entries whose message or
    pattern it changed are said once, at its end, inside its transaction (signals.py).
    """
    keys = dataset.keys
    with transaction.atomic(), gathering_text_changes(ErrorEntry):
        _check_against_database(keys)
        repositories = _repositories({key.repo for key in keys})
        tags = bulk_writes.tags_named({name for key in keys for name in key.tags})
        revision = bulk_writes.BulkRevision(user)
        result = ImportResult()
        statistics = bulk_writes.AnalyzeOnGrowth()
        # The checked records are read back from their spool a chunk at a time.
        for chunk in bulk_writes.chunks(dataset.records):
            batch = _Batch(dataset.version, repositories, tags)
            for record, entry in _with_entries(chunk):
                outcome = batch.add(record, entry)
                setattr(result, outcome, getattr(result, outcome) + 1)
            batch.write(revision, statistics)
        where = f" from {source}" if source else ""
        revision.finish(f"Imported dataset {dataset.version}{where}: {result}")
    return result


class _Batch:
    """The records of one chunk that change the knowledge base, as entries to write."""

    def __init__(self, dataset_version: str, repositories: dict, tags: dict):
        self.dataset_version = dataset_version
        self.repositories = repositories
        self.tags = tags
        self.created: list[ErrorEntry] = []
        self.updated: list[ErrorEntry] = []
        self.bases: dict[str, int] = {}  # each updated entry's edit version, to claim
        self.fields: set[str] = set()  # what the updated entries change
        self.texts_changed: set[str] = set()  # updated entries with a new message or pattern
        self.tag_lists: dict[str, list] = {}
        self.related: dict[str, list[str]] = {}

    def add(self, record: CleanRecord, entry: ErrorEntry | None) -> str:
        if entry is not None and not _changed_keys(entry, record):
            return "unchanged"
        if entry is None:
            entry = ErrorEntry(id=record.id)
            self.created.append(entry)
        else:
            # A change of an entry that exists claims its version: an import that lands
            # while a curator edits makes the curator's save conflict.
            self.bases[entry.pk] = entry.edit_version
            self.updated.append(entry)
        values = {
            **record.values,
            "repository": self.repositories[record.repo],
            "status": record.status,
            "dataset_version": self.dataset_version,
        }
        for attr, value in values.items():
            if entry.pk in self.bases and getattr(entry, attr) != value:
                self.fields.add(attr)
                if attr in TEXT_FIELDS:
                    self.texts_changed.add(entry.pk)
            setattr(entry, attr, value)
        self.tag_lists[entry.pk] = [self.tags[name] for name in record.tags]
        self.related[entry.pk] = record.related
        return "updated" if entry.pk in self.bases else "created"

    def write(
        self, revision: bulk_writes.BulkRevision, statistics: bulk_writes.AnalyzeOnGrowth
    ) -> None:
        # Related entries may come later in the file: the links' keys are checked when
        # the transaction commits.
        bulk_writes.claim_many(self.bases)
        bulk_writes.save_many(
            self.created,
            self.updated,
            self.fields,
            tags=self.tag_lists,
            related=self.related,
            revision=revision,
            statistics=statistics,
        )
        # Their states are judged against these texts: said as editing.change says it.
        texts_changed(ErrorEntry, self.texts_changed)


def plan_import(dataset: Dataset) -> list[PlannedChange]:
    """What import_dataset would do, record by record, refused the same way; writes nothing."""
    _check_against_database(dataset.keys)
    return [
        _plan(record, entry)
        for chunk in bulk_writes.chunks(dataset.records)
        for record, entry in _with_entries(chunk)
    ]


def _with_entries(records: list[CleanRecord]) -> Iterator[tuple[CleanRecord, ErrorEntry | None]]:
    """Each record with the stored entry of its id, or None: three queries for the chunk."""
    entries = (
        ErrorEntry.objects.with_tags()
        .prefetch_related("outgoing_links")
        .in_bulk([record.id for record in records])
    )
    for record in records:
        yield record, entries.get(record.id)


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


def _check_against_database(keys: list[RecordKey]) -> None:
    """Refuse the first record, in file order, that links to an entry that does not exist
    or takes a slug another entry of its repository holds: a few queries for any number."""
    incoming = {key.id for key in keys}
    wanted = sorted({target for key in keys for target in key.related} - incoming)
    known = set(incoming)
    for chunk in bulk_writes.chunks(wanted):
        known.update(ErrorEntry.objects.filter(id__in=chunk).values_list("id", flat=True))
    taken = _slugs_taken(keys, incoming)
    for key in keys:
        missing = [target for target in key.related if target not in known]
        if missing:
            raise InvalidRecord(key.id, "related", f"unknown entry {missing[0]!r}")
        other = taken.get((key.repo, key.slug))
        if other is not None:
            raise InvalidRecord(key.id, "slug", f"already used by entry {other}")


def _slugs_taken(keys: list[RecordKey], incoming: set[str]) -> dict[tuple[str, str], str]:
    """(repository, slug) of the records, to the entry outside the file that holds it."""
    names = {repo.pk: repo.full_name for repo in _existing_repositories({k.repo for k in keys})}
    wanted = {(key.repo, key.slug) for key in keys}
    taken = {}
    if not names:
        return {}  # every repository is new: nothing holds their slugs
    for chunk in bulk_writes.chunks(sorted({slug for _repo, slug in wanted})):
        rows = ErrorEntry.objects.filter(slug__in=chunk)
        if len(names) <= len(chunk):  # both lists within the variable limit
            rows = rows.filter(repository_id__in=list(names))
        for repository_id, slug, entry_id in rows.values_list("repository_id", "slug", "id"):
            key = (names.get(repository_id), slug)
            if key in wanted and entry_id not in incoming:
                taken[key] = entry_id
    return taken


def _changed_keys(entry: ErrorEntry, record: CleanRecord) -> list[str]:
    """The record keys whose value differs from the entry's, in record order."""
    current = to_record(entry)
    incoming = {**record.values, "repo": record.repo, "tags": record.tags}
    changed = []
    for attr, key in SEED_FIELDS:
        if attr == "id":
            continue
        # Compare model values, not formatted ones: a timestamp is equal however it is written.
        ours = current[key] if attr in ("repo", "tags") else getattr(entry, attr)
        if ours != incoming[attr]:
            changed.append(key)
    if entry.summary != record.values["summary"]:
        changed.append(SUMMARY_KEY)
    if current[RELATED_KEY] != record.related:
        changed.append(RELATED_KEY)
    if entry.status != record.status:
        changed.append(STATUS_KEY)
    for key, attr in ((APPLIES_TO_KEY, "applies_to"), (FIRES_AT_KEY, "fires_at"), *UPSTREAM_KEYS):
        if getattr(entry, attr) != record.values[attr]:
            changed.append(key)
    return changed


def _existing_repositories(full_names: set[str]) -> list[Repository]:
    names = sorted({full_name.split("/")[1] for full_name in full_names})
    found = []
    for chunk in bulk_writes.chunks(names):
        found += [r for r in Repository.objects.filter(name__in=chunk) if r.full_name in full_names]
    return found


def _repositories(full_names: set[str]) -> dict[str, Repository]:
    """The repositories of these names, those missing created."""
    found = {repo.full_name: repo for repo in _existing_repositories(full_names)}
    missing = []
    for full_name in sorted(full_names - found.keys()):
        owner, name = full_name.split("/")
        missing.append(Repository(owner=owner, name=name, url=f"https://github.com/{owner}/{name}"))
    Repository.objects.bulk_create(missing)
    if any(repo.pk is None for repo in missing):  # a database that returns no ids
        return {repo.full_name: repo for repo in _existing_repositories(full_names)}
    return found | {repo.full_name: repo for repo in missing}


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
