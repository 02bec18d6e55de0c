"""Repositories and the error entries that explain their messages, with their tags and links."""

from collections import defaultdict

from django.conf import settings
from django.contrib.postgres.search import SearchVector, SearchVectorField
from django.db import models
from django.db.models import Count, Q

from ..ids import ENTRY_ID_LENGTH, derive_entry_id
from ..record.lengths import DOCUMENT_LENGTH, MESSAGE_LENGTH, SUMMARY_LENGTH
from ..record.names import (
    page_address,
    validate_entry_id,
    validate_repository_part,
    validate_slug,
    validate_tag,
)

# The tag of a panic that follows an earlier one in the same log (a checkpointer whose
# worker died first): its page tells the reader to read the first panic instead.
CASCADE_TAG = "cascade"
# The panic hook's own lines (burn's `PANIC => {info}` and its banner): context to the
# panic they wrap, never its explanation.
PANIC_HOOK_TAG = "panic-hook"


class RepositoryQuerySet(models.QuerySet):
    def with_published_counts(self):
        published = Count("entries", filter=Q(entries__status=ErrorEntry.Status.PUBLISHED))
        return self.annotate(published_count=published)

    def with_published_entries(self):
        return self.with_published_counts().filter(published_count__gt=0)


class Repository(models.Model):
    """A source repository, such as tracel-ai/burn, whose errors the knowledge base explains."""

    owner = models.CharField(max_length=100, validators=[validate_repository_part])
    name = models.CharField(max_length=100, validators=[validate_repository_part])
    url = models.URLField(max_length=300)

    objects = RepositoryQuerySet.as_manager()

    class Meta:
        ordering = ["owner", "name"]
        verbose_name_plural = "repositories"
        constraints = [
            models.UniqueConstraint(fields=["owner", "name"], name="unique_repository"),
        ]

    def __str__(self) -> str:
        return self.full_name

    def get_absolute_url(self) -> str:
        return page_address("web:repository", owner=self.owner, name=self.name)

    @property
    def full_name(self) -> str:
        return f"{self.owner}/{self.name}"


# The text search configuration of entries' search documents (and of the queries read
# against them); the prose fields, weighted below the message, tags and file path.
SEARCH_CONFIG = "english"
SEARCH_PROSE = ("documentation", "trigger_scenarios", "common_situations", "solutions")


class PostgreSQLOnly(models.Func):
    """Its expression on PostgreSQL; NULL on SQLite, which has no tsvector (search keeps
    an FTS5 table there instead)."""

    template = "%(expressions)s"

    def as_sqlite(self, compiler, connection, **extra_context):
        return "NULL", []


class FilePathWords(models.Func):
    """A file path as words (crates/burn-train/src/base.rs: crates burn train src base rs):
    the parser would keep a path as one token that no query word equals."""

    function = "translate"
    output_field = models.TextField()

    def __init__(self, path, **extra):
        super().__init__(path, models.Value("/._-"), models.Value("    "), **extra)


# An entry's message (weight A), its tags and its file path (B): the head of its search
# document, which ranking reads.
SEARCH_HEAD = SearchVector("error_message", config=SEARCH_CONFIG, weight="A") + SearchVector(
    "tags_text", FilePathWords("file_path"), config=SEARCH_CONFIG, weight="B"
)


class Tag(models.Model):
    name = models.CharField(max_length=64, unique=True, validators=[validate_tag])

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


# What a link to a related entry reads of it: its message, its address, its status.
NEIGHBOUR_FIELDS = (
    "id",
    "error_message",
    "slug",
    "status",
    "repository__owner",
    "repository__name",
)


def _neighbour_fields(end: str) -> list[str]:
    """A related link's own columns and NEIGHBOUR_FIELDS of the entry at its `end`."""
    own = ["source_id", "target_id", "position"]
    return own + [f"{end}__{name}" for name in NEIGHBOUR_FIELDS]


