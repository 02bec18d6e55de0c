"""One entry with its repository, tags and related entries, read cheaply for its page and record.

for_record() prefetches the same for lists of entries; for a single entry,
prefetch_related, select_related and even one ORM query cost more to build than to
run. So this reads plain rows in SQL statements written once: the entry with its
repository (published_entry), then its tags and links in both directions
(load_neighbours), and leaves them where the ORM would: the entry's repository,
tag_names, related_ids and related_entries() read them unchanged.
"""

from collections import defaultdict

from . import plain_rows
from .models import EntryTag, ErrorEntry, RelatedLink, Repository, Tag

# What a link to a related entry shows of it: its message and its address.
NEIGHBOUR_FIELDS = ("id", "error_message", "slug", "status")
_OTHER_COLUMNS = ", ".join(
    [f"o.{name}" for name in NEIGHBOUR_FIELDS] + [f"r.{name}" for name in ("owner", "name")]
)
_NO_OTHER = ", ".join(["NULL"] * (len(NEIGHBOUR_FIELDS) + 2))
_ENTRIES, _REPOS = ErrorEntry._meta.db_table, Repository._meta.db_table
_TAG, _OUTGOING, _INCOMING = 0, 1, 2
# An entry never links to itself, so links from it and links to it are two disjoint reads,
# each through its own index (one OR of the two would not use both on every planner);
# each reads the other end only: this end is the entry itself.
_LINKS = f"""
SELECT {{kind}}, l.position, NULL, NULL, {_OTHER_COLUMNS}
FROM {RelatedLink._meta.db_table} l
JOIN {_ENTRIES} o ON o.id = l.{{other}}_id JOIN {_REPOS} r ON r.id = o.repository_id
WHERE l.{{end}}_id = %s"""
# Tags first, in their order; then the links from the entry, in theirs; then those to it.
NEIGHBOURS_QUERY = f"""
SELECT {_TAG}, et.position, tg.id, tg.name, {_NO_OTHER}
FROM {EntryTag._meta.db_table} et JOIN {Tag._meta.db_table} tg ON tg.id = et.tag_id
WHERE et.entry_id = %s
UNION ALL {_LINKS.format(kind=_OUTGOING, end="source", other="target")}
UNION ALL {_LINKS.format(kind=_INCOMING, end="target", other="source")}
ORDER BY 1, 2
"""


def load_neighbours(entry: ErrorEntry) -> ErrorEntry:
    """Read the entry's tags and related entries as for_record() would; the entry, for chaining."""
    rows = plain_rows.fetch(ErrorEntry, NEIGHBOURS_QUERY, [entry.pk] * 3)
    tags = [_tag(entry, row[2], row[3]) for row in rows if row[0] == _TAG]
    outgoing = [_link(entry, row[1], row[4:], outgoing=True) for row in rows if row[0] == _OUTGOING]
    incoming = [
        _link(entry, row[1], row[4:], outgoing=False) for row in rows if row[0] == _INCOMING
    ]
    incoming.sort(key=lambda link: (link.source.error_message, link.source_id))
    _keep(entry, "entry_tags", EntryTag, tags)
    _keep(entry, "outgoing_links", RelatedLink, outgoing)
    _keep(entry, "incoming_links", RelatedLink, incoming)
    return entry


def _tag(entry: ErrorEntry, tag_id: int, name: str) -> EntryTag:
    row = plain_rows.instance(EntryTag, ("entry_id", "tag_id"), (entry.pk, tag_id))
    _set_related(row, "entry", entry)
    _set_related(row, "tag", plain_rows.instance(Tag, ("id", "name"), (tag_id, name)))
    return row


def _link(entry: ErrorEntry, position: int, other: tuple, *, outgoing: bool) -> RelatedLink:
    # The entry's own end is the entry, as prefetch_related leaves it.
    other = _neighbour(*other)
    source, target = (entry, other) if outgoing else (other, entry)
    link = plain_rows.instance(
        RelatedLink, ("source_id", "target_id", "position"), (source.pk, target.pk, position)
    )
    _set_related(link, "source", source)
    _set_related(link, "target", target)
    return link


def _neighbour(pk, message, slug, status, owner, name) -> ErrorEntry:
    # As the ORM builds a row read with only(): the fields not read stay deferred.
    entry = plain_rows.instance(ErrorEntry, NEIGHBOUR_FIELDS, (pk, message, slug, status))
    _set_related(entry, "repository", plain_rows.instance(Repository, _REPO_KEY, (owner, name)))
    return entry


