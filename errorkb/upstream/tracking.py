"""Whether the scanner can speak for an entry: did it ever see the entry's message raised?

An entry whose message a scan no longer finds is flagged removed upstream only when the
scanner saw it raised before: in a release it scanned, or at the entry's own pin (its
file at its analyzedSha). A message raised in a form the scanner does not read (a log
line, say) is never found, so its absence says nothing: such an entry is untracked.
"""

from errorkb.kb.upstream_keys import release_key

from .git import Checkout, GitError
from .matching import Known
from .sites import SourceError, find_sites


def last_raised(checkout: Checkout, entry: Known) -> dict | None:
    """{lastCommit, lastRelease} that raised the entry's message, or None (untracked)."""
    newest = _newest_release(entry)
    pinned = _raised_at_pin(checkout, entry)
    if newest is None and not pinned:
        return None
    last_commit = entry.analyzed_sha if pinned else newest["commit"]
    return {"lastCommit": last_commit, "lastRelease": newest["release"] if newest else None}


def _newest_release(entry: Known) -> dict | None:
    rows = entry.raised_in or []
    return max(rows, key=lambda row: release_key(row["release"]), default=None)


def _raised_at_pin(checkout: Checkout, entry: Known) -> bool:
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
