"""The one mapping between an ErrorEntry and a record of the dataset schema.

A record is the JSON object served at /api/errors/<id> (under "record") and
stored in dataset files. The schema is stated here only: its keys, their
patterns, and to_record() / stored_record(), which write an entry as a record.
Reading one back is errorkb.kb.validation's.
"""

import re
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import re2

from .ids import ENTRY_ID_LENGTH
from .models import ErrorEntry

SCHEMA_VERSIONS = (2,)

# \Z, not $: a $ also matches before a trailing newline, which would slip into a slug, a
# tag or a repository name, and then into addresses that reverse() refuses to build.
# SHA_RE keeps $: the API's OpenAPI document states its pattern, in a dialect without \Z.
ID_RE = re.compile(rf"^[0-9a-f]{{{ENTRY_ID_LENGTH}}}\Z")
REPO_RE = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+\Z")
SLUG_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*\Z")
SHA_RE = re.compile(r"^[0-9a-f]{7,40}$")
TAG_RE = re.compile(r"^[a-z0-9][a-z0-9+#._-]*\Z")


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
# What the upstream scanner found; written only when a scan stated it (kb.upstream_keys).
RAISED_IN_KEY = "raisedIn"
REMOVED_KEY = "removedUpstream"
EXTRA_KEYS = (RELATED_KEY, STATUS_KEY, APPLIES_TO_KEY, RAISED_IN_KEY, REMOVED_KEY)
RAISED_IN_ROW_KEYS = ("release", "commit", "filePath", "lineNumber")
REMOVED_KEYS = ("commit", "lastCommit", "lastRelease")

# One appliesTo row: which releases and set-up it covers, whether the entry's message is
# raised there, what the reader sees, and the burn source line that says so. In this order.
APPLIES_TO_TEXT_KEYS = ("versions", "setup", "outcome", "seen", "filePath")
APPLIES_TO_ROW_KEYS = (*APPLIES_TO_TEXT_KEYS, "lineNumber", "commit")
APPLIES_TO_NOTE_KEY = "note"  # optional
RAISED, NOT_RAISED = "raised", "not raised"
APPLIES_TO_OUTCOMES = (RAISED, NOT_RAISED)


def format_timestamp(value: datetime | None) -> str | None:
    """ISO 8601 in UTC with a Z, milliseconds unless the value is finer than that."""
    if value is None:
        return None
    value = value.astimezone(UTC)
    micro = value.microsecond
    fraction = f"{micro // 1000:03d}" if micro % 1000 == 0 else f"{micro:06d}"
    return f"{value:%Y-%m-%dT%H:%M:%S}.{fraction}Z"


def to_record(entry: ErrorEntry) -> dict[str, Any]:
    """The entry as the API serves it: the seed schema's keys in order, then the extra keys.

    No workflow status: the API serves published entries only (stored_record has it).
    """
    return _record(entry, tags=entry.tag_names, related=entry.related_ids, status=None)


def stored_record(
    entry: ErrorEntry, *, tags: list[str] | None = None, related: list[str] | None = None
) -> dict[str, Any]:
    """The entry as dataset files and revision snapshots keep it: the record plus its status.

    Tags and related ids are the entry's own unless given (an old revision gives its own).
    """
    tags = entry.tag_names if tags is None else tags
    related = entry.related_ids if related is None else related
    return _record(entry, tags=tags, related=related, status=entry.status)


def _record(
    entry: ErrorEntry, *, tags: list[str], related: list[str], status: str | None
) -> dict[str, Any]:
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
        record[APPLIES_TO_KEY] = [ordered_row(row) for row in entry.applies_to]
    if entry.raised_in is not None:
        record[RAISED_IN_KEY] = [_ordered(row, RAISED_IN_ROW_KEYS) for row in entry.raised_in]
    if entry.removed_upstream is not None:
        record[REMOVED_KEY] = _ordered(entry.removed_upstream, REMOVED_KEYS)
    return record


def _ordered(value: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    return {key: value[key] for key in keys if key in value}


def ordered_row(row: dict[str, Any]) -> dict[str, Any]:
    """An appliesTo row with its keys in the one order records write them."""
    # PostgreSQL's jsonb does not keep key order.
    keys = (*APPLIES_TO_ROW_KEYS, APPLIES_TO_NOTE_KEY)
    return {key: row[key] for key in keys if key in row}


def json_type(value: Any) -> str:
    """The JSON name of a value's type, as messages about a record name it."""
    names = {dict: "object", list: "array", str: "string", bool: "boolean", type(None): "null"}
    if isinstance(value, bool) or value is None:
        return names[type(value)]
    if isinstance(value, int | float):
        return "number"
    return names.get(type(value), type(value).__name__)


def message_matches(pattern: str, message: str) -> bool:
    """Whether a documented messagePattern matches an observed message."""
    return re2.search(pattern, message) is not None
