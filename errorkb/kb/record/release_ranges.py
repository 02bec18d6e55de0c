"""The releases a `versions` value names: "0.13.0 – 0.19.1", "0.21.0", "0.22.0-pre.1 – main".

The same syntax marks the sections of a record's snippets (`// burn 0.20.0 – 0.21.0`).
Releases are ordered by `release_key`, the only ordering of releases errorkb has: the
version order of `packaging` (which knows pre-releases: 0.22.0-pre.1 before 0.22.0), and
`main`, the newest commit, after every tag.
"""

import re

from packaging.version import InvalidVersion, Version

# "0.13.0 – 0.19.1": an en dash (or a hyphen) with spaces between the two ends.
RANGE_RE = re.compile(r"\s+[–-]\s+")
NEWEST = "main"


def version_ends(versions: str) -> tuple[str, str]:
    """The first and last release a `versions` value names (the same one for a single release)."""
    ends = RANGE_RE.split(versions.strip(), maxsplit=1)
    return ends[0], ends[-1]


def version_in(version: str, versions: str) -> bool:
    """Whether `version` lies in a row's range of releases ("A – B", or one release)."""
    low, high = version_ends(versions)
    return release_key(low) <= release_key(version) <= release_key(high)


_NO_VERSION = Version("0")


def release_key(version: str) -> tuple:
    """Where a release stands among the others: by packaging's version order, main last.

    A name packaging cannot read (no release of burn has one: scan.releases.is_release
    keeps them out) sorts before every release, by its text, rather than fail a page.
    """
    if version == NEWEST:
        return (2, _NO_VERSION, "")
    try:
        return (1, Version(version), "")
    except InvalidVersion:
        return (0, _NO_VERSION, version)
