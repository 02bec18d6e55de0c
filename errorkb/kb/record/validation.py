"""Reading a record back: validate_record() checks one against record.schema.Record.

Every message names the record and the field. Import and the admin upload call it for
every record of a file before anything is written.
"""

from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from ..models import ErrorEntry
from .lengths import quoted
from .schema import RELATED_KEY, SUMMARY_KEY, Record, Refusal, as_stored, json_type


class InvalidRecord(ValueError):
    """A record that cannot be imported; names the record and the field."""

    def __init__(self, record: str, field: str | None, message: str):
        self.record = record
        self.field = field
        self.message = message
        where = f"record {record}" + (f", field {quoted(field)}" if field else "")
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
    try:
        record = Record.model_validate(data)
    except ValidationError as exc:
        refusal = Refusal.first_of(exc)
        raise InvalidRecord(label, refusal.where, refusal.message) from None
    _check_across_fields(label, record)

    values = record.model_dump(exclude={"id", "repo", "tags", "related", "status"})
    values["applies_to"] = as_stored(record.applies_to)
    values["raised_in"] = as_stored(record.raised_in)
    values["fires_at"] = as_stored(record.fires_at)
    values["removed_upstream"] = as_stored(record.removed_upstream)
    return CleanRecord(
        id=record.id,
        repo=record.repo,
        values=values,
        tags=record.tags,
        related=record.related,
        status=record.status,
    )


def _showable(entry_id: Any) -> bool:
    # The id names the record in every message; one that cannot be shown as it is would
    # carry a surrogate or a megabyte into the page, so the index alone names it then.
    return isinstance(entry_id, str) and len(entry_id) <= 64 and entry_id.isprintable()


def _check_across_fields(label: str, record: Record) -> None:
    # What one field cannot say alone: how it stands to another.
    start, end, line = record.source_code_start, record.source_code_end, record.line_number
    if start is not None and end is not None and end < start:
        raise InvalidRecord(label, "sourceCodeEnd", "is before sourceCodeStart")
    if None not in (start, end, line) and not start <= line <= end:
        raise InvalidRecord(label, "lineNumber", "is outside sourceCodeStart..sourceCodeEnd")
    if record.id in record.related:
        raise InvalidRecord(label, RELATED_KEY, "an entry cannot be related to itself")
    # A record that states its status is errorkb's own and, published, has a summary; a
    # plain seed record (no status, no summary: keys errorkb added) still imports.
    stated = "status" in record.model_fields_set
    if stated and record.status == ErrorEntry.Status.PUBLISHED and not record.summary:
        raise InvalidRecord(label, SUMMARY_KEY, "is required for a published entry")
