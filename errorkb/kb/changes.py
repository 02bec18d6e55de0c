"""The versions of what public pages show, moved by the write paths that change it.

Every write to what a public page shows moves a version, inside the write's own
transaction, so a page cached under the old version is never served again once the
write commits (errorkb.http.caching keys ETags and cached bytes on these versions):

- one entry's version (EntryVersion) moves with writes to that entry's rows: the entry,
  its tags, its related links (both ends), its runs, its stored state, its scenario
  links, its reports: entries_changed(ids);
- the catalog version (ContentVersion.CATALOG) moves with writes to what every entry
  page may show: repositories, tag names, scenario set-ups, scanned releases:
  catalog_changed();
- the content version (the other ContentVersion rows) moves with both, and with writes
  only lists show (a sweep, the schedule): content_changed().

One entry's page takes its own version, its neighbours' and the catalog's
(entry_token); lists take the content version (content_token).

Who calls: the write functions themselves (kb's editing and import, verification's
stored states, upstream's scans), as the last statements of their transaction, so a
version row is locked only briefly; many entries' rows are written in entry id order,
so two writers lock them in the same order. A single-row save or delete through the
ORM (the admin, a run's save) is followed by the post_save and post_delete receivers
each app wires in its ready() (follow_writes). QuerySet.update and the bulk paths call
these functions themselves. A write that runs no Python (raw SQL, another program)
moves nothing: `manage.py bump_page_versions` then moves every version (docs/http.md).

Why random tokens rather than counts and timestamps: a timestamp is taken before its
transaction commits, so a write stamped t=1 that commits after one stamped t=3 moves no
maximum, while a new random value always differs from the one it replaces.

Why several content rows on PostgreSQL: a row a transaction updated stays locked until
it commits, and every write moves the content version; one row would make every writer
wait for the slowest open transaction. Each writer takes a row no other transaction
holds (SKIP LOCKED), and the content token is all of them read together.
"""

import random
import secrets
from collections.abc import Iterable

from django.db import connection, transaction
from django.db.models import Subquery, Value
from django.db.models.signals import m2m_changed, post_delete, post_save

from .models import ContentVersion, EntryVersion, ErrorEntry, RelatedLink

# Entry versions written per statement.
VERSIONS_BATCH = 1000


def new_token() -> str:
    return secrets.token_hex(16)


def entries_changed(entry_ids: Iterable[str]) -> None:
    """Move the versions of these entries' pages, and the content version."""
    ids = sorted({entry_id for entry_id in entry_ids if entry_id})
    if not ids:
        return
    token = new_token()
    with transaction.atomic(savepoint=False):
        EntryVersion.objects.bulk_create(
            [EntryVersion(entry_id=entry_id, token=token) for entry_id in ids],
            batch_size=VERSIONS_BATCH,
            update_conflicts=True,
            unique_fields=["entry_id"],
            update_fields=["token"],
        )
        content_changed()


def catalog_changed() -> None:
    """Move every entry page's version (each holds the catalog's), and the content version."""
    with transaction.atomic(savepoint=False):
        _write_content_row(ContentVersion.CATALOG, new_token())
        content_changed()


def content_changed() -> None:
    """Move the content version, which every list's validator derives from."""
    token = new_token()
    with transaction.atomic(savepoint=False):
        if connection.vendor != "postgresql":
            # SQLite's writers take turns: one row is never waited on.
            _write_content_row(ContentVersion.ROW, token)
            return
        free = (
            ContentVersion.objects.select_for_update(skip_locked=True)
            .filter(id__in=ContentVersion.CONTENT_ROWS)
            .order_by("?")
            .values("id")[:1]
        )
        if not ContentVersion.objects.filter(id__in=Subquery(free)).update(token=token):
            # Rows not written yet (a new or emptied table), or all held: write one.
            _write_content_row(random.choice(ContentVersion.CONTENT_ROWS), token)


def _write_content_row(row: int, token: str) -> None:
    ContentVersion.objects.bulk_create(
        [ContentVersion(id=row, token=token)],
        update_conflicts=True,
        unique_fields=["id"],
        update_fields=["token"],
    )


