"""Checking a record's appliesTo rows, for import and for the admin form."""

from typing import Any

from .database_limits import integer_range, text_error
from .models import ErrorEntry
from .records import (
    APPLIES_TO_KEY,
    APPLIES_TO_NOTE_KEY,
    APPLIES_TO_OUTCOMES,
    APPLIES_TO_ROW_KEYS,
    APPLIES_TO_TEXT_KEYS,
    NOT_RAISED,
    RAISED,
    SHA_RE,
    json_type,
    ordered_row,
)


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


def clean_applies_to(value: Any) -> list[dict[str, Any]] | None:
    """appliesTo rows checked and in their key order; None stays None (the key is absent).

    Raises AppliesToError naming the row and key. The admin form checks with it too.
    """
    if value is None:
        return None
    if not isinstance(value, list):
        raise AppliesToError(None, None, f"must be an array of rows, got {json_type(value)}")
    return [_clean_row(i, row) for i, row in enumerate(value)]


def _clean_row(index: int, row: Any) -> dict[str, Any]:
    if not isinstance(row, dict):
        raise AppliesToError(index, None, f"must be a JSON object, got {json_type(row)}")
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
    return ordered_row(row)


def _check_row_storable(index: int, row: dict[str, Any], texts: tuple[str, ...]) -> None:
    for key in texts:
        reason = text_error(row[key])
        if reason:
            raise AppliesToError(index, key, reason)
    # A row's line is the same kind of value as the entry's own lineNumber.
    high = integer_range(ErrorEntry, "line_number")[1]
    if row["lineNumber"] > high:
        raise AppliesToError(index, "lineNumber", f"must be a positive integer at most {high}")
