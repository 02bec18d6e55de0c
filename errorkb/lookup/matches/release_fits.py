"""Which of an entry's releases a pasted location fits.

An entry's appliesTo rows say, per range of releases, at which file and line the
message is raised ("0.13.0 – 0.19.1", "0.22.0-pre.1 – main", "0.21.0"). A pasted
panic at one of those lines fits those releases; a path from the cargo registry
carries its release as well (burn-train-0.19.1/), which narrows them to one.
The upstream scanner's raisedIn rows say the same per release; the rows a location
fits are grouped into ranges of consecutive scanned releases. An entry of Rust's own
message (`attempt to subtract with overflow`) names, in its firesAt rows, the lines of
each range of releases where it is that entry.
"""

from collections.abc import Iterable, Sequence
from typing import Any

from errorkb.kb.record.release_ranges import version_ends, version_in
from errorkb.upstream.raised_ranges import raised_ranges

from ..story.locations import Location, path_fits


def fitting_releases(rows: list[dict[str, Any]] | None, location: Location) -> list[str]:
    """The `versions` of every row raising the message at the pasted file and line; the
    release a registry path names instead, when a row's range holds it."""
    return _fitting(
        (
            row["versions"]
            for row in rows or ()
            if row.get("outcome") == "raised"
            and row.get("lineNumber") == location.line
            and path_fits(location, row.get("filePath"))
        ),
        location,
    )


def _fitting(ranges: Iterable[str], location: Location) -> list[str]:
    """The ranges, once each; where the pasted path names its release (a registry path),
    that release instead, for the ranges that hold it."""
    fitting = []
    for versions in ranges:
        if location.version:
            if not version_in(_release_of(location.version), versions):
                continue
            versions = _release_of(location.version)
        if versions not in fitting:
            fitting.append(versions)
    return _widest(fitting)


def _widest(ranges: list[str]) -> list[str]:
    """The ranges without those another one holds (rows of several set-ups overlap:
    "0.22.0-pre.1 – 0.22.0-pre.2" and "main" inside "0.22.0-pre.1 – main")."""
    return [
        versions
        for versions in ranges
        if not any(
            other != versions and all(version_in(end, other) for end in version_ends(versions))
            for other in ranges
        )
    ]


def fitting_raised(
    rows: list[dict[str, Any]] | None, location: Location, releases: Sequence[str] = ()
) -> list[str]:
    """The ranges of the raisedIn rows raising the message at the pasted file and line.

    `releases` is every release the repository's scans read, oldest first: one between
    two fitting rows that does not fit splits their range.
    """
    fitting = [
        row
        for row in rows or ()
        if row["lineNumber"] == location.line
        and path_fits(location, row["filePath"])
        and (not location.version or row["release"] == _release_of(location.version))
    ]
    return [part.versions for part in raised_ranges(fitting, list(releases))]


def _release_of(version: str) -> str:
    # A registry directory may carry build metadata (1.0.0+build), which no tag names.
    return version.partition("+")[0]


def fitting_sites(rows: list[dict[str, Any]] | None, location: Location) -> list[str]:
    """The `versions` of every firesAt row whose file and lines hold the pasted location;
    the release a registry path names instead, when a row's range holds it."""
    return _fitting(
        (
            row["versions"]
            for row in rows or ()
            if row["firstLine"] <= location.line <= row["lastLine"]
            and path_fits(location, row["filePath"])
        ),
        location,
    )