# Reading the versions.


def content_token() -> str:
    """The content version, as this connection's transaction sees it; one indexed read.

    Empty until the first write after the table was emptied.
    """
    rows = ContentVersion.objects.exclude(id=ContentVersion.CATALOG).order_by("id")
    return "|".join(f"{pk}={token}" for pk, token in rows.values_list("id", "token"))


def entry_token(entry_id: str | None = None, *, slug: tuple[str, str, str] | None = None) -> str:
    """What one entry's page shows, as a token: its version, its neighbours', the catalog's.

    By id, or by slug as (owner, name, slug), which resolves in the same read through
    the unique (owner, name) and (repository, slug) indexes: one query either way.
    """
    catalog = ContentVersion.objects.filter(pk=ContentVersion.CATALOG)
    catalog = catalog.annotate(key=Value("catalog")).values_list("key", "token")
    if slug:
        owner, name, entry_slug = slug
        asked = ErrorEntry.objects.filter(
            repository__owner=owner, repository__name=name, slug=entry_slug
        ).values("pk")
        rows = [asked.order_by().annotate(key=Value("entry")).values_list("key", "pk")]
    else:
        # An id asked for is in the token whether or not its entry exists: a deleted
        # entry's version moves on.
        asked, rows = [entry_id], []
    shown = [
        asked,
        RelatedLink.objects.filter(source__in=asked).values("target"),
        RelatedLink.objects.filter(target__in=asked).values("source"),
    ]
    # One branch each, not one OR of the three: each is an index scan, the OR a whole table's.
    versions = [
        EntryVersion.objects.filter(entry_id__in=ids).values_list("entry_id", "token")
        for ids in shown
    ]
    # A neighbour linked both ways comes twice.
    found = set(catalog.union(*rows, *versions, all=True))
    if not slug:
        found.add(("entry", entry_id))
    return "|".join(f"{key}={value or ''}" for key, value in sorted(found, key=_by_key))


def _by_key(row: tuple) -> tuple:
    return (str(row[0]), str(row[1] or ""))


# Single-row writes through the ORM.


def entry_fields(model) -> list[str]:
    """The attributes naming the entries a row of `model` belongs to; [] for a catalog model."""
    if model is ErrorEntry:
        return [model._meta.pk.attname]
    return [
        field.attname
        for field in model._meta.concrete_fields
        if field.is_relation and field.related_model is ErrorEntry
    ]


def follow_writes(*models, on_entry_pages: bool = True) -> None:
    """Move the versions after every save and delete of one row of these models.

    A model keyed by an entry moves that entry's version; any other moves the catalog's,
    or, with on_entry_pages=False (what only lists show), the content version alone.
    Called from an app's ready() for the models of that app that public pages show.
    """
    receiver = row_written if on_entry_pages else list_row_written
    for model in models:
        uid = f"page-versions-{model._meta.label_lower}"
        post_save.connect(receiver, sender=model, dispatch_uid=uid)
        post_delete.connect(receiver, sender=model, dispatch_uid=uid)


def follow_links(*through_models) -> None:
    """Move the versions after add(), remove(), set() and clear() of a many-to-many field."""
    for through in through_models:
        uid = f"page-versions-{through._meta.label_lower}"
        m2m_changed.connect(links_changed, sender=through, dispatch_uid=uid)


def row_written(sender, instance, **kwargs) -> None:
    fields = entry_fields(sender)
    if fields:
        entries_changed(getattr(instance, name) for name in fields)
    else:
        catalog_changed()


def list_row_written(sender, instance, **kwargs) -> None:
    content_changed()


def links_changed(sender, instance, action, model, pk_set, **kwargs) -> None:
    if not action.startswith("post_"):
        return
    if isinstance(instance, ErrorEntry):
        entries_changed([instance.pk])
    elif model is ErrorEntry and pk_set is not None:
        entries_changed(pk_set)
    else:
        catalog_changed()  # a clear() names no entries
