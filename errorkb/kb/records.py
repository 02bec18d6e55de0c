"""The one mapping between an ErrorEntry and a record of the dataset schema.

A record is the JSON object served at /api/errors/<id> (under "record") and
stored in dataset files. Import, export and the API all go through
validate_record() and to_record(), so the schema is stated here only.
"""

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import re2
from django.db.backends.base.operations import BaseDatabaseOperations

from .links import link_error
from .models import ENTRY_ID_LENGTH, EntryTag, ErrorEntry, RelatedLink, Repository, Tag

SCHEMA_VERSIONS = (2,)

# \Z, not $: a $ also matches before a trailing newline, which would slip into a slug, a
# tag or a repository name, and then into addresses that reverse() refuses to build.
# SHA_RE keeps $: the API's OpenAPI document states its pattern, in a dialect without \Z.
ID_RE = re.compile(rf"^[0-9a-f]{{{ENTRY_ID_LENGTH}}}\Z")
REPO_RE = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+\Z")
SLUG_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*\Z")
SHA_RE = re.compile(r"^[0-9a-f]{7,40}$")
TAG_RE = re.compile(r"^[a-z0-9][a-z0-9+#._-]*\Z")

# Timestamps a day inside what datetime holds, so one shown in any time zone stays in range.
MIN_TIMESTAMP = datetime(1, 1, 2, tzinfo=UTC)
MAX_TIMESTAMP = datetime(9999, 12, 30, 23, 59, 59, 999999, tzinfo=UTC)


@dataclass(frozen=True)
class Field:
    key: str  # the record's JSON key
    attr: str  # the ErrorEntry attribute it maps to
    kind: str  # str | int | list | datetime
    nullable: bool = False


# The record's keys, in the order the dataset has always written them.
FIELDS = (
    Field("id", "id", "str"),
    Field("repo", "repo", "str"),
    Field("slug", "slug", "str"),
    Field("errorCode", "error_code", "str", nullable=True),
    Field("errorMessage", "error_message", "str"),
    Field("messagePattern", "message_pattern", "str"),
    Field("errorType", "error_type", "str"),
    Field("errorClass", "error_class", "str", nullable=True),
    Field("httpStatus", "http_status", "int", nullable=True),
    Field("severity", "severity", "str"),
    Field("filePath", "file_path", "str", nullable=True),
    Field("lineNumber", "line_number", "int", nullable=True),
    Field("sourceCode", "source_code", "str", nullable=True),
    Field("sourceCodeStart", "source_code_start", "int", nullable=True),
    Field("sourceCodeEnd", "source_code_end", "int", nullable=True),
    Field("githubUrl", "github_url", "str", nullable=True),
    Field("documentation", "documentation", "str"),
    Field("triggerScenarios", "trigger_scenarios", "str"),
    Field("commonSituations", "common_situations", "str"),
    Field("solutions", "solutions", "list"),
    Field("exampleFix", "example_fix", "str", nullable=True),
    Field("handlingStrategy", "handling_strategy", "str", nullable=True),
    Field("validationCode", "validation_code", "str", nullable=True),
    Field("typeGuard", "type_guard", "str", nullable=True),
    Field("tryCatchPattern", "try_catch_pattern", "str", nullable=True),
    Field("preventionTips", "prevention_tips", "list"),
    Field("tags", "tags", "list"),
    Field("backgroundTag", "background_tag", "str", nullable=True),
    Field("analyzedSha", "analyzed_sha", "str", nullable=True),
    Field("analyzedAt", "analyzed_at", "datetime", nullable=True),
    Field("contentChangedAt", "content_changed_at", "datetime", nullable=True),
    Field("schemaVersion", "schema_version", "int"),
)

# Keys beyond the seed schema: optional on input, so a plain seed record imports.
# Written in this order after the seed keys; appliesTo last, and only when stated, so
# records written before it existed export unchanged.
RELATED_KEY = "related"
STATUS_KEY = "status"
APPLIES_TO_KEY = "appliesTo"
EXTRA_KEYS = (RELATED_KEY, STATUS_KEY, APPLIES_TO_KEY)

