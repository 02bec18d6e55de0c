"""Builders for what the upstream scanner writes: raisedIn rows, removedUpstream, scans."""

from errorkb.kb.models import Repository
from errorkb.upstream.models import Scan

BASE_RS = "crates/burn-train/src/learner/base.rs"


def release_sha(release: str) -> str:
    """A distinct 40-hex commit for each release name."""
    return release.replace(".", "").replace("-", "").encode().hex().ljust(40, "0")[:40]


def raised_in_row(release: str, line: int = 61, path: str = BASE_RS) -> dict:
    """One raisedIn row, in the order records write its keys."""
    return {
        "release": release,
        "commit": release_sha(release),
        "filePath": path,
        "lineNumber": line,
    }


def removed(commit: str = "c" * 40, last_commit: str | None = "d" * 40, last_release="0.15.0"):
    return {"commit": commit, "lastCommit": last_commit, "lastRelease": last_release}


def scan_releases(repo: str, *releases: str) -> None:
    """A release scan of each release, as scanned_releases reads them."""
    owner, name = repo.split("/")
    repository = Repository.objects.get(owner=owner, name=name)
    for release in releases:
        Scan.objects.create(
            repository=repository, commit=release_sha(release), release=release, scanner_version=1
        )
