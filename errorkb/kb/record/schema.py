"""The single declaration of a record of the dataset schema, and its mapping to ErrorEntry.

A record is the JSON object served at /api/errors/<id> (under "record") and stored in
dataset files. Record and its row models below state each key once: its name (the
ErrorEntry attribute, written in camelCase), its type, its bounds and its place in the
order records are written. Validation on import and upload (kb.record.validation), export
(to_record, stored_record), the API's serializer and its OpenAPI document all read them.

Each type carries the message its refusal gives, so that a refusal names the record and
the field in words a curator reads ("must be lowercase words joined by hyphens"), not in
pydantic's.
"""

import re
from datetime import UTC, datetime
from typing import Annotated, Any, Literal, NoReturn

import re2
from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    TypeAdapter,
    ValidationError,
    ValidationInfo,
    field_validator,
)
from pydantic.alias_generators import to_camel
from pydantic_core import PydanticCustomError

from ..models import EntryTag, ErrorEntry, RelatedLink, Repository, Tag
from ..regex import compile_pattern
from .database_limits import integer_range, text_error
from .lengths import ITEM_LENGTH, ITEMS, QUOTED_CHARS, RELEASES, SUMMARY_WORDS, quoted
from .links import link_error
from .names import (
    ID_MISMATCH,
    ID_RE,
    RELEASE_RE,
    REPO_MISMATCH,
    REPO_RE,
    SHA_RE,
    SLUG_MISMATCH,
    SLUG_RE,
    TAG_RE,
)
from .release_ranges import NEWEST, release_key, version_ends

SCHEMA_VERSION = 2


# Timestamps a day inside what datetime holds, so one shown in any time zone stays in range.
MIN_TIMESTAMP = datetime(1, 1, 2, tzinfo=UTC)
MAX_TIMESTAMP = datetime(9999, 12, 30, 23, 59, 59, 999999, tzinfo=UTC)

RAISED, NOT_RAISED = "raised", "not raised"


def json_type(value: Any) -> str:
    """The JSON name of a value's type, as messages about a record name it."""
    names = {dict: "object", list: "array", str: "string", bool: "boolean", type(None): "null"}
    if isinstance(value, bool) or value is None:
        return names[type(value)]
    if isinstance(value, int | float):
        return "number"
    return names.get(type(value), type(value).__name__)


def openapi_pattern(regex: re.Pattern) -> str:
    """A pattern above as the OpenAPI document states it.

    Python's \\Z (end of text, no trailing newline) is what $ means in the ECMA dialect
    OpenAPI uses; ECMA has no \\Z.
    """
    pattern = regex.pattern
    return pattern.removesuffix(r"\Z") + "$" if pattern.endswith(r"\Z") else pattern


def pattern_error(pattern: str) -> str | None:
    """Why a messagePattern does not compile, or None when it does."""
    # RE2 guarantees linear-time matching, so a curated pattern can never hang a worker.
    try:
        compile_pattern(pattern)
    except re2.error as exc:
        reason = exc.args[0] if exc.args else exc
        if isinstance(reason, bytes):
            reason = reason.decode(errors="replace")
        return str(reason)
    return None


# What makes a summary more than plain words: it is read before the evidence, on any screen.
_NOT_PLAIN = (
    (re.compile(r"\.rs:\d"), "cites a source line (file.rs:NN): the evidence belongs in "
     "documentation"),
    (re.compile(r"`"), "holds a backtick: write plain text, quoting burn's words in "
     "double quotes"),
    (re.compile(r"\]\(|https?://", re.IGNORECASE), "holds a link: write plain text"),
    (re.compile(r"\*\*|__|^\s*(#|[-*>] )", re.MULTILINE), "holds Markdown: write plain text"),
    (re.compile(r"\n"), "holds a line break: write one paragraph"),
)  # fmt: skip