# One appliesTo row: which releases and set-up it covers, whether the entry's message is
# raised there, what the reader sees, and the burn source line that says so. In this order.
APPLIES_TO_TEXT_KEYS = ("versions", "setup", "outcome", "seen", "filePath")
APPLIES_TO_ROW_KEYS = (*APPLIES_TO_TEXT_KEYS, "lineNumber", "commit")
APPLIES_TO_NOTE_KEY = "note"  # optional
RAISED, NOT_RAISED = "raised", "not raised"
APPLIES_TO_OUTCOMES = (RAISED, NOT_RAISED)


class RecordError(ValueError):
    """A record that cannot be imported; names the record and the field."""

    def __init__(self, record: str, field: str | None, message: str):
        self.record = record
        self.field = field
        self.message = message
        where = f"record {record}" + (f", field {field!r}" if field else "")
        super().__init__(f"{where}: {message}")


@dataclass
class CleanRecord:
    """A validated record: model attribute values plus what lives beside the entry row."""

    id: str
    repo: str
    values: dict[str, Any]
    tags: list[str]
    related: list[str] = field(default_factory=list)
    status: str = ErrorEntry.Status.PUBLISHED


class AppliesToError(ValueError):
    """An appliesTo value that is not a list of valid rows; names the row and its key."""

    def __init__(self, row: int | None, key: str | None, message: str):
        self.row = row
        self.key = key
        self.message = message
        super().__init__(f"{self.where}: {message}")

    @property
    def where(self) -> str:
        """The offending part as a path into the record, e.g. appliesTo[1].commit."""
        path = APPLIES_TO_KEY if self.row is None else f"{APPLIES_TO_KEY}[{self.row}]"
        return f"{path}.{self.key}" if self.key else path


def format_timestamp(value: datetime | None) -> str | None:
    """ISO 8601 in UTC with a Z, milliseconds unless the value is finer than that."""
    if value is None:
        return None
    value = value.astimezone(UTC)
    micro = value.microsecond
    fraction = f"{micro // 1000:03d}" if micro % 1000 == 0 else f"{micro:06d}"
    return f"{value:%Y-%m-%dT%H:%M:%S}.{fraction}Z"


def to_record(entry: ErrorEntry, *, with_status: bool = False) -> dict[str, Any]:
    """The entry as a record: the seed schema's keys in order, then the extra keys.

    The API leaves the workflow status out (it serves published entries only); dataset
    files and revision snapshots carry it.
    """
    status = entry.status if with_status else None
    return record_of(entry, tags=entry.tag_names, related=entry.related_ids, status=status)


def record_of(
    entry: ErrorEntry, *, tags: list[str], related: list[str], status: str | None = None
) -> dict[str, Any]:
    """An entry's row with the given tags and related ids as a record (also for old revisions)."""
    record: dict[str, Any] = {}
    for f in FIELDS:
        if f.key == "repo":
            value = entry.repository.full_name
        elif f.key == "tags":
            value = tags
        else:
            value = getattr(entry, f.attr)
        if f.kind == "datetime":
            value = format_timestamp(value)
        elif f.kind == "list":
            value = list(value)
        record[f.key] = value
    record[RELATED_KEY] = list(related)
    if status is not None:
        record[STATUS_KEY] = status
    if entry.applies_to is not None:
        record[APPLIES_TO_KEY] = [_ordered_row(row) for row in entry.applies_to]
    return record


def _ordered_row(row: dict[str, Any]) -> dict[str, Any]:
    # PostgreSQL's jsonb does not keep key order: write every row in the one order.
    keys = (*APPLIES_TO_ROW_KEYS, APPLIES_TO_NOTE_KEY)
    return {key: row[key] for key in keys if key in row}


