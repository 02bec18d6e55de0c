"""The upstream line a pasted location points at, from the release scans' site index.

A panic that no entry explains is still worth naming: when its location is a file of
a repository the scans read, the lookup says which file and line of which release it
is, and what the source says there, marked "no reviewed entry yet". The files are kept
with the lookup's index, sites and all (per process, rebuilt when the content
changes, as the entries' patterns are): a lookup reads no table for them. The shipped
scan of burn holds 8,638 sites.
"""

import re
from collections import defaultdict
from dataclasses import dataclass
from functools import cache
from pathlib import PurePosixPath

import re2

from errorkb.kb import regex
from errorkb.kb.record.release_ranges import release_key
from errorkb.upstream.github import blob_url
from errorkb.upstream.models import ReleaseSite, Scan

from ..matches.fits import Known
from .locations import REGISTRY_CRATE, Location, path_fits
from .places import UPSTREAM, Place

# The crate a repository path belongs to: crates/burn-train/src/..., or burn-train/src/...
# at the top of older trees; not a crate nested deeper (an example's, a test model's).
_CRATE = re.compile(r"^(?:crates/)?(?P<crate>[A-Za-z_][A-Za-z0-9_-]*)/src/")


@dataclass(frozen=True)
class Site:
    message: str
    pattern: str
    releases: tuple[str, ...]


@dataclass(frozen=True)
class UpstreamFile:
    repo: str  # owner/name
    path: str  # the repository's path
    releases: frozenset[str]  # the releases whose scans found sites in it
    sites: dict[int, list[Site]]  # by line


@dataclass(frozen=True)
class UpstreamLine:
    """A file and line of a repository's release, and the site the scans found there."""

    file: UpstreamFile
    line: int
    release: str | None  # the release it is read at: the pasted one, else the newest
    commit: str | None
    message: str | None  # the site's message as written; None: no site at this line
    says_it: bool  # whether that site's message is the pasted one
    releases: tuple[str, ...]  # the releases with this site at this line

    @property
    def url(self) -> str | None:
        """The line at the release's commit; None when no scan says which commit."""
        if not self.commit:
            return None
        return blob_url(self.file.repo, self.commit, self.file.path, self.line)


