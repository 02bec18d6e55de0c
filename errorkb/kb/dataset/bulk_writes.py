"""Changes to thousands of entries at once, for dataset imports: set-based, in batches.

What editing.change() does for one entry, done for many in a few queries a batch: edit
versions claimed (claim_many), rows written with bulk_create and bulk_update, tags and
links rewritten only where they differ, and everything in one django-reversion revision
written as it goes (BulkRevision). The caller holds the transaction.
"""

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from itertools import islice

from django.contrib.contenttypes.models import ContentType
from django.core import serializers
from django.core.serializers.json import DjangoJSONEncoder
from django.db import connection, router
from django.db.models import Case, F, IntegerField, Value, When
from django.utils import timezone
from reversion.models import Revision, Version

from ..changes import entries_changed
from ..editing import EditConflict
from ..models import EntryTag, ErrorEntry, RelatedLink, Tag
from . import copy_rows

# Rows a bulk write sends in one statement: PostgreSQL's CASE of a bulk UPDATE grows
# with the square of it; Django cuts both to SQLite's variable limit on its own.
BATCH = 1000
UPDATE_BATCH = 200


def claim_many(bases: dict[str, int]) -> None:
    """claim_edit for many entries at once: every version moves on, or EditConflict.

    bases maps entry ids to the edit version each change started from. The rows still at
    their base are locked, then moved on in one UPDATE; the first entry (in the dict's
    order) that moved on in between is refused, and the caller's transaction rolls back.
    """
    if not bases:
        return
    whens = [When(pk=pk, then=Value(version)) for pk, version in bases.items()]
    base = Case(*whens, output_field=IntegerField())
    still = ErrorEntry.objects.filter(pk__in=list(bases), edit_version=base).select_for_update()
    claimed = set(still.values_list("pk", flat=True))
    for entry_id, version in bases.items():
        if entry_id not in claimed:
            raise EditConflict(entry_id, version)
    ErrorEntry.objects.filter(pk__in=list(bases)).update(edit_version=F("edit_version") + 1)


def tags_named(names: set[str]) -> dict[str, Tag]:
    """The tags of these names, those missing created: a few queries for any number."""
    tags = {}
    for chunk in chunks(sorted(names)):
        tags.update((tag.name, tag) for tag in Tag.objects.filter(name__in=chunk))
    missing = [Tag(name=name) for name in sorted(names - tags.keys())]
    Tag.objects.bulk_create(missing)
    if any(tag.pk is None for tag in missing):  # a database that returns no ids
        for chunk in chunks([tag.name for tag in missing]):
            tags.update((tag.name, tag) for tag in Tag.objects.filter(name__in=chunk))
    else:
        tags.update((tag.name, tag) for tag in missing)
    return tags


def save_many(
    created: list[ErrorEntry],
    updated: list[ErrorEntry],
    fields: set[str],
    *,
    tags: dict[str, list[Tag]],
    related: dict[str, list[str]],
    revision: "BulkRevision",
    statistics: "AnalyzeOnGrowth | None" = None,
) -> None:
    """Write new and changed entries, their tags and their links in batches, into revision.

    What change() does for one entry, with set_content_changed_at=False: the caller set
    every value, and contentChangedAt stands; updated entries' versions were claimed
    (claim_many). fields names the attributes the updated entries change. tags and related
    give each entry's whole list; only lists that differ from the stored ones are
    rewritten. statistics, when given, hears of every row written. The caller says whose
    message or pattern it changed (signals.texts_changed), as change() does for its entry.
    """
    statistics = statistics or AnalyzeOnGrowth()
    new = {entry.pk for entry in created}
    entries = [*created, *updated]
    # Tags and links, then the entries: their keys are checked at commit, in any order.
    tag_rows = _replace_rows(entries, new, "entry_tags", EntryTag, "entry_id", tags, _tag_rows)
    link_rows = _replace_rows(
        entries, new, "outgoing_links", RelatedLink, "source_id", related, _link_rows
    )
    statistics.grew(tag_rows.written + link_rows.written)
    for entry in entries:  # what its search document reads of its tags
        entry.tags_text = " ".join(tag.name for tag in tags[entry.pk])
    # Changed entries first: a new one may take the slug a changed one gives up.
    now = timezone.now()
    for entry in updated:
        entry.updated_at = now
        entry.edit_version += 1  # as claim_many moved it
    if updated:
        ErrorEntry.objects.bulk_update(
            updated, [*sorted(fields), "tags_text", "updated_at"], batch_size=UPDATE_BATCH
        )
    copy_rows.insert(ErrorEntry, created)
    statistics.grew(len(entries))
    revision.add(entries, [tag_rows.kept, link_rows.kept])
    # A linked entry's page holds the versions of the entries linking to it.
    entries_changed(entry.pk for entry in entries)


def _tag_rows(entry: ErrorEntry, tags: list[Tag]) -> list[EntryTag]:
    return [EntryTag(entry_id=entry.pk, tag_id=tag.pk, position=i) for i, tag in enumerate(tags)]


def _link_rows(entry: ErrorEntry, targets: list[str]) -> list[RelatedLink]:
    return [RelatedLink(source_id=entry.pk, target_id=t, position=i) for i, t in enumerate(targets)]


@dataclass
class ReplacedRows:
    """Each entry's rows of one kind as they are now, and how many were written."""

    kept: dict[str, list] = field(default_factory=dict)
    written: int = 0


