"""One entry with its tags and related entries, read cheaply for its page and its record.

for_record() prefetches the same for lists of entries; for a single entry,
prefetch_related and select_related cost more to build than to run. So this reads
plain rows (two indexed queries) and leaves them where the prefetch would: the
entry's tag_names, related_ids and related_entries() read them unchanged.
"""

from django.db.models import Q

from .models import EntryTag, ErrorEntry, RelatedLink, Repository, Tag


def load_neighbours(entry: ErrorEntry) -> ErrorEntry:
    """Read the entry's tags and related entries as for_record() would; the entry, for chaining."""
    tags = EntryTag.objects.filter(entry=entry).values_list("tag_id", "tag__name")
    tags = [EntryTag(entry=entry, tag=Tag(id=tag, name=name)) for tag, name in tags]
    links = RelatedLink.objects.filter(Q(source=entry) | Q(target=entry))
    links = [_link(row) for row in links.values_list("position", *NEIGHBOUR_COLUMNS)]
    outgoing = sorted((link for link in links if link.source_id == entry.pk), key=_position)
    incoming = [link for link in links if link.target_id == entry.pk]
    incoming.sort(key=lambda link: (link.source.error_message, link.source_id))
    _keep(entry, "entry_tags", EntryTag, tags)
    _keep(entry, "outgoing_links", RelatedLink, outgoing)
    _keep(entry, "incoming_links", RelatedLink, incoming)
    return entry


# What a link to a related entry shows of it: its message and its address.
NEIGHBOUR_FIELDS = (
    "id",
    "error_message",
    "slug",
    "status",
    "repository__owner",
    "repository__name",
)
NEIGHBOUR_COLUMNS = [f"{end}__{name}" for end in ("source", "target") for name in NEIGHBOUR_FIELDS]


def _link(row: tuple) -> RelatedLink:
    position, *ends = row
    size = len(NEIGHBOUR_FIELDS)
    source, target = (_neighbour(*ends[:size]), _neighbour(*ends[size:]))
    return RelatedLink(source=source, target=target, position=position)


def _neighbour(pk, message, slug, status, owner, name) -> ErrorEntry:
    repository = Repository(owner=owner, name=name)
    return ErrorEntry(id=pk, error_message=message, slug=slug, status=status, repository=repository)


def _position(link: RelatedLink) -> int:
    return link.position


def _keep(entry: ErrorEntry, name: str, model, rows: list) -> None:
    # As prefetch_related leaves it: the related manager answers from these rows.
    queryset = model.objects.all()
    queryset._result_cache, queryset._prefetch_done = rows, True
    entry.__dict__.setdefault("_prefetched_objects_cache", {})[name] = queryset