_REPO_KEY = ("owner", "name")


def _set_related(row, name: str, value) -> None:
    row._meta.get_field(name).set_cached_value(row, value)


def _keep(entry: ErrorEntry, name: str, model, rows: list) -> None:
    # As prefetch_related leaves it: the related manager answers from these rows.
    queryset = model.objects.all()
    queryset._result_cache, queryset._prefetch_done = rows, True
    entry.__dict__.setdefault("_prefetched_objects_cache", {})[name] = queryset


# One published entry with its repository, by id or by address, in one plain statement;
# columns of other rooms (its stored state) come as SQL over the entry's alias `e`.
_ENTRY_QUERY = (
    f"SELECT {{columns}} FROM {_ENTRIES} e JOIN {_REPOS} r ON r.id = e.repository_id"
    " WHERE e.status = %s AND {where}"
)
_ENTRY_FIELDS = [field.attname for field in ErrorEntry._meta.concrete_fields]
_REPOSITORY_FIELDS = [field.attname for field in Repository._meta.concrete_fields]
_ENTRY_COLUMNS = [f"e.{field.column}" for field in ErrorEntry._meta.concrete_fields] + [
    f"r.{field.column}" for field in Repository._meta.concrete_fields
]
_BY_ID = "e.id = %s"
_BY_SLUG = "r.owner = %s AND r.name = %s AND e.slug = %s"


def published_entry(
    entry_id: str | None = None,
    *,
    slug: tuple[str, str, str] | None = None,
    columns: dict[str, tuple[str, list]] | None = None,
) -> ErrorEntry | None:
    """The published entry by id, or by slug as (owner, name, slug), with its repository.

    `columns` names more values to read, each SQL over `e` with its parameters; each
    becomes an attribute of the entry, as an annotation would.
    """
    columns = columns or {}
    where, params = (_BY_SLUG, list(slug)) if slug else (_BY_ID, [entry_id])
    extra = [f"{sql} AS {name}" for name, (sql, _) in columns.items()]
    query = _ENTRY_QUERY.format(columns=", ".join(_ENTRY_COLUMNS + extra), where=where)
    extra_params = [param for _, column_params in columns.values() for param in column_params]
    rows = plain_rows.fetch(
        ErrorEntry, query, [*extra_params, ErrorEntry.Status.PUBLISHED, *params]
    )
    if not rows:
        return None
    row, split = rows[0], len(_ENTRY_FIELDS)
    repository_end = split + len(_REPOSITORY_FIELDS)
    [values] = plain_rows.converted(ErrorEntry, _ENTRY_FIELDS, [row[:split]])
    entry = plain_rows.instance(ErrorEntry, _ENTRY_FIELDS, values)
    [values] = plain_rows.converted(Repository, _REPOSITORY_FIELDS, [row[split:repository_end]])
    repository = plain_rows.instance(Repository, _REPOSITORY_FIELDS, values)
    ErrorEntry.repository.field.set_cached_value(entry, repository)
    for name, value in zip(columns, row[repository_end:], strict=True):
        setattr(entry, name, value)
    return entry


def load_record_lists(entries: list[ErrorEntry]) -> list[ErrorEntry]:
    """Give each entry of a page its tag names and related ids as plain lists: two queries.

    Not prefetch_related: a prefetched row points back at its entry, a reference cycle
    per row that only the garbage collector frees. A page of 50 entries left about 3,500
    objects to it, and every twentieth request or so paid a full collection (~100 ms).
    """
    ids = [entry.pk for entry in entries]
    tags, related = defaultdict(list), defaultdict(list)
    tag_rows = EntryTag.objects.filter(entry_id__in=ids).order_by("entry_id", "position")
    for entry_id, name in tag_rows.values_list("entry_id", "tag__name"):
        tags[entry_id].append(name)
    link_rows = RelatedLink.objects.filter(source_id__in=ids).order_by("source_id", "position")
    for source_id, target_id in link_rows.values_list("source_id", "target_id"):
        related[source_id].append(target_id)
    for entry in entries:
        entry.loaded_tag_names = tags[entry.pk]
        entry.loaded_related_ids = related[entry.pk]
    return entries
