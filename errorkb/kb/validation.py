"""Reading a record back: validate_record() checks one against the schema of records.py.

Every message names the record and the field. Import and the admin upload call it for
every record of a file before anything is written.
"""

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import re2

from .applies_to import AppliesToError, clean_applies_to
from .database_limits import integer_range, text_error
from .ids import ENTRY_ID_LENGTH
from .links import link_error
from .models import EntryTag, ErrorEntry, RelatedLink, Repository, Tag
from .records import (
    APPLIES_TO_KEY,
    EXTRA_KEYS,
    FIELDS,
    ID_RE,
    RAISED_IN_KEY,
    RELATED_KEY,
    REMOVED_KEY,
    REPO_RE,
    SCHEMA_VERSIONS,
    SHA_RE,
    SLUG_RE,
    STATUS_KEY,
    TAG_RE,
    Field,
    json_type,
)
from .upstream_keys import clean_raised_in, clean_removed_upstream

# Timestamps a day inside what datetime holds, so one shown in any time zone stays in range.
MIN_TIMESTAMP = datetime(1, 1, 2, tzinfo=UTC)
MAX_TIMESTAMP = datetime(9999, 12, 30, 23, 59, 59, 999999, tzinfo=UTC)


class InvalidRecord(ValueError):
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


def validate_record(data: Any, *, index: int) -> CleanRecord:
    """Check one record against the schema; raise InvalidRecord naming the offending field."""
    label = f"#{index}"
    if not isinstance(data, dict):
        raise InvalidRecord(label, None, f"must be a JSON object, got {json_type(data)}")
    if _showable(data.get("id")):
        label = f"{data['id']} (#{index})"

    unknown = sorted(set(data) - {f.key for f in FIELDS} - set(EXTRA_KEYS))
    if unknown:
        raise InvalidRecord(label, unknown[0], "unknown field")

    values: dict[str, Any] = {}
    for f in FIELDS:
        if f.key not in data:
            raise InvalidRecord(label, f.key, "missing")
        values[f.attr] = _check_type(label, f, data[f.key])
    _check_columns(label, values)
    _check_values(label, values)

    repo = values.pop("repo")
    tags = values.pop("tags")
    related = _check_related(label, data.get(RELATED_KEY, []), values["id"])
    _check_count(label, RELATED_KEY, related, RelatedLink)
    status = data.get(STATUS_KEY, ErrorEntry.Status.PUBLISHED)
    if status not in ErrorEntry.Status.values:
        raise InvalidRecord(label, STATUS_KEY, f"must be one of {', '.join(ErrorEntry.Status)}")
    try:
        # Absent stays None (not stated), unlike an empty list (stated: no rows).
        values["applies_to"] = clean_applies_to(data.get(APPLIES_TO_KEY))
        values["raised_in"] = clean_raised_in(data.get(RAISED_IN_KEY))
        values["removed_upstream"] = clean_removed_upstream(data.get(REMOVED_KEY))
    except AppliesToError as exc:  # UpstreamKeyError is one too
        raise InvalidRecord(label, exc.where, exc.message) from None
    return CleanRecord(
        id=values.pop("id"), repo=repo, values=values, tags=tags, related=related, status=status
    )


def _showable(entry_id: Any) -> bool:
    # The id names the record in every message; one that cannot be shown as it is would
    # carry a surrogate or a megabyte into the page, so the index alone names it then.
    return isinstance(entry_id, str) and len(entry_id) <= 64 and entry_id.isprintable()


def _check_type(label: str, f: Field, value: Any) -> Any:
    if value is None:
        if f.nullable:
            return None
        raise InvalidRecord(label, f.key, "must not be null")
    if f.kind in ("str", "datetime") and not isinstance(value, str):
        raise InvalidRecord(label, f.key, f"must be a string, got {json_type(value)}")
    if f.kind == "int" and (isinstance(value, bool) or not isinstance(value, int)):
        raise InvalidRecord(label, f.key, f"must be an integer, got {json_type(value)}")
    if f.kind == "int" and value < 0:
        raise InvalidRecord(label, f.key, "must not be negative")
    if f.kind == "list":
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            raise InvalidRecord(label, f.key, "must be an array of strings")
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
            raise InvalidRecord(label, f.key, f"must be between {low} and {high}")
        return
    for text in value if f.kind == "list" else [value]:
        reason = text_error(text)
        if reason:
            raise InvalidRecord(label, f.key, reason)


