"""One scan of a repository: read its source (a commit, and its releases if asked), then
change the knowledge base in one transaction and one revision, or, dry, not at all.

All of git and the parser is read before anything is written, so a file that cannot
be read, or a commit that is not there, fails the scan with nothing half-written.
"""

from collections.abc import Callable
from dataclasses import dataclass, field

import reversion
from django.db import transaction

from errorkb.kb.models import Repository
from errorkb.kb.record.names import RELEASE_RE, REPO_RE

from ..git import Checkout, GitError
from ..sites.commit import Cache, ScanError, Tree, scan_tree
from ..sites.error_sites import SCANNER_VERSION
from .head import HeadPlan, apply_head, plan_head
from .kept_trees import last_head_scan, record_scan, store_tree, stored_tree
from .releases import (
    ReleaseScan,
    ReleasesPlan,
    apply_releases,
    plan_releases,
    release_name,
    releases_of,
    scan_releases,
)
from .site_index import index_release_sites


class ScanRefused(Exception):
    """The scan could not be made as asked; nothing was written."""


@dataclass
class ScanRequest:
    repo: str  # owner/name
    path: str  # the checkout or bare git directory
    commit: str = "HEAD"
    releases: str | None = None  # a tag glob ("v*") to scan releases, or None
    since: str | None = None  # the oldest release to scan ("v0.13.0")
    skip_tags: list[str] = field(default_factory=list)
    dry_run: bool = False


@dataclass
class ScanReport:
    repo: str
    ref: str
    tree: Tree
    incremental_from: str | None  # the commit the head scan built on, if any
    head: HeadPlan
    releases: ReleasesPlan | None
    ignored_tags: list[str]
    dry_run: bool


# progress(label) -> start(total) -> tick(count)
Progress = Callable[[str], Callable[[int], Callable[[int], None]]]


class _DryRun(Exception):
    pass


@dataclass
class _Reading:
    """All a scan reads from git, before it writes anything."""

    checkout: Checkout
    base: Tree | None
    tree: Tree
    releases: list[ReleaseScan]
    ignored_tags: list[str]


def scan_source(request: ScanRequest, progress: Progress | None = None) -> ScanReport:
    """Scan as asked and apply it (unless dry); ScanRefused says why it could not."""
    if not REPO_RE.match(request.repo):
        raise ScanRefused(f"{request.repo!r}: a repository is named owner/name")
    if request.since is not None and not RELEASE_RE.match(release_name(request.since)):
        raise ScanRefused(f"--since {request.since!r}: not a release such as v0.13.0")
    try:
        reading = _read(request, progress)
    except (GitError, ScanError) as exc:
        raise ScanRefused(str(exc)) from None
    try:
        return _write(request, reading)
    except GitError as exc:  # a snippet's file, read while writing: nothing is kept
        raise ScanRefused(str(exc)) from None


def _read(request: ScanRequest, progress: Progress | None) -> _Reading:
    checkout = Checkout(request.path)
    sha = checkout.resolve(request.commit)
    found, ignored = [], []
    if request.releases is not None:
        found, ignored = releases_of(checkout, request.releases, request.since, request.skip_tags)
        if not found:
            raise ScanRefused(f"no release tags match {request.releases!r} in {request.path}")
    repository = _existing(request.repo)
    base = stored_tree(repository) if repository else None
    cache: Cache = {}  # the head and the releases share files they have in common
    start = progress(f"{request.repo} @ {sha[:12]}") if progress else None
    tree = scan_tree(checkout, sha, base=base, cache=cache, progress=start)
    per_release = (lambda release: progress(release.tag)) if progress else None
    releases = scan_releases(checkout, found, cache, per_release)
    return _Reading(checkout, base, tree, releases, ignored)


def _write(request: ScanRequest, reading: _Reading) -> ScanReport:
    """One transaction and one revision; rolled back whole on a dry run."""
    checkout, tree = reading.checkout, reading.tree
    try:
        with transaction.atomic(), reversion.create_revision():
            repository = _repository(request.repo)
            _check_base_is_current(repository, reading.base)
            head = plan_head(repository, checkout, tree)
            apply_head(head, checkout)
            store_tree(repository, tree, reading.base)
            record_scan(repository, tree, ref=request.commit)
            releases = None
            if reading.releases:
                releases = plan_releases(repository, checkout, reading.releases)
                apply_releases(repository, releases)
                index_release_sites(repository, reading.releases)
            base_commit = reading.base.commit if reading.base else None
            report = ScanReport(
                request.repo, request.commit, tree, base_commit, head, releases,
                reading.ignored_tags, request.dry_run,
            )  # fmt: skip
            reversion.set_comment(summary(report))
            if request.dry_run:
                raise _DryRun
    except _DryRun:
        pass
    return report


def _check_base_is_current(repository: Repository, base: Tree | None) -> None:
    # Two scans of one repository at once would each build on the same last tree; the
    # second to write would drop what the first wrote. The row lock orders them.
    Repository.objects.select_for_update().filter(pk=repository.pk).first()
    last = last_head_scan(repository)
    if base is not None and (last is None or last.commit != base.commit):
        raise ScanRefused("another scan of this repository finished meanwhile: scan again")
    if base is None and last is not None and last.scanner_version == SCANNER_VERSION:
        raise ScanRefused("another scan of this repository finished meanwhile: scan again")


def summary(report: ScanReport) -> str:
    head = report.head
    text = (
        f"Scan of {report.repo} at {report.tree.commit[:12]}: {len(head.drafts)} drafted, "
        f"{len(head.repins)} re-pinned, {len(head.flagged)} flagged removed upstream, "
        f"{len(head.restored)} raised again"
    )
    if report.releases is not None:
        releases = report.releases
        text += f"; {len(releases.scans)} releases, raisedIn of {len(releases.changed)} entries"
    return text


def _existing(full_name: str) -> Repository | None:
    owner, name = full_name.split("/")
    return Repository.objects.filter(owner=owner, name=name).first()


def _repository(full_name: str) -> Repository:
    owner, name = full_name.split("/")
    repository, _ = Repository.objects.get_or_create(
        owner=owner, name=name, defaults={"url": f"https://github.com/{owner}/{name}"}
    )
    return repository