class ErrorEntryQuerySet(models.QuerySet):
    def published(self):
        return self.filter(status=ErrorEntry.Status.PUBLISHED)

    def removed_upstream(self):
        return self.filter(removed_upstream__isnull=False)

    def still_raised(self):
        """Entries no scan has flagged removed upstream (scanned or not)."""
        return self.filter(removed_upstream__isnull=True)

    def for_repo(self, full_name: str):
        owner, _, name = full_name.partition("/")
        return self.filter(repository__owner=owner, repository__name=name)

    def tagged(self, tag: str):
        return self.filter(entry_tags__tag__name=tag)

    def recently_changed(self):
        return self.order_by("-updated_at", "id")

    def with_tags(self):
        """Each entry with its repository and tag_names, in two queries for any number."""
        return self.select_related("repository").prefetch_related(
            models.Prefetch("entry_tags", EntryTag.objects.select_related("tag"))
        )

    def as_records(self):
        """What to_record() reads of a list of entries with its repository; their tags and
        related ids come from with_record_lists(), once the page's rows are read."""
        return self.select_related("repository")

    def for_record(self):
        """Everything to_record() and the entry page read, in a fixed number of queries:
        the entry with its repository, its tags, and its related entries both ways (of
        which a link shows the message and the address: NEIGHBOUR_FIELDS)."""
        return self.with_tags().prefetch_related(
            models.Prefetch(
                "outgoing_links",
                RelatedLink.objects.select_related("target__repository").only(
                    *_neighbour_fields("target")
                ),
            ),
            models.Prefetch(
                "incoming_links",
                RelatedLink.objects.select_related("source__repository")
                .only(*_neighbour_fields("source"))
                .order_by("source__error_message", "source_id"),
            ),
        )

    def at_address(self, owner: str, name: str, slug: str):
        """The entry a page address names: by repository and slug."""
        return self.filter(repository__owner=owner, repository__name=name, slug=slug)


class ErrorEntryManager(models.Manager.from_queryset(ErrorEntryQuerySet)):
    def get_queryset(self):
        # The search vectors are read by the database alone (errorkb.search): never
        # carried into Python with every entry, thousands at once in an export.
        return super().get_queryset().defer("search_head", "search_document")