def summary_error(summary: str) -> str | None:
    """Why a summary is not 1 to SUMMARY_WORDS plain words, or None when it is."""
    words = len(summary.split())
    if summary and not words:
        return "holds only white space"
    if words > SUMMARY_WORDS:
        return f"has {words} words; at most {SUMMARY_WORDS}"
    for regex, reason in _NOT_PLAIN:
        if regex.search(summary):
            return reason
    return None


def message_matches(pattern: str, message: str) -> bool:
    """Whether a documented messagePattern matches an observed message."""
    return compile_pattern(pattern).search(message) is not None


# The types. Each checks its value before pydantic's own type does, and refuses with the
# message a curator reads; the Field beside it states the same bounds to the OpenAPI document.


def _refuse(message: str) -> NoReturn:
    # The message travels as a context value: braces in it are not a template.
    raise PydanticCustomError("record", "{reason}", {"reason": message})


def _not_a(kind: str, value: Any) -> NoReturn:
    _refuse("must not be null" if value is None else f"must be {kind}, got {json_type(value)}")


def text(
    *,
    column: str | None = None,
    max_length: int | None = None,
    regex: re.Pattern | None = None,
    mismatch: str = "",
    non_empty: bool = False,
    **field: Any,
):
    """A string the database stores as it is, within its column's length, matching regex.

    max_length bounds a text kept inside a JSON column (an appliesTo row's), which has none.
    """
    if column:
        max_length = ErrorEntry._meta.get_field(column).max_length

    def check(value: Any) -> str:
        if non_empty and (not isinstance(value, str) or not value.strip()):
            _refuse("must be a non-empty string")
        if not isinstance(value, str):
            _not_a("a string", value)
        if reason := text_error(value):
            _refuse(reason)
        if max_length and len(value) > max_length:
            _refuse(f"is longer than {max_length} characters")
        if regex and not regex.fullmatch(value):
            _refuse(mismatch)
        return value

    if regex:
        field["json_schema_extra"] = {"pattern": openapi_pattern(regex)}
    return Annotated[str, BeforeValidator(check), Field(max_length=max_length, **field)]