def validate_record(data: Any, *, index: int) -> CleanRecord:
    """Check one record against the schema; raise RecordError naming the offending field."""
    label = f"#{index}"
    if not isinstance(data, dict):
        raise RecordError(label, None, f"must be a JSON object, got {_json_type(data)}")
    if _showable(data.get("id")):
        label = f"{data['id']} (#{index})"

    unknown = sorted(set(data) - {f.key for f in FIELDS} - set(EXTRA_KEYS))
    if unknown:
        raise RecordError(label, unknown[0], "unknown field")

    values: dict[str, Any] = {}
    for f in FIELDS:
        if f.key not in data:
            raise RecordError(label, f.key, "missing")
        values[f.attr] = _check_type(label, f, data[f.key])
    _check_columns(label, values)
    _check_values(label, values)

    repo = values.pop("repo")
    tags = values.pop("tags")
    related = _check_related(label, data.get(RELATED_KEY, []), values["id"])
    _check_count(label, RELATED_KEY, related, RelatedLink)
    status = data.get(STATUS_KEY, ErrorEntry.Status.PUBLISHED)
    if status not in ErrorEntry.Status.values:
        raise RecordError(label, STATUS_KEY, f"must be one of {', '.join(ErrorEntry.Status)}")
    try:
        # Absent stays None (not stated), unlike an empty list (stated: no rows).
        values["applies_to"] = clean_applies_to(data.get(APPLIES_TO_KEY))
    except AppliesToError as exc:
        raise RecordError(label, exc.where, exc.message) from None
    return CleanRecord(
        id=values.pop("id"), repo=repo, values=values, tags=tags, related=related, status=status
    )


def _showable(entry_id: Any) -> bool:
    # The id names the record in every message; one that cannot be shown as it is would
    # carry a surrogate or a megabyte into the page, so the index alone names it then.
    return isinstance(entry_id, str) and len(entry_id) <= 64 and entry_id.isprintable()


def _json_type(value: Any) -> str:
    names = {dict: "object", list: "array", str: "string", bool: "boolean", type(None): "null"}
    if isinstance(value, bool) or value is None:
        return names[type(value)]
    if isinstance(value, int | float):
        return "number"
    return names.get(type(value), type(value).__name__)


def _check_type(label: str, f: Field, value: Any) -> Any:
    if value is None:
        if f.nullable:
            return None
        raise RecordError(label, f.key, "must not be null")
    if f.kind in ("str", "datetime") and not isinstance(value, str):
        raise RecordError(label, f.key, f"must be a string, got {_json_type(value)}")
    if f.kind == "int" and (isinstance(value, bool) or not isinstance(value, int)):
        raise RecordError(label, f.key, f"must be an integer, got {_json_type(value)}")
    if f.kind == "int" and value < 0:
        raise RecordError(label, f.key, "must not be negative")
    if f.kind == "list":
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            raise RecordError(label, f.key, "must be an array of strings")
    _check_storable(label, f, value)
    if f.kind == "datetime":
        return _parse_timestamp(label, f.key, value)
    _check_length(label, f, value)
    return value


def _check_storable(label: str, f: Field, value: Any) -> None:
    """Refuse what the database would refuse on write: every text and integer of the field."""
    if f.kind == "int":
        low, high = integer_range(ErrorEntry, f.attr)
        if not low <= value <= high:
            raise RecordError(label, f.key, f"must be between {low} and {high}")
        return
    for text in value if f.kind == "list" else [value]:
        reason = text_error(text)
        if reason:
            raise RecordError(label, f.key, reason)


def integer_range(model: type, attr: str) -> tuple[int, int]:
    """The values an integer field holds, as its type declares them (PostgreSQL's range).

    SQLite would store any 64-bit integer, but a file that imports on one database
    must import on the other.
    """
    internal_type = model._meta.get_field(attr).get_internal_type()
    return BaseDatabaseOperations.integer_field_ranges[internal_type]


def text_error(value: str) -> str | None:
    """Why a string cannot be stored as it is, or None when it can."""
    if "\x00" in value:
        # PostgreSQL's text and jsonb cannot hold one.
        return "holds a NUL character (\\u0000)"
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        # JSON's "\ud800" escape decodes to half a character, which no UTF-8 column holds.
        return f"holds a lone surrogate {ascii(value[exc.start])} at character {exc.start}"
    return None