class UpstreamFiles:
    """The files the release scans read sites in, found by a pasted path."""

    def __init__(self, files: list[UpstreamFile], commits: dict[tuple[str, str], str]):
        self.by_name: dict[str, list[UpstreamFile]] = defaultdict(list)
        self.crates: dict[str, str] = {}  # crate -> owner/name
        # crate -> its folder in the repository -> the releases it is there in
        self.folders: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
        self.commits = commits  # (owner/name, release) -> the commit it was scanned at
        self.scanned = {release for _, release in commits}
        for upstream in files:
            self.by_name[PurePosixPath(upstream.path).name].append(upstream)
            crate = _CRATE.search(upstream.path)
            if crate:
                self.crates.setdefault(crate["crate"], upstream.repo)
                folder = upstream.path[: crate.end("crate")]
                self.folders[crate["crate"]][folder].update(upstream.releases)
            # The crate named as the repository (burn's `burn`, which re-exports the
            # others and raises nothing itself) is the repository's too.
            self.crates.setdefault(upstream.repo.split("/")[1], upstream.repo)
        # crate -> the first and last release its files were scanned in
        self.spans: dict[str, tuple[tuple, tuple]] = {}
        for crate, folders in self.folders.items():
            keys = [release_key(r) for releases in folders.values() for r in releases]
            if keys:
                self.spans[crate] = (min(keys), max(keys))

    @classmethod
    def load(cls, entries: list[Known]) -> "UpstreamFiles":
        """The files of the site index, and those the entries' pins and rows name."""
        files: dict[tuple[str, str], dict] = {}
        rows = ReleaseSite.objects.values_list(
            "repository__owner",
            "repository__name",
            "path",
            "line",
            "message",
            "pattern",
            "releases",
        )
        for owner, name, path, line, message, pattern, names in rows.iterator(2000):
            repo = f"{owner}/{name}"
            held = _held(files, repo, path)
            held["releases"].update(names)
            held["sites"][line].append(Site(message, pattern, tuple(names)))
        for entry in entries:
            for path, names in entry.raised_files().items():
                _held(files, entry.repo, path)["releases"].update(names)
        scans = Scan.objects.releases().values_list(
            "repository__owner", "repository__name", "release", "commit"
        )
        commits = {(f"{owner}/{name}", release): commit for owner, name, release, commit in scans}
        for entry in entries:
            for row in entry.raised_in or ():
                commits.setdefault((entry.repo, row["release"]), row["commit"])
        upstream = [
            UpstreamFile(repo, path, frozenset(held["releases"]), dict(held["sites"]))
            for (repo, path), held in files.items()
        ]
        return cls(upstream, commits)

    def file_at(self, location: Location, release: str | None = None) -> UpstreamFile | None:
        """The repository file the pasted path is, if the scans read it: of the files it
        could be (a crate moved under crates/), the one in `release`, else the newest."""
        name = PurePosixPath(location.path).name
        fitting = [f for f in self.by_name.get(name, ()) if path_fits(location, f.path)]
        if release:
            fitting = [f for f in fitting if release in f.releases] or fitting
        return max(fitting, key=_newest, default=None)

    def _unscanned(self, place: Place | None, release: str | None) -> UpstreamFile | None:
        """The repository's file at a place of its code that no scan found a site in."""
        if place is None or place.whose != UPSTREAM or not place.in_crate:
            return None
        folder = place.crate_folder or self._folder(place.crate, release)
        if folder is None:
            return None
        return UpstreamFile(place.repo, f"{folder}/{place.in_crate}", frozenset(), {})

    def _crate_released(self, crate: str, release: str) -> bool:
        """Whether the crate may have shipped as `release`: not when the scans read that
        release and found the crate's files only in releases all before it or all after it
        (burn-jit ended at 0.16.1). A release the scans did not read is taken at its word."""
        span = self.spans.get(crate)
        if release not in self.scanned or span is None:
            return True
        return span[0] <= release_key(release) <= span[1]

    def _folder(self, crate: str, release: str | None) -> str | None:
        """The crate's folder in the repository at `release` (or its newest)."""
        folders = self.folders.get(crate)
        if not folders:
            return None
        at_release = [folder for folder, releases in folders.items() if release in releases]
        newest = max(folders, key=lambda folder: max(map(release_key, folders[folder]), default=()))
        return at_release[0] if at_release else newest

    def is_upstream_crate(self, crate: str) -> bool:
        return self.repo_of(crate) is not None

    def repo_of(self, crate: str) -> str | None:
        """The repository whose scanned files the crate holds."""
        return self.crates.get(crate)

    def release_in(self, location: Location) -> str | None:
        """The release a registry path names, when its crate is one the scans read."""
        if location.version is None:
            return None
        registry = REGISTRY_CRATE.search(location.path)
        if registry is None or self.repo_of(registry["crate"]) is None:
            return None
        release = location.version.partition("+")[0]
        if not self._crate_released(registry["crate"], release):
            return None  # a version from git the crate never shipped as (burn-jit-0.17.0)
        return release

    def line_at(
        self, location: Location, release: str | None, message: str, place: Place | None = None
    ) -> UpstreamLine | None:
        """The file and line the location names, with the site there at `release` (or at
        any scanned release), the one whose message the text carries first. A file of the
        repository's that holds no site is named too, when the location's place says
        which: an index out of bounds, an overflow, an `unwrap()` in burn's code."""
        upstream = self.file_at(location, release) or self._unscanned(place, release)
        if upstream is None:
            return None
        found = upstream.sites.get(location.line, ())
        sites = [site for site in found if release is None or release in site.releases]
        saying = [site for site in sites if _says(site.pattern, message)]
        site = (saying or sites or [None])[0]
        releases = tuple(site.releases) if site else ()
        read_at = release or (max(releases, key=release_key) if releases else None)
        if read_at is None and upstream.releases:
            read_at = max(upstream.releases, key=release_key)
        return UpstreamLine(
            file=upstream,
            line=location.line,
            release=read_at,
            commit=self.commits.get((upstream.repo, read_at)),
            message=site.message if site else None,
            says_it=bool(saying),
            releases=releases,
        )


def _newest(upstream: UpstreamFile) -> tuple:
    return _newest_of(upstream.releases)


@cache
def _newest_of(releases: frozenset[str]) -> tuple:
    # Files share few distinct sets of releases: each is ordered once a process.
    return max(map(release_key, releases), default=())


def _held(files: dict, repo: str, path: str) -> dict:
    return files.setdefault((repo, path), {"releases": set(), "sites": defaultdict(list)})


def _says(pattern: str, message: str) -> bool:
    if not message:
        return False
    try:
        return regex.search(pattern, message) is not None
    except re2.error:
        return False