class ErrorEntry(models.Model):
    """One error message of one repository, explained; the fields follow the record schema."""

    class Status(models.TextChoices):
        DRAFT = "draft", "draft"
        IN_REVIEW = "in_review", "in review"
        PUBLISHED = "published", "published"
        RETIRED = "retired", "retired"

    class Severity(models.TextChoices):
        CRITICAL = "critical"
        ERROR = "error"
        WARNING = "warning"
        INFO = "info"

    id = models.CharField(
        primary_key=True, max_length=ENTRY_ID_LENGTH, editable=False, validators=[validate_entry_id]
    )
    repository = models.ForeignKey(Repository, on_delete=models.PROTECT, related_name="entries")
    slug = models.SlugField(max_length=200, validators=[validate_slug])
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.DRAFT)

    error_code = models.CharField(max_length=100, null=True, blank=True)
    error_message = models.TextField(max_length=MESSAGE_LENGTH)
    message_pattern = models.TextField(max_length=MESSAGE_LENGTH)
    error_type = models.CharField(max_length=50)
    error_class = models.CharField(max_length=200, null=True, blank=True)
    http_status = models.PositiveSmallIntegerField(null=True, blank=True)
    severity = models.CharField(max_length=16, choices=Severity.choices)

    file_path = models.CharField(max_length=500, null=True, blank=True)
    line_number = models.PositiveIntegerField(null=True, blank=True)
    source_code = models.TextField(max_length=DOCUMENT_LENGTH, null=True, blank=True)
    source_code_start = models.PositiveIntegerField(null=True, blank=True)
    source_code_end = models.PositiveIntegerField(null=True, blank=True)
    github_url = models.URLField(max_length=500, null=True, blank=True)

    # What happened and what to do, in plain words (record.schema.summary_error): a reader's
    # first answer. Required to publish; a draft may lack it.
    summary = models.TextField(
        max_length=SUMMARY_LENGTH,
        blank=True,
        default="",
        help_text="What happened and what to do: 1 to 60 plain words, no Markdown, "
        "no file.rs:NN references. Required to publish.",
    )
    documentation = models.TextField(max_length=DOCUMENT_LENGTH, blank=True)
    trigger_scenarios = models.TextField(max_length=DOCUMENT_LENGTH, blank=True)
    common_situations = models.TextField(max_length=DOCUMENT_LENGTH, blank=True)
    solutions = models.JSONField(default=list, blank=True)
    example_fix = models.TextField(max_length=DOCUMENT_LENGTH, null=True, blank=True)
    handling_strategy = models.CharField(max_length=100, null=True, blank=True)
    validation_code = models.TextField(max_length=DOCUMENT_LENGTH, null=True, blank=True)
    type_guard = models.TextField(max_length=DOCUMENT_LENGTH, null=True, blank=True)
    try_catch_pattern = models.TextField(max_length=DOCUMENT_LENGTH, null=True, blank=True)
    prevention_tips = models.JSONField(default=list, blank=True)
    background_tag = models.CharField(max_length=100, null=True, blank=True)
    # The record's appliesTo rows (applies_to.clean_applies_to). Null when the record does
    # not state them, which is not the same as an empty list.
    applies_to = models.JSONField(
        null=True,
        blank=True,
        default=None,
        help_text="Releases and set-ups: a JSON array of rows with versions, setup, outcome "
        '("raised" or "not raised"), seen, filePath, lineNumber, commit and optionally note.',
    )
    # The record's firesAt rows (record.schema.FiresAtRow): where the message, Rust's own, is this
    # entry. Null when the record does not state them, which is not an empty list.
    fires_at = models.JSONField(
        null=True,
        blank=True,
        default=None,
        help_text="Where it fires: a JSON array of rows with versions, filePath, firstLine, "
        "lastLine and commit. A panic with the message is this entry only at those lines.",
    )

    # What the upstream scanner found (errorkb.upstream; upstream.raised_ranges shows them):
    # per release, where the message is raised, and when it stopped being raised.
    # Null when no scan has said so.
    raised_in = models.JSONField(
        null=True,
        blank=True,
        default=None,
        help_text="Releases that raise the message: a JSON array of rows with release, "
        "commit, filePath and lineNumber, oldest release first.",
    )
    removed_upstream = models.JSONField(
        null=True,
        blank=True,
        default=None,
        help_text="Set when a scan no longer finds the message: commit (the scanned one), "
        "lastCommit and lastRelease (the last that raised it, or null).",
    )

    analyzed_sha = models.CharField(max_length=40, null=True, blank=True)
    analyzed_at = models.DateTimeField(null=True, blank=True)
    content_changed_at = models.DateTimeField(null=True, blank=True)
    schema_version = models.PositiveSmallIntegerField(default=2)
    dataset_version = models.CharField(max_length=40, blank=True)

    # Who started the entry in the admin (none for imported entries).
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="owned_entries",
    )
    # Moves by one with every saved change: a save that started from an older value is
    # an edit conflict (errorkb.kb.editing).
    edit_version = models.PositiveIntegerField(default=0, editable=False)

    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True, db_index=True)

    # The entry's tag names, space-separated, for its search document (which can read
    # only the entry's own row): written with its tags (kb.editing.write_tags_text and
    # the import).
    tags_text = models.TextField(blank=True, default="", editable=False)
    # Its words for full-text search, weighted, kept by PostgreSQL on every write of the
    # row (errorkb.search reads them through GIN indexes its migration makes): the head
    # (message and tags, file path), which ranking reads, and the whole document. Never
    # serialized: a revision holds the texts they are made of.
    search_head = models.GeneratedField(
        expression=PostgreSQLOnly(SEARCH_HEAD),
        output_field=SearchVectorField(),
        db_persist=True,
        serialize=False,
    )
    search_document = models.GeneratedField(
        expression=PostgreSQLOnly(
            SEARCH_HEAD + SearchVector(*SEARCH_PROSE, config=SEARCH_CONFIG, weight="C")
        ),
        output_field=SearchVectorField(),
        db_persist=True,
        serialize=False,
    )

    objects = ErrorEntryManager()

    class Meta:
        ordering = ["repository__owner", "repository__name", "slug"]
        verbose_name_plural = "error entries"
        constraints = [
            models.UniqueConstraint(fields=["repository", "slug"], name="unique_slug_per_repo"),
        ]
        indexes = [
            models.Index(fields=["status", "-updated_at"]),
            # The API's list: published entries by id, counted and paged from the index alone.
            models.Index(fields=["status", "id"], name="entry_status_id"),
        ]
        permissions = [
            ("submit_errorentry", "Can submit error entries for review"),
            ("publish_errorentry", "Can publish and retire error entries"),
        ]

    def __str__(self) -> str:
        return self.error_message

    def save(self, *args, **kwargs):
        if not self.id:
            self.id = derive_entry_id(self.repository.full_name, self.error_message, self.file_path)
            # A new entry never replaces one that happens to have the same id.
            kwargs["force_insert"] = True
        super().save(*args, **kwargs)

    def get_absolute_url(self) -> str:
        repository = self.repository
        return page_address(
            "web:entry", owner=repository.owner, name=repository.name, slug=self.slug
        )

    @property
    def tag_names(self) -> list[str]:
        loaded = getattr(self, "loaded_tag_names", None)  # with_record_lists
        return [link.tag.name for link in self.entry_tags.all()] if loaded is None else loaded

    @property
    def follows_earlier_panic(self) -> bool:
        return CASCADE_TAG in self.tag_names

    @property
    def related_ids(self) -> list[str]:
        loaded = getattr(self, "loaded_related_ids", None)  # with_record_lists
        return [link.target_id for link in self.outgoing_links.all()] if loaded is None else loaded

    def related_entries(self) -> list["ErrorEntry"]:
        """Published neighbours: this entry's own links in order, then entries linking here."""
        outgoing = [link.target for link in self.outgoing_links.all()]
        seen = {entry.id for entry in outgoing}
        incoming = [link.source for link in self.incoming_links.all() if link.source_id not in seen]
        return [e for e in outgoing + incoming if e.status == self.Status.PUBLISHED]