def integer(column: str, *, low: int = 0, refusal: str = "", **field: Any):
    """An integer the column holds, from low up. refusal, when given, is every refusal's."""
    high = integer_range(ErrorEntry, column)[1]
    refusal = refusal.format(high=high)

    def check(value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            _refuse(refusal) if refusal else _not_a("an integer", value)
        if not low <= value <= high:
            _refuse(refusal or f"must be between {low} and {high}")
        return value

    extra = {"minimum": low, "maximum": high}
    return Annotated[int, BeforeValidator(check), Field(json_schema_extra=extra, **field)]


def choice(values: tuple, refusal: str, **field: Any):
    """One of values."""

    def check(value: Any) -> str:
        if isinstance(value, bool) or value not in values:
            _refuse(refusal)
        return value

    return Annotated[Literal[values], BeforeValidator(check), Field(**field)]


def _timestamp(value: Any) -> datetime:
    if not isinstance(value, str):
        _not_a("a string", value)
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        _refuse(f"is not an ISO 8601 timestamp: {quoted(value)}")
    if parsed.tzinfo is None:
        _refuse("must carry a time zone (for example a trailing Z)")
    try:
        value = parsed.astimezone(UTC)
    except OverflowError:  # year 1 at +01:00 is year 0 in UTC, which datetime cannot hold
        value = None
    if value is None or not MIN_TIMESTAMP <= value <= MAX_TIMESTAMP:
        span = f"{MIN_TIMESTAMP.date().isoformat()} and {MAX_TIMESTAMP.date().isoformat()}"
        _refuse(f"must be between {span} (UTC)")
    return value


Timestamp = Annotated[datetime, BeforeValidator(_timestamp)]


def _most_items(link: type) -> int:
    # Each item is stored at its position in the list, in a small integer column.
    return integer_range(link, "position")[1] + 1


def strings(
    *, item_length: int | None = None, refusal: str = "must be an array of strings", **field: Any
):
    """An array of strings, each stored as it is; refusals name the array, not the item."""

    def check(value: Any) -> list[str]:
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            _refuse(refusal)
        for item in value:
            if reason := text_error(item):
                _refuse(reason)
            if item_length and len(item) > item_length:
                _refuse(f"holds an item longer than {item_length} characters")
        most = field.get("max_length")
        if most and len(value) > most:
            _refuse(f"lists more than {most} items")
        return value

    item = Annotated[str, Field(max_length=item_length)]
    return Annotated[list[item], BeforeValidator(check), Field(**field)]


def _tags(tags: list[str]) -> list[str]:
    limit = Tag._meta.get_field("name").max_length
    for tag in tags:
        if len(tag) > limit:
            _refuse(f"a tag is longer than {limit} characters")
        if not TAG_RE.fullmatch(tag):
            _refuse(f"{quoted(tag)} is not a lowercase tag")
    if len(set(tags)) != len(tags):
        _refuse("lists a tag twice")
    return tags


def _related(ids: list[str]) -> list[str]:
    for item in ids:
        if not ID_RE.fullmatch(item):
            _refuse(f"{quoted(item)} is not an entry id")
    if len(set(ids)) != len(ids):
        _refuse("lists an entry twice")
    return ids


def _repository(full_name: str) -> str:
    # The repository lives in its own table, with its own limits.
    owner, _, name = full_name.partition("/")
    for part, attr in ((owner, "owner"), (name, "name")):
        limit = Repository._meta.get_field(attr).max_length
        if len(part) > limit:
            _refuse(f"{attr} is longer than {limit} characters")
    return full_name


def _compiles(pattern: str) -> str:
    if reason := pattern_error(pattern):
        _refuse(f"does not compile: {reason}")
    return pattern


def _plain_summary(summary: str) -> str:
    if reason := summary_error(summary):
        _refuse(reason)
    return summary


def _safe_link(url: str | None) -> str | None:
    # The page makes it a link: anything but http(s) to a real host could run script there.
    if url and (reason := link_error(url)):
        _refuse(reason)
    return url


Sha = text(regex=SHA_RE, mismatch="must be 7 to 40 lowercase hex characters")
Release = text(regex=RELEASE_RE, mismatch="must be a release such as 0.19.1 or 0.22.0-pre.1")
RowText = text(non_empty=True, max_length=ITEM_LENGTH)
RowLine = integer("line_number", low=1, refusal="must be a positive integer at most {high}")


def _absent_when_unstated(schema: dict) -> None:
    # Optional keys the API writes only when stated: its document shows no null for them.
    schema["anyOf"] = [choice for choice in schema["anyOf"] if choice != {"type": "null"}]
    schema.pop("default", None)


ABSENT_WHEN_UNSTATED = {"json_schema_extra": _absent_when_unstated}


class _Keys(BaseModel):
    # Keys in camelCase, exactly as given: no coercion, and a key nobody declared is refused.
    model_config = ConfigDict(alias_generator=to_camel, strict=True, extra="forbid")


class AppliesToRow(_Keys):
    """Whether the message is raised in some releases with some set-up, and the line saying so."""

    versions: RowText = Field(description='Releases, e.g. "0.20.0 – main".')
    setup: RowText = Field(description="The set-up, e.g. a hand-built checkpointer.")
    outcome: choice((RAISED, NOT_RAISED), f'must be "{RAISED}" or "{NOT_RAISED}"')
    seen: RowText = Field(
        description="What the reader sees: the message when raised, else what appears instead."
    )
    file_path: RowText
    line_number: RowLine
    commit: Sha
    note: RowText | None = Field(None, **ABSENT_WHEN_UNSTATED)


class RaisedInRow(_Keys):
    """A release that raises the message, and the line of its source that raises it."""

    release: Release = Field(description='The release, e.g. "0.19.1".')
    commit: Sha = Field(description="The release's commit.")
    file_path: RowText
    line_number: RowLine


def _release_range(versions: str) -> str:
    # As appliesTo writes them ("0.14.0 – main"), but each end must be a release or main, in
    # order: a row of firesAt is matched against a log's release, so it must name releases.
    ends = version_ends(versions)
    if not all(end == NEWEST or RELEASE_RE.fullmatch(end) for end in ends):
        _refuse(f'must be a release or a range of them, such as "0.14.0 – {NEWEST}"')
    if release_key(ends[0]) > release_key(ends[1]):
        _refuse(f"starts at {ends[0]}, after {ends[1]}")
    return versions


class FiresAtRow(_Keys):
    """Where Rust's own message, raised in burn's code, is this entry: a file's lines, by release.

    The message alone (`attempt to subtract with overflow`) says nothing of its cause; a panic
    with it is this entry only when raised at filePath between firstLine and lastLine, at a
    release within versions. The lines are those of `commit`, and the same at every release of
    versions (check_claims holds each row to it).
    """

    versions: Annotated[RowText, AfterValidator(_release_range)] = Field(
        description='Releases where these lines hold the code, e.g. "0.22.0-pre.1 – main".'
    )
    file_path: RowText = Field(description="The file, as its repository names it.")
    first_line: RowLine
    last_line: RowLine
    commit: Sha = Field(description="The commit whose lines firstLine..lastLine are.")

    @field_validator("last_line")
    @classmethod
    def _not_before_first(cls, last_line: int, info: ValidationInfo) -> int:
        first_line = info.data.get("first_line")
        if first_line is not None and last_line < first_line:
            _refuse("is before firstLine")
        return last_line


class RemovedUpstream(_Keys):
    """A scan of `commit` no longer finds the message; the last commit and release raising it."""

    commit: Sha = Field(description="The scanned commit.")
    last_commit: Sha | None
    last_release: Release | None


def _releases_once(rows: list[RaisedInRow]) -> list[RaisedInRow]:
    releases = [row.release for row in rows]
    if len(set(releases)) != len(releases):
        _refuse("lists a release twice")
    return rows


class Record(_Keys):
    """An error entry as a dataset record (schemaVersion 2)."""

    id: text(regex=ID_RE, mismatch=ID_MISMATCH)
    repo: Annotated[text(regex=REPO_RE, mismatch=REPO_MISMATCH), AfterValidator(_repository)]
    slug: text(column="slug", regex=SLUG_RE, mismatch=SLUG_MISMATCH)
    error_code: text(column="error_code") | None
    error_message: text(column="error_message")
    message_pattern: Annotated[text(column="message_pattern"), AfterValidator(_compiles)]
    error_type: text(column="error_type")
    error_class: text(column="error_class") | None
    http_status: integer("http_status") | None
    severity: choice(
        tuple(ErrorEntry.Severity.values), f"must be one of {', '.join(ErrorEntry.Severity)}"
    )
    file_path: text(column="file_path") | None
    line_number: integer("line_number") | None
    source_code: text(column="source_code") | None
    source_code_start: integer("source_code_start") | None
    source_code_end: integer("source_code_end") | None
    github_url: Annotated[text(column="github_url"), AfterValidator(_safe_link)] | None
    documentation: text(column="documentation")
    trigger_scenarios: text(column="trigger_scenarios")
    common_situations: text(column="common_situations")
    solutions: strings(max_length=ITEMS, item_length=ITEM_LENGTH)
    example_fix: text(column="example_fix") | None
    handling_strategy: text(column="handling_strategy") | None
    validation_code: text(column="validation_code") | None
    type_guard: text(column="type_guard") | None
    try_catch_pattern: text(column="try_catch_pattern") | None
    prevention_tips: strings(max_length=ITEMS, item_length=ITEM_LENGTH)
    tags: Annotated[strings(max_length=_most_items(EntryTag)), AfterValidator(_tags)]
    background_tag: text(column="background_tag") | None
    analyzed_sha: text(regex=SHA_RE, mismatch="must be a lowercase hex commit id") | None
    analyzed_at: Timestamp | None
    content_changed_at: Timestamp | None
    schema_version: choice((SCHEMA_VERSION,), f"unsupported (this server reads {SCHEMA_VERSION})")
    # Beyond the seed schema, and optional on input, so a plain seed record imports.
    # A published record of errorkb's has one (kb.record.validation); a draft may lack it. Written
    # only when there is one.
    summary: Annotated[text(column="summary"), AfterValidator(_plain_summary)] = Field(
        "",
        description=f"What happened and what to do, in at most {SUMMARY_WORDS} plain words; "
        "every published entry has one.",
    )
    related: Annotated[
        strings(
            max_length=_most_items(RelatedLink),
            refusal="must be an array of entry ids",
            description="Ids of related entries, most relevant first.",
        ),
        AfterValidator(_related),
    ] = []
    # The workflow status: dataset files and revisions keep it; the API serves published
    # entries only, without it (so the API's document leaves it out).
    status: choice(
        tuple(ErrorEntry.Status.values), f"must be one of {', '.join(ErrorEntry.Status)}"
    ) = Field(ErrorEntry.Status.PUBLISHED, exclude=True)
    # Absent (None) means not stated, unlike an empty list (stated: no rows).
    applies_to: Annotated[list[AppliesToRow], Field(max_length=ITEMS)] | None = Field(
        None,
        description="Releases and set-ups; absent when the entry does not state them.",
        **ABSENT_WHEN_UNSTATED,
    )
    # What the upstream scanner found (errorkb.upstream); absent until a scan stated it.
    raised_in: (
        Annotated[list[RaisedInRow], Field(max_length=RELEASES), AfterValidator(_releases_once)]
        | None
    ) = Field(
        None,
        description="Each scanned release raising the message, oldest first; absent until a "
        "release scan.",
        **ABSENT_WHEN_UNSTATED,
    )
    # Curated, like appliesTo: absent when not stated, unlike an empty list.
    fires_at: Annotated[list[FiresAtRow], Field(max_length=ITEMS)] | None = Field(
        None,
        description="Where the message, Rust's own, is this entry: burn's file lines per "
        "release range; absent when the entry is keyed by its message alone.",
        **ABSENT_WHEN_UNSTATED,
    )
    removed_upstream: RemovedUpstream | None = Field(
        None,
        description="Set when a scan no longer finds the message; absent while it is raised.",
    )


def _keys(model: type[BaseModel], *, required: bool | None = None) -> tuple[str, ...]:
    return tuple(
        info.alias
        for info in model.model_fields.values()
        if required is None or info.is_required() == required
    )


# (attribute, key) of the seed schema's keys, in the order records write them.
SEED_FIELDS = tuple(
    (name, info.alias) for name, info in Record.model_fields.items() if info.is_required()
)
(
    SUMMARY_KEY,
    RELATED_KEY,
    STATUS_KEY,
    APPLIES_TO_KEY,
    RAISED_IN_KEY,
    FIRES_AT_KEY,
    REMOVED_KEY,
) = _keys(Record, required=False)
APPLIES_TO_ROW_KEYS = _keys(AppliesToRow)
RAISED_IN_ROW_KEYS = _keys(RaisedInRow)
FIRES_AT_ROW_KEYS = _keys(FiresAtRow)
REMOVED_KEYS = _keys(RemovedUpstream)


class Refusal(ValueError):
    """What a record's first refusal names: where in the record (appliesTo[1].commit), and why."""

    def __init__(self, where: str | None, message: str):
        self.where = where
        self.message = message
        super().__init__(f"{where}: {message}" if where else message)

    @classmethod
    def first_of(cls, error: ValidationError, prefix: tuple = ()) -> "Refusal":
        # An unknown key first, as a reader would first ask which keys are there at all.
        errors = sorted(error.errors(), key=lambda e: e["type"] != "extra_forbidden")
        found = errors[0]
        loc = (*prefix, *found["loc"])
        # A key nobody declared is named as given, and may be a megabyte long: cut here to
        # one character more than a refusal quotes, so that quoted() still marks the cut.
        where = "".join(
            f"[{part}]" if isinstance(part, int) else f".{part[: QUOTED_CHARS + 1]}" for part in loc
        )
        return cls(where.lstrip(".") or None, _message(found, top_level=len(loc) == 1))


_TYPES = {"model_type": "a JSON object", "list_type": "an array of rows"}


def _message(error: dict, *, top_level: bool) -> str:
    kind = error["type"]
    if kind == "record":
        return error["ctx"]["reason"]
    if kind == "missing":
        return "missing"
    if kind == "too_long":
        return f"lists more than {error['ctx']['max_length']} items"
    if kind == "extra_forbidden":
        return "unknown field" if top_level else "unknown key"
    if kind in _TYPES:
        return f"must be {_TYPES[kind]}, got {json_type(error['input'])}"
    return error["msg"]


_APPLIES_TO = TypeAdapter(
    Annotated[list[AppliesToRow], Field(max_length=ITEMS)] | None, config=ConfigDict(strict=True)
)


_FIRES_AT = TypeAdapter(
    Annotated[list[FiresAtRow], Field(max_length=ITEMS)] | None, config=ConfigDict(strict=True)
)


def clean_applies_to(value: Any) -> list[dict[str, Any]] | None:
    """appliesTo rows checked and in their key order, for the admin's form; None stays None.

    Raises Refusal naming the row and key, as an import would.
    """
    return _clean_rows(_APPLIES_TO, APPLIES_TO_KEY, value)


def clean_fires_at(value: Any) -> list[dict[str, Any]] | None:
    """firesAt rows checked and in their key order, for the admin's form; None stays None."""
    return _clean_rows(_FIRES_AT, FIRES_AT_KEY, value)


def _clean_rows(rows: TypeAdapter, key: str, value: Any) -> list[dict[str, Any]] | None:
    try:
        return as_stored(rows.validate_python(value))
    except ValidationError as exc:
        raise Refusal.first_of(exc, (key,)) from None


def as_stored(rows: list[BaseModel] | BaseModel | None) -> Any:
    """Rows as the entry's JSON column keeps them: camelCase keys in the declared order."""
    if rows is None:
        return None
    if isinstance(rows, BaseModel):
        return rows.model_dump(by_alias=True)
    return [row.model_dump(by_alias=True, exclude_none=True) for row in rows]


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
    # Written from the declaration's order, not through pydantic: a list page writes 500
    # records, and what is stored was validated on its way in.
    record: dict[str, Any] = {}
    for attr, key in SEED_FIELDS:
        if attr == "repo":
            value = entry.repository.full_name
        elif attr == "tags":
            value = list(tags)
        else:
            value = getattr(entry, attr)
        if isinstance(value, datetime):
            value = format_timestamp(value)
        elif isinstance(value, list):
            value = list(value)
        record[key] = value
    if entry.summary:
        record[SUMMARY_KEY] = entry.summary
    record[RELATED_KEY] = list(related)
    if status is not None:
        record[STATUS_KEY] = status
    # appliesTo, raisedIn, firesAt and removedUpstream only when stated, so records written
    # before they existed export unchanged.
    if entry.applies_to is not None:
        record[APPLIES_TO_KEY] = [_in_order(row, APPLIES_TO_ROW_KEYS) for row in entry.applies_to]
    if entry.raised_in is not None:
        record[RAISED_IN_KEY] = [_in_order(row, RAISED_IN_ROW_KEYS) for row in entry.raised_in]
    if entry.fires_at is not None:
        record[FIRES_AT_KEY] = [_in_order(row, FIRES_AT_ROW_KEYS) for row in entry.fires_at]
    if entry.removed_upstream is not None:
        record[REMOVED_KEY] = _in_order(entry.removed_upstream, REMOVED_KEYS)
    return record


def _in_order(value: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    # PostgreSQL's jsonb does not keep key order.
    return {key: value[key] for key in keys if key in value}
