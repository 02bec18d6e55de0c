"""Release scans: which releases raise each entry's message, and at which file and line.

The tags are scanned oldest first, each from the tree of the one before it, so only the
files that changed between two tags are parsed. Each entry's raisedIn gets a row per
release whose sites hold its message (matched as a head scan matches); rows of releases
this run did not scan stay. An entry no release raises keeps raisedIn unset when the
scanner never saw it raised at all (its form is one the scanner does not read).
"""

import fnmatch
from collections.abc import Callable
from dataclasses import dataclass, field

from packaging.version import InvalidVersion, Version

from errorkb.kb import editing
from errorkb.kb.models import ErrorEntry, Repository
from errorkb.kb.record.names import RELEASE_RE
from errorkb.kb.record.release_ranges import release_key

from ..git import Checkout
from ..sites.commit import Cache, Tree, scan_tree
from .entry_matching import PinnedEntry, known_entries, pair
from .kept_trees import record_scan
from .seen_raised import later_commit, newest_release


@dataclass(frozen=True)
class Release:
    tag: str
    name: str  # the tag without its prefix: "0.19.1"
    commit: str


@dataclass
class ReleaseScan:
    release: Release
    tree: Tree
    raised: int = 0  # entries whose message this release raises (set by plan_releases)


@dataclass
class ReleasesPlan:
    scans: list[ReleaseScan] = field(default_factory=list)
    rows: dict[str, list[dict]] = field(default_factory=dict)  # entry id -> its new raisedIn
    removed: dict[str, dict | None] = field(default_factory=dict)  # and its removedUpstream
    changed: list[PinnedEntry] = field(default_factory=list)


def releases_of(
    checkout: Checkout, pattern: str, since: str | None, skip: list[str]
) -> tuple[list[Release], list[str]]:
    """The release tags to scan, oldest first, and the matching tags that are not releases."""
    found, ignored = [], []
    for tag, commit in checkout.tags(pattern):
        if any(fnmatch.fnmatchcase(tag, glob) for glob in skip):
            continue
        name = release_name(tag)
        if is_release(name):
            found.append(Release(tag, name, commit))
        else:
            ignored.append(tag)
    found.sort(key=lambda r: release_key(r.name))
    if since is not None:
        floor = release_key(release_name(since))
        found = [r for r in found if release_key(r.name) >= floor]
    return found, ignored


def is_release(name: str) -> bool:
    """Whether a tag's name is a release: 0.19.1, or a pre-release such as 0.22.0-pre.1
    or 1.0.0-rc.2. A tag such as v0.19.0-book has the shape of a pre-release but names
    a snapshot of the book, not a release; packaging's version grammar, which knows the
    pre-release stages (alpha, beta, rc, pre, dev, ...), tells them apart."""
    if not RELEASE_RE.match(name):
        return False
    try:
        Version(name)
    except InvalidVersion:
        return False
    return True


def release_name(tag: str) -> str:
    """The release a tag names: v0.19.1 is 0.19.1."""
    return tag[1:] if tag[:1] in ("v", "V") else tag


def scan_releases(
    checkout: Checkout,
    releases: list[Release],
    cache: Cache,
    progress: Callable[[Release], Callable[[int], Callable[[int], None]]] | None = None,
) -> list[ReleaseScan]:
    """The tree of each release, oldest first, each read from the one before."""
    scans, tree = [], None
    for release in releases:
        start = progress(release) if progress else None
        tree = scan_tree(checkout, release.commit, base=tree, cache=cache, progress=start)
        scans.append(ReleaseScan(release, tree))
    return scans


def plan_releases(
    repository: Repository, checkout: Checkout, scans: list[ReleaseScan]
) -> ReleasesPlan:
    """Every entry's raisedIn after these release scans, and its flag's last release."""
    entries = known_entries(ErrorEntry.objects.filter(repository=repository))
    pins = [e.pin for e in entries]
    plan = ReleasesPlan(scans=scans)
    found: dict[str, list[dict]] = {e.id: [] for e in entries}
    for scan in scans:
        release = scan.release
        taken, _ = pair(pins, list(scan.tree.sites()))
        for entry_id, (path, site) in taken.items():
            row = {"release": release.name, "commit": release.commit, "filePath": path}
            found[entry_id].append({**row, "lineNumber": site.line})
        scan.raised = len(taken)
    scanned = {scan.release.name for scan in scans}
    for entry in entries:
        rows = _merged(entry.raised_in, found[entry.id], scanned)
        removed = _last_raised(checkout, entry.removed_upstream, rows)
        if rows != entry.raised_in or removed != entry.removed_upstream:
            plan.rows[entry.id] = rows
            plan.removed[entry.id] = removed
            plan.changed.append(entry)
    return plan


def _merged(old: list[dict] | None, new: list[dict], scanned: set[str]) -> list[dict] | None:
    kept = [row for row in old or () if row["release"] not in scanned]
    rows = sorted(kept + new, key=lambda row: release_key(row["release"]))
    if not rows and old is None:
        return None  # never seen raised: nothing to state
    return rows


def apply_releases(repository: Repository, plan: ReleasesPlan, user=None) -> None:
    """Write the plan inside the caller's transaction and revision."""
    for scan in plan.scans:
        record_scan(repository, scan.tree, ref=scan.release.tag, release=scan.release.name)
    entries = ErrorEntry.objects.in_bulk([known.id for known in plan.changed])
    for known in plan.changed:
        entry = entries[known.id]
        with editing.change(entry, user, comment="Releases from a scan"):
            entry.raised_in = plan.rows[entry.id]
            entry.removed_upstream = plan.removed[entry.id]
            entry.save()


def _last_raised(checkout: Checkout, removed: dict | None, rows: list[dict] | None):
    """A flag's lastRelease and lastCommit after the release scans: the newest that raised."""
    newest = newest_release(rows)
    if removed is None or newest is None:
        return removed
    last = later_commit(checkout, removed["lastCommit"], newest)
    return {**removed, "lastCommit": last, "lastRelease": newest["release"]}
