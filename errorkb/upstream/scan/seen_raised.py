"""Whether the scanner can speak for an entry: did it ever see the entry's message raised?

An entry whose message a scan no longer finds is flagged removed upstream only when the
scanner saw it raised before: in a release it scanned, or at the entry's own pin (its
file at its analyzedSha). A message raised in a form the scanner does not read (a log
line, say) is never found, so its absence says nothing: such an entry is untracked.
"""

from errorkb.kb.record.release_ranges import release_key

from ..git import Checkout, GitError
from ..sites.error_sites import SourceError, find_sites
from .entry_matching import PinnedEntry


def last_raised(checkout: Checkout, entry: PinnedEntry) -> dict | None:
    """{lastCommit, lastRelease} that raised the entry's message, or None (untracked)."""
    newest = newest_release(entry.raised_in)
    pinned = entry.analyzed_sha if _raised_at_pin(checkout, entry) else None
    if newest is None and pinned is None:
        return None
    return {
        "lastCommit": later_commit(checkout, pinned, newest),
        "lastRelease": newest["release"] if newest else None,
    }


def newest_release(rows: list[dict] | None) -> dict | None:
    """The raisedIn row of the newest release, or None."""
    return max(rows or (), key=lambda row: release_key(row["release"]), default=None)


def later_commit(checkout: Checkout, commit: str | None, newest: dict | None) -> str | None:
    """Of a commit that raised the message and the newest release that did, the later.

    The release wins unless the commit comes after it in its history: a patch release's
    branch (0.19.1) is no descendant of a later pre-release (0.20.0-pre.6), which is
    then the one to name.
    """
    if newest is None:
        return commit
    if commit is None or not checkout.is_ancestor(newest["commit"], commit):
        return newest["commit"]
    return commit


def _raised_at_pin(checkout: Checkout, entry: PinnedEntry) -> bool:
    if not (entry.analyzed_sha and entry.file_path) or not checkout.has_commit(entry.analyzed_sha):
        return False
    blob = checkout.blob_at(entry.analyzed_sha, entry.file_path)
    if blob is None:
        return False
    try:
        sites = find_sites(entry.file_path, checkout.read([blob])[blob])
    except (GitError, SourceError):
        return False
    return any(site.message == entry.error_message for site in sites)
