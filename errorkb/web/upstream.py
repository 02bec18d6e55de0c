"""What the entry page shows of the upstream scanner's findings, and the GitHub links it cites.

raisedIn becomes ranges of consecutive scanned releases at one file and line
(upstream.raised_ranges); removedUpstream becomes the notice at the top.
"""

from dataclasses import dataclass

from errorkb.kb.models import ErrorEntry
from errorkb.upstream.github import blob_url, commit_url
from errorkb.upstream.raised_ranges import raised_ranges, raised_span
from errorkb.upstream.scanned_releases import scanned_releases

SHORT_SHA = 12


@dataclass(frozen=True)
class Commit:
    """A commit as the page names it: its short sha, linking to its GitHub page."""

    sha: str
    url: str

    @property
    def short(self) -> str:
        return self.sha[:SHORT_SHA]


@dataclass(frozen=True)
class RaisedIn:
    """The releases that raise the entry's message: their span, and one row per range."""

    span: str | None  # None when no scanned release raises it
    rows: list[dict]


@dataclass(frozen=True)
class Removed:
    """A scan of `commit` no longer finds the message; what raised it last, if any scan saw."""

    commit: Commit
    last_release: str | None
    last_commit: Commit | None


def raised_in(entry: ErrorEntry) -> RaisedIn | None:
    """The entry's raisedIn as the page shows it; None when no release scan has said."""
    if entry.raised_in is None:
        return None
    if not entry.raised_in:
        return RaisedIn(None, [])
    repo = entry.repository.full_name
    releases = scanned_releases(entry.repository)
    ranges = raised_ranges(entry.raised_in, releases)
    rows = [
        {
            "versions": part.versions,
            "source_label": f"{part.file_path}:{part.line_number}",
            "source_url": blob_url(repo, part.commit, part.file_path, part.line_number),
            "commit": part.commit,
        }
        for part in ranges
    ]
    # A scanned release between two that raise it, not raising it, splits the span too.
    return RaisedIn(raised_span(entry.raised_in, releases), rows)


def removed(entry: ErrorEntry) -> Removed | None:
    """The entry's removedUpstream as the page shows it; None while the message is raised."""
    value = entry.removed_upstream
    if value is None:
        return None
    repo = entry.repository.full_name
    last = value.get("lastCommit")
    return Removed(
        commit=Commit(value["commit"], commit_url(repo, value["commit"])),
        last_release=value.get("lastRelease"),
        last_commit=Commit(last, commit_url(repo, last)) if last else None,
    )
