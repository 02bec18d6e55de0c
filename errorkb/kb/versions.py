"""The releases a `versions` value names: "0.13.0 – 0.19.1", "0.21.0", "0.22.0-pre.1 – main".

The same syntax marks the sections of a record's snippets (`// burn 0.20.0 – 0.21.0`).
Releases are ordered by `release_key`; `main`, the newest commit, comes after every tag.
"""

import re

from .upstream_keys import release_key

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
    return version_key(low) <= version_key(version) <= version_key(high)


def version_key(version: str) -> tuple:
    """Order releases as `release_key` does, with main after every tag."""
    return (1, ()) if version == NEWEST else (0, release_key(version))