def _check_columns(label: str, values: dict[str, Any]) -> None:
    # repo and tags live in their own tables, with their own limits.
    owner, _, name = values["repo"].partition("/")
    for part, attr in ((owner, "owner"), (name, "name")):
        limit = Repository._meta.get_field(attr).max_length
        if len(part) > limit:
            raise InvalidRecord(label, "repo", f"{attr} is longer than {limit} characters")
    limit = Tag._meta.get_field("name").max_length
    for tag in values["tags"]:
        if len(tag) > limit:
            raise InvalidRecord(label, "tags", f"a tag is longer than {limit} characters")
    _check_count(label, "tags", values["tags"], EntryTag)


def _check_count(label: str, key: str, items: list, link: type) -> None:
    # Each item is stored at its position in the list, in a small integer column.
    most = integer_range(link, "position")[1] + 1
    if len(items) > most:
        raise InvalidRecord(label, key, f"lists more than {most} items")


def _check_length(label: str, f: Field, value: Any) -> None:
    if f.attr in ("repo", "tags"):
        return
    max_length = getattr(ErrorEntry._meta.get_field(f.attr), "max_length", None)
    if max_length and isinstance(value, str) and len(value) > max_length:
        raise InvalidRecord(label, f.key, f"is longer than {max_length} characters")


def _parse_timestamp(label: str, key: str, value: str) -> datetime:
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        raise InvalidRecord(label, key, f"is not an ISO 8601 timestamp: {value!r}") from None
    if parsed.tzinfo is None:
        raise InvalidRecord(label, key, "must carry a time zone (for example a trailing Z)")
    return _in_range(label, key, parsed)


def _in_range(label: str, key: str, parsed: datetime) -> datetime:
    try:
        value = parsed.astimezone(UTC)
    except OverflowError:  # year 1 at +01:00 is year 0 in UTC, which datetime cannot hold
        value = None
    if value is None or not MIN_TIMESTAMP <= value <= MAX_TIMESTAMP:
        span = f"{MIN_TIMESTAMP.date().isoformat()} and {MAX_TIMESTAMP.date().isoformat()}"
        raise InvalidRecord(label, key, f"must be between {span} (UTC)")
    return value


def _check_values(label: str, values: dict[str, Any]) -> None:
    if not ID_RE.match(values["id"]):
        raise InvalidRecord(label, "id", f"must be {ENTRY_ID_LENGTH} lowercase hex characters")
    if not REPO_RE.match(values["repo"]):
        raise InvalidRecord(label, "repo", "must look like owner/name")
    if not SLUG_RE.match(values["slug"]):
        raise InvalidRecord(label, "slug", "must be lowercase words joined by hyphens")
    if values["schema_version"] not in SCHEMA_VERSIONS:
        versions = ", ".join(map(str, SCHEMA_VERSIONS))
        raise InvalidRecord(label, "schemaVersion", f"unsupported (this server reads {versions})")
    if values["severity"] not in ErrorEntry.Severity.values:
        raise InvalidRecord(label, "severity", f"must be one of {', '.join(ErrorEntry.Severity)}")
    if values["analyzed_sha"] is not None and not SHA_RE.match(values["analyzed_sha"]):
        raise InvalidRecord(label, "analyzedSha", "must be a lowercase hex commit id")
    for tag in values["tags"]:
        if not TAG_RE.match(tag):
            raise InvalidRecord(label, "tags", f"{tag!r} is not a lowercase tag")
    if len(set(values["tags"])) != len(values["tags"]):
        raise InvalidRecord(label, "tags", "lists a tag twice")
    _check_pattern(label, values["message_pattern"])
    _check_source_span(label, values)
    _check_link(label, "githubUrl", values["github_url"])


def _check_link(label: str, key: str, url: str | None) -> None:
    # The page makes it a link: anything but http(s) to a real host could run script there.
    reason = url and link_error(url)
    if reason:
        raise InvalidRecord(label, key, reason)


def _check_pattern(label: str, pattern: str) -> None:
    reason = pattern_error(pattern)
    if reason:
        raise InvalidRecord(label, "messagePattern", f"does not compile: {reason}")


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
        raise InvalidRecord(label, "sourceCodeEnd", "is before sourceCodeStart")
    if None not in (start, end, line) and not start <= line <= end:
        raise InvalidRecord(label, "lineNumber", "is outside sourceCodeStart..sourceCodeEnd")


def _check_related(label: str, related: Any, entry_id: str) -> list[str]:
    if not isinstance(related, list) or not all(isinstance(item, str) for item in related):
        raise InvalidRecord(label, RELATED_KEY, "must be an array of entry ids")
    for item in related:
        if not ID_RE.match(item):
            raise InvalidRecord(label, RELATED_KEY, f"{item!r} is not an entry id")
    if entry_id in related:
        raise InvalidRecord(label, RELATED_KEY, "an entry cannot be related to itself")
    if len(set(related)) != len(related):
        raise InvalidRecord(label, RELATED_KEY, "lists an entry twice")
    return related