def _check_columns(label: str, values: dict[str, Any]) -> None:
    # repo and tags live in their own tables, with their own limits.
    owner, _, name = values["repo"].partition("/")
    for part, attr in ((owner, "owner"), (name, "name")):
        limit = Repository._meta.get_field(attr).max_length
        if len(part) > limit:
            raise RecordError(label, "repo", f"{attr} is longer than {limit} characters")
    limit = Tag._meta.get_field("name").max_length
    for tag in values["tags"]:
        if len(tag) > limit:
            raise RecordError(label, "tags", f"a tag is longer than {limit} characters")
    _check_count(label, "tags", values["tags"], EntryTag)


def _check_count(label: str, key: str, items: list, link: type) -> None:
    # Each item is stored at its position in the list, in a small integer column.
    most = integer_range(link, "position")[1] + 1
    if len(items) > most:
        raise RecordError(label, key, f"lists more than {most} items")


def _check_length(label: str, f: Field, value: Any) -> None:
    if f.attr in ("repo", "tags"):
        return
    max_length = getattr(ErrorEntry._meta.get_field(f.attr), "max_length", None)
    if max_length and isinstance(value, str) and len(value) > max_length:
        raise RecordError(label, f.key, f"is longer than {max_length} characters")


def _parse_timestamp(label: str, key: str, value: str) -> datetime:
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        raise RecordError(label, key, f"is not an ISO 8601 timestamp: {value!r}") from None
    if parsed.tzinfo is None:
        raise RecordError(label, key, "must carry a time zone (for example a trailing Z)")
    return _in_range(label, key, parsed)


def _in_range(label: str, key: str, parsed: datetime) -> datetime:
    try:
        value = parsed.astimezone(UTC)
    except OverflowError:  # year 1 at +01:00 is year 0 in UTC, which datetime cannot hold
        value = None
    if value is None or not MIN_TIMESTAMP <= value <= MAX_TIMESTAMP:
        span = f"{MIN_TIMESTAMP.date().isoformat()} and {MAX_TIMESTAMP.date().isoformat()}"
        raise RecordError(label, key, f"must be between {span} (UTC)")
    return value


def _check_values(label: str, values: dict[str, Any]) -> None:
    if not ID_RE.match(values["id"]):
        raise RecordError(label, "id", f"must be {ENTRY_ID_LENGTH} lowercase hex characters")
    if not REPO_RE.match(values["repo"]):
        raise RecordError(label, "repo", "must look like owner/name")
    if not SLUG_RE.match(values["slug"]):
        raise RecordError(label, "slug", "must be lowercase words joined by hyphens")
    if values["schema_version"] not in SCHEMA_VERSIONS:
        versions = ", ".join(map(str, SCHEMA_VERSIONS))
        raise RecordError(label, "schemaVersion", f"unsupported (this server reads {versions})")
    if values["severity"] not in ErrorEntry.Severity.values:
        raise RecordError(label, "severity", f"must be one of {', '.join(ErrorEntry.Severity)}")
    if values["analyzed_sha"] is not None and not SHA_RE.match(values["analyzed_sha"]):
        raise RecordError(label, "analyzedSha", "must be a lowercase hex commit id")
    for tag in values["tags"]:
        if not TAG_RE.match(tag):
            raise RecordError(label, "tags", f"{tag!r} is not a lowercase tag")
    if len(set(values["tags"])) != len(values["tags"]):
        raise RecordError(label, "tags", "lists a tag twice")
    _check_pattern(label, values["message_pattern"])
    _check_source_span(label, values)
    _check_link(label, "githubUrl", values["github_url"])


def _check_link(label: str, key: str, url: str | None) -> None:
    # The page makes it a link: anything but http(s) to a real host could run script there.
    reason = url and link_error(url)
    if reason:
        raise RecordError(label, key, reason)


def _check_pattern(label: str, pattern: str) -> None:
    reason = pattern_error(pattern)
    if reason:
        raise RecordError(label, "messagePattern", f"does not compile: {reason}")


