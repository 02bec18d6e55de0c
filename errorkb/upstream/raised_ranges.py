"""A record's raisedIn rows grouped into ranges of releases, to show.

The upstream scanner (errorkb.upstream) writes them; a dataset carries them, so an
export imports back unchanged (record.schema.RaisedInRow and RemovedUpstream declare them).
raisedIn holds one row per release that raises the
message, oldest first: {release, commit, filePath, lineNumber}. removedUpstream says a
scan of `commit` no longer found the message, and which commit and release raised it
last (either may be null: no scan saw it raised).
"""

from dataclasses import dataclass
from typing import Any

from errorkb.kb.record.release_ranges import release_key


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