def _replace_rows(entries, new, related_name, model, key, wanted, make_rows) -> ReplacedRows:
    # The rows an entry keeps stay; those of a list that changed are deleted and written
    # anew. A stored entry came with its rows prefetched (dataset._with_entries), so this
    # reads none, and the revision is given each entry's rows as they are now.
    replaced, stale, rows = ReplacedRows(), [], []
    for entry in entries:
        current = None if entry.pk in new else list(getattr(entry, related_name).all())
        fresh = make_rows(entry, wanted[entry.pk])
        if current is not None and _same_rows(current, fresh, key):
            replaced.kept[entry.pk] = current
            continue
        if current is not None:
            stale.append(entry.pk)
        replaced.kept[entry.pk] = fresh
        rows.extend(fresh)
    for chunk in chunks(stale):
        model.objects.filter(**{f"{key}__in": chunk}).delete()
    copy_rows.insert(model, rows)
    replaced.written = len(rows)
    return replaced


def _same_rows(current: list, fresh: list, key: str) -> bool:
    other = "tag_id" if key == "entry_id" else "target_id"
    return [getattr(row, other) for row in current] == [getattr(row, other) for row in fresh]


class BulkRevision:
    """One django-reversion revision written a batch at a time, for imports of any size.

    reversion's revision in progress copies every version it holds on each add and keeps
    them all until the block ends: fine for a change, quadratic for 100,000 entries. This
    writes the same Revision and Version rows (an entry with its tags and links, as the
    entry's registration follows them), each batch as it comes, in the caller's
    transaction; no revision at all when nothing was added, as reversion does.
    """

    def __init__(self, user):
        self.user = user
        self.revision: Revision | None = None

    def add(self, entries: list[ErrorEntry], rows: list[dict[str, list]]) -> None:
        """The entries with their rows as they are now: each of `rows` maps an entry's id
        to its rows of one kind (its tags, its links), as the registration follows them."""
        objects = [
            obj
            for entry in entries
            for obj in (entry, *(row for kind in rows for row in kind[entry.pk]))
        ]
        if not objects:
            return
        if self.revision is None:
            self.revision = Revision.objects.create(
                user=self.user, comment="", date_created=timezone.now()
            )
        # Exactly what reversion would store: Django's JSON serializer's text, one object
        # each. Its JSON serializer takes these dicts from the Python one too, but writes
        # each through json's pure Python encoder: one json.dumps (C) a dict is half the time.
        dumped = serializers.get_serializer("python")().serialize(objects)
        # Each model's content type and database, asked once rather than once an object.
        kinds = {model: _kind(model) for model in {type(obj) for obj in objects}}
        rows = []
        for obj, data in zip(objects, dumped, strict=True):
            content_type, db = kinds[type(obj)]
            rows.append((self.revision.pk, content_type, str(obj.pk), db, "json",
                         _serialized(data), str(obj)))  # fmt: skip
        _insert_versions(rows)

    def finish(self, comment: str) -> None:
        if self.revision is not None:
            self.revision.comment = comment
            self.revision.save(update_fields=["comment"])


# A Version row's columns, as reversion's add_to_revision fills them with the
# registrations' defaults (kb/apps.py): every field, as JSON, keyed by pk.
VERSION_COLUMNS = ("revision_id", "content_type_id", "object_id", "db", "format")
VERSION_COLUMNS += ("serialized_data", "object_repr")


def _serialized(data: dict) -> str:
    # Byte for byte what serializers.serialize("json", [obj]) returns for the object.
    return "[" + json.dumps(data, cls=DjangoJSONEncoder, ensure_ascii=False) + "]"


def _kind(model) -> tuple[int, str]:
    """A model's content type and database, as its Version rows name them."""
    return ContentType.objects.get_for_model(model).pk, router.db_for_write(model)


def _insert_versions(rows: list[tuple]) -> None:
    if connection.vendor != "postgresql":
        versions = [Version(**dict(zip(VERSION_COLUMNS, row, strict=True))) for row in rows]
        Version.objects.bulk_create(versions, batch_size=BATCH)
        return
    # COPY: bulk_create's UNNEST arrays are escaped character by character in Python,
    # and a version is JSON, all quotes; COPY's rows are formatted in C.
    statement = f"COPY {Version._meta.db_table} ({', '.join(VERSION_COLUMNS)}) FROM STDIN"
    with connection.cursor() as cursor, cursor.cursor.copy(statement) as copy:
        for row in rows:
            copy.write_row(row)


class AnalyzeOnGrowth:
    """ANALYZE on PostgreSQL each time the rows an import has written have doubled.

    The planner sizes tables from their statistics, and no autovacuum sees rows that
    are not yet committed: thousands of rows into a table it believes empty, and every
    statement's plan (a constraint check's, say) goes on scanning whole tables,
    quadratic in the file. ANALYZE counts the transaction's own rows, and new plans follow it.
    """

    def __init__(self, first: int = 500):
        self.written = 0
        self.next = first

    def grew(self, written: int) -> None:
        self.written += written
        if connection.vendor == "postgresql" and self.written >= self.next:
            with connection.cursor() as cursor:
                cursor.execute("ANALYZE")
            self.next = 2 * self.written


def chunks(items: Iterable, size: int | None = None) -> Iterator[list]:
    """The items in runs short enough for one query each, under SQLite's variable limit.

    Taken as they come: a dataset's records are read from their file a chunk at a time.
    """
    size = size or chunk_size()
    items = iter(items)
    while chunk := list(islice(items, size)):
        yield chunk


def chunk_size() -> int:
    # claim_many binds three values an entry; PostgreSQL has no such limit.
    limit = connection.features.max_query_params
    return 2000 if limit is None else limit // 3 - 1