def pattern_error(pattern: str) -> str | None:
    """Why a messagePattern does not compile, or None when it does."""
    # RE2 guarantees linear-time matching, so a curated pattern can never hang a worker.
    try:
        re2.compile(pattern)
    except re2.error as exc:
        reason = exc.args[0] if exc.args else exc
        if isinstance(reason, bytes):
            reason = reason.decode(errors="replace")
        return str(reason)
    return None


def _check_source_span(label: str, values: dict[str, Any]) -> None:
    start, end, line = (
        values["source_code_start"],
        values["source_code_end"],
        values["line_number"],
    )
    if start is not None and end is not None and end < start:
        raise RecordError(label, "sourceCodeEnd", "is before sourceCodeStart")
    if None not in (start, end, line) and not start <= line <= end:
        raise RecordError(label, "lineNumber", "is outside sourceCodeStart..sourceCodeEnd")


def _check_related(label: str, related: Any, entry_id: str) -> list[str]:
    if not isinstance(related, list) or not all(isinstance(item, str) for item in related):
        raise RecordError(label, RELATED_KEY, "must be an array of entry ids")
    for item in related:
        if not ID_RE.match(item):
            raise RecordError(label, RELATED_KEY, f"{item!r} is not an entry id")
    if entry_id in related:
        raise RecordError(label, RELATED_KEY, "an entry cannot be related to itself")
    if len(set(related)) != len(related):
        raise RecordError(label, RELATED_KEY, "lists an entry twice")
    return related


def clean_applies_to(value: Any) -> list[dict[str, Any]] | None:
    """appliesTo rows checked and in their key order; None stays None (the key is absent).

    Raises AppliesToError naming the row and key. The admin form checks with it too.
    """
    if value is None:
        return None
    if not isinstance(value, list):
        raise AppliesToError(None, None, f"must be an array of rows, got {_json_type(value)}")
    return [_clean_row(i, row) for i, row in enumerate(value)]


def _clean_row(index: int, row: Any) -> dict[str, Any]:
    if not isinstance(row, dict):
        raise AppliesToError(index, None, f"must be a JSON object, got {_json_type(row)}")
    allowed = (*APPLIES_TO_ROW_KEYS, APPLIES_TO_NOTE_KEY)
    unknown = sorted(set(row) - set(allowed))
    if unknown:
        raise AppliesToError(index, unknown[0], "unknown key")
    for key in APPLIES_TO_ROW_KEYS:
        if key not in row:
            raise AppliesToError(index, key, "missing")
    texts = APPLIES_TO_TEXT_KEYS + ((APPLIES_TO_NOTE_KEY,) if APPLIES_TO_NOTE_KEY in row else ())
    for key in texts:
        if not isinstance(row[key], str) or not row[key].strip():
            raise AppliesToError(index, key, "must be a non-empty string")
    if row["outcome"] not in APPLIES_TO_OUTCOMES:
        raise AppliesToError(index, "outcome", f'must be "{RAISED}" or "{NOT_RAISED}"')
    line = row["lineNumber"]
    if isinstance(line, bool) or not isinstance(line, int) or line < 1:
        raise AppliesToError(index, "lineNumber", "must be a positive integer")
    if not isinstance(row["commit"], str) or not SHA_RE.match(row["commit"]):
        raise AppliesToError(index, "commit", "must be 7 to 40 lowercase hex characters")
    _check_row_storable(index, row, texts)
    return _ordered_row(row)


def _check_row_storable(index: int, row: dict[str, Any], texts: tuple[str, ...]) -> None:
    for key in texts:
        reason = text_error(row[key])
        if reason:
            raise AppliesToError(index, key, reason)
    # A row's line is the same kind of value as the entry's own lineNumber.
    high = integer_range(ErrorEntry, "line_number")[1]
    if row["lineNumber"] > high:
        raise AppliesToError(index, "lineNumber", f"must be a positive integer at most {high}")


def message_matches(pattern: str, message: str) -> bool:
    """Whether a documented messagePattern matches an observed message."""
    return re2.search(pattern, message) is not None
