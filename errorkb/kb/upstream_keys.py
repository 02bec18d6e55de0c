"""A record's raisedIn and removedUpstream: checked on import, grouped into ranges to show.

The upstream scanner (errorkb.upstream) writes them; a dataset carries them, so an
export imports back unchanged. raisedIn holds one row per release that raises the
message, oldest first: {release, commit, filePath, lineNumber}. removedUpstream says a
scan of `commit` no longer found the message, and which commit and release raised it
last (either may be null: no scan saw it raised).
"""

import re
from dataclasses import dataclass
from typing import Any

from .applies_to import AppliesToError
from .database_limits import integer_range, text_error
from .models import ErrorEntry
from .records import (
    RAISED_IN_KEY,
    RAISED_IN_ROW_KEYS,
    REMOVED_KEY,
    REMOVED_KEYS,
    SHA_RE,
    json_type,
)
from .versions import release_key

# A release as the scanner names it: its tag without the prefix ("0.19.1", "0.22.0-pre.1").
RELEASE_RE = re.compile(r"^\d+(\.\d+)*(-[0-9A-Za-z.]+)?\Z")


class UpstreamKeyError(AppliesToError):
    """A raisedIn or removedUpstream value that is not valid; names the row and key."""

    def __init__(self, top: str, row: int | None, key: str | None, message: str):
        self.top = top
        super().__init__(row, key, message)

    @property
    def where(self) -> str:
        path = self.top if self.row is None else f"{self.top}[{self.row}]"
        return f"{path}.{self.key}" if self.key else path


def clean_raised_in(value: Any) -> list[dict[str, Any]] | None:
    """raisedIn rows checked, in key order; None stays None (the key is absent)."""
    if value is None:
        return None
    if not isinstance(value, list):
        raise UpstreamKeyError(
            RAISED_IN_KEY, None, None, f"must be an array, got {json_type(value)}"
        )
    rows = [_clean_raised_row(i, row) for i, row in enumerate(value)]
    releases = [row["release"] for row in rows]
    if len(set(releases)) != len(releases):
        raise UpstreamKeyError(RAISED_IN_KEY, None, None, "lists a release twice")
    return rows


def _clean_raised_row(index: int, row: Any) -> dict[str, Any]:
    def refuse(key: str | None, message: str):
        raise UpstreamKeyError(RAISED_IN_KEY, index, key, message)

    if not isinstance(row, dict):
        refuse(None, f"must be a JSON object, got {json_type(row)}")
    _check_keys(row, RAISED_IN_ROW_KEYS, refuse)
    if not isinstance(row["release"], str) or not RELEASE_RE.match(row["release"]):
        refuse("release", "must be a release such as 0.19.1 or 0.22.0-pre.1")
    if not _is_sha(row["commit"]):
        refuse("commit", "must be 7 to 40 lowercase hex characters")
    path = row["filePath"]
    if not isinstance(path, str) or not path.strip() or text_error(path):
        refuse("filePath", text_error(path) if isinstance(path, str) else "must be a string")
    line, high = row["lineNumber"], integer_range(ErrorEntry, "line_number")[1]
    if isinstance(line, bool) or not isinstance(line, int) or not 1 <= line <= high:
        refuse("lineNumber", f"must be a positive integer at most {high}")
    return {key: row[key] for key in RAISED_IN_ROW_KEYS}


def clean_removed_upstream(value: Any) -> dict[str, Any] | None:
    """removedUpstream checked, in key order; None stays None (not removed)."""
    if value is None:
        return None

    def refuse(key: str | None, message: str):
        raise UpstreamKeyError(REMOVED_KEY, None, key, message)

    if not isinstance(value, dict):
        refuse(None, f"must be a JSON object or null, got {json_type(value)}")
    _check_keys(value, REMOVED_KEYS, refuse)
    if not _is_sha(value["commit"]):
        refuse("commit", "must be 7 to 40 lowercase hex characters")
    if value["lastCommit"] is not None and not _is_sha(value["lastCommit"]):
        refuse("lastCommit", "must be 7 to 40 lowercase hex characters, or null")
    release = value["lastRelease"]
    if release is not None and not (isinstance(release, str) and RELEASE_RE.match(release)):
        refuse("lastRelease", "must be a release such as 0.19.1, or null")
    return {key: value[key] for key in REMOVED_KEYS}


def _is_sha(value: Any) -> bool:
    return isinstance(value, str) and SHA_RE.match(value) is not None


def _check_keys(value: dict, keys: tuple[str, ...], refuse) -> None:
    unknown = sorted(set(value) - set(keys))
    if unknown:
        refuse(unknown[0], "unknown key")
    for key in keys:
        if key not in value:
            refuse(key, "missing")


@dataclass(frozen=True)
class RaisedRange:
    """Consecutive releases raising the message at one file and line."""

    first: str
    last: str
    file_path: str
    line_number: int
    commit: str  # the last release's commit, where the line can be read

    @property
    def versions(self) -> str:
        return self.first if self.first == self.last else f"{self.first} – {self.last}"


def raised_ranges(rows: list[dict[str, Any]] | None, releases: list[str] | None = None):
    """The rows grouped into ranges of consecutive releases at the same file and line.

    `releases` is every release the scans read, in order: a release among them that does
    not raise the message splits a range. Without it, the rows' own order is the order.
    """
    rows = sorted(rows or (), key=lambda row: release_key(row["release"]))
    order = {name: i for i, name in enumerate(releases or [row["release"] for row in rows])}
    ranges: list[RaisedRange] = []
    previous = None
    for row in rows:
        place = order.get(row["release"])
        where = (row["filePath"], row["lineNumber"])
        last = ranges[-1] if ranges else None
        if (
            last
            and (last.file_path, last.line_number) == where
            and place is not None
            and previous is not None
            and place == previous + 1
        ):
            ranges[-1] = RaisedRange(last.first, row["release"], *where, row["commit"])
        else:
            ranges.append(RaisedRange(row["release"], row["release"], *where, row["commit"]))
        previous = place
    return ranges


def raised_span(rows: list[dict[str, Any]] | None, releases: list[str] | None = None) -> str | None:
    """ "0.13.0 – 0.21.0": the releases that raise the message, as ranges joined by commas
    where a scanned release between them does not; None when there are no rows."""
    spans: list[list[str]] = []
    for part in raised_ranges(rows, releases):
        if spans and _follows(spans[-1][-1], part.first, rows, releases):
            spans[-1].append(part.last)
        else:
            spans.append([part.first, part.last])
    if not spans:
        return None
    return ", ".join(s[0] if s[0] == s[-1] else f"{s[0]} – {s[-1]}" for s in spans)


def _follows(last: str, first: str, rows, releases: list[str] | None) -> bool:
    order = releases or sorted((row["release"] for row in rows), key=release_key)
    return first in order and last in order and order.index(first) == order.index(last) + 1