def with_record_lists(entries: list[ErrorEntry]) -> list[ErrorEntry]:
    """Give each entry of a page its tag names and related ids as plain lists: two queries.

    Not prefetch_related: a prefetched row points back at its entry, a reference cycle
    per row that only the garbage collector frees. A page of 50 entries left about 3,500
    objects to it, and every twentieth request or so paid a full collection.
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


class EntryTag(models.Model):
    """A tag on an entry, at its position in the entry's ordered tag list."""

    entry = models.ForeignKey(ErrorEntry, on_delete=models.CASCADE, related_name="entry_tags")
    tag = models.ForeignKey(Tag, on_delete=models.PROTECT, related_name="entry_tags")
    position = models.PositiveSmallIntegerField()

    class Meta:
        ordering = ["position"]
        constraints = [
            models.UniqueConstraint(fields=["entry", "tag"], name="unique_entry_tag"),
        ]

    def __str__(self) -> str:
        return f"{self.entry_id}: {self.tag_id}"


class RelatedLink(models.Model):
    """An ordered "see also" link from one entry to another."""

    source = models.ForeignKey(ErrorEntry, on_delete=models.CASCADE, related_name="outgoing_links")
    target = models.ForeignKey(ErrorEntry, on_delete=models.CASCADE, related_name="incoming_links")
    position = models.PositiveSmallIntegerField()

    class Meta:
        ordering = ["position"]
        constraints = [
            models.UniqueConstraint(fields=["source", "target"], name="unique_related_link"),
            models.CheckConstraint(condition=~Q(source=models.F("target")), name="no_self_link"),
        ]

    def __str__(self) -> str:
        return f"{self.source_id} -> {self.target_id}"
