"""The site index: every error site the release scans found, with the releases that have it.

A release scan keeps, besides each entry's raisedIn, every site of every release it
read (ReleaseSite): the file, the line, the message as written. The lookup reads them
to name the upstream line a pasted panic points at when no entry explains it yet.

The index can be written to a file and read back (`manage.py scan_source --releases
--site-index FILE`, `manage.py load_site_index FILE`), so a scan of a repository's
release tags can ship with the demo data and work without a git checkout:

    {"siteIndexVersion": 1, "repo": "owner/name", "scannerVersion": 1,
     "releases": [{"release": "0.19.1", "tag": "v0.19.1", "commit": "<sha>",
                   "files": 1058, "sites": 1131}, ...],            oldest first
     "sites": [[path, line, message, pattern, errorType, "0-17,24"], ...]}

the last member of a site being the indexes into `releases` that have it, as runs.
"""

import gzip
import json
import zlib
from pathlib import Path
from typing import Any

from django.db import transaction

from errorkb.kb.changes import catalog_changed
from errorkb.kb.models import Repository
from errorkb.kb.record.names import REPO_RE
from errorkb.kb.record.release_ranges import release_key

from ..claims.release_index import places_of, spans
from ..models import ReleaseSite, Scan
from ..sites.error_sites import SCANNER_VERSION
from .releases import ReleaseScan, is_release

INDEX_VERSION = 1
# The most JSON a site index may hold, expanded when it is gzip. burn's, of 41 releases and
# 8,638 sites, holds 1.3 MB. Parsed, JSON takes about five times its size in memory, up to
# thirty times for a file of nested empty lists: a hostile index stays under 0.5 GB.
MAX_SITE_INDEX_BYTES = 16 * 2**20
GZIP_MAGIC = b"\x1f\x8b"
SiteKey = tuple[str, int, str, str, str]  # path, line, message, pattern, error type


class SiteIndexError(ValueError):
    """A site index file that cannot be loaded; the message says where and why."""


def index_release_sites(repository: Repository, scans: list[ReleaseScan]) -> None:
    """Record the sites of these release scans, inside the caller's transaction.

    A release scanned again replaces what the index held for it; other releases stay.
    """
    scanned = {scan.release.name for scan in scans}
    held: dict[SiteKey, set[str]] = {}
    for row in ReleaseSite.objects.filter(repository=repository):
        kept = set(row.releases) - scanned
        if kept:
            held[(row.path, row.line, row.message, row.pattern, row.error_type)] = kept
    for scan in scans:
        for path, site in scan.tree.sites():
            key = (path, site.line, site.message, site.pattern, site.error_type)
            held.setdefault(key, set()).add(scan.release.name)
    _replace(repository, held)


def _replace(repository: Repository, held: dict[SiteKey, set[str]]) -> None:
    ReleaseSite.objects.filter(repository=repository).delete()
    ReleaseSite.objects.bulk_create(
        (
            ReleaseSite(
                repository=repository,
                path=path,
                line=line,
                message=message,
                pattern=pattern,
                error_type=error_type,
                releases=sorted(releases, key=release_key),
            )
            for (path, line, message, pattern, error_type), releases in sorted(held.items())
        ),
        batch_size=1000,
    )
    catalog_changed()  # entry pages group their raisedIn rows by these releases


def export_site_index(repository: Repository) -> dict[str, Any]:
    """The repository's release scans and site index, as the file holds them."""
    scans = sorted(
        Scan.objects.releases().filter(repository=repository), key=lambda s: release_key(s.release)
    )
    place = {scan.release: i for i, scan in enumerate(scans)}
    rows = ReleaseSite.objects.filter(repository=repository).order_by("path", "line", "message")
    return {
        "siteIndexVersion": INDEX_VERSION,
        "repo": repository.full_name,
        "scannerVersion": SCANNER_VERSION,
        "releases": [
            {
                "release": scan.release,
                "tag": scan.ref,
                "commit": scan.commit,
                "files": scan.files,
                "sites": scan.sites,
            }
            for scan in scans
        ],
        "sites": [
            [
                row.path,
                row.line,
                row.message,
                row.pattern,
                row.error_type,
                spans([place[name] for name in row.releases if name in place]),
            ]
            for row in rows
        ],
    }


def write_site_index(index: dict[str, Any], path: Path) -> None:
    """Write the index as JSON, gzip-compressed when the name ends in .gz."""
    text = json.dumps(index, ensure_ascii=False, separators=(",", ":")) + "\n"
    data = text.encode("utf-8")
    path.write_bytes(gzip.compress(data, mtime=0) if path.suffix == ".gz" else data)


def read_site_index(path: Path) -> dict[str, Any]:
    """The index a file holds, checked; SiteIndexError names what is wrong.

    Never read, or expanded, past MAX_SITE_INDEX_BYTES: a pipe or a device is read as
    it comes, once, within the same bound.
    """
    try:
        data = _read_at_most(path, MAX_SITE_INDEX_BYTES + 1)
    except (OSError, EOFError, zlib.error) as error:
        raise SiteIndexError(f"{path}: cannot read it: {error}") from error
    if len(data) > MAX_SITE_INDEX_BYTES:
        raise SiteIndexError(
            f"{path}: it holds more than {MAX_SITE_INDEX_BYTES // 2**20} MB of JSON, "
            "the most a site index may"
        )
    try:
        index = json.loads(data)
    except ValueError as error:  # UnicodeDecodeError among them
        raise SiteIndexError(f"{path}: cannot read it: {error}") from error
    _check(index)
    return index


def _read_at_most(path: Path, size: int) -> bytes:
    """Up to size bytes of the file's content, expanded when it is gzip."""
    with path.open("rb") as file:
        compressed = file.peek(len(GZIP_MAGIC)).startswith(GZIP_MAGIC)
        # GzipFile.read(size) expands no more than size bytes, however far the file would.
        return (gzip.GzipFile(fileobj=file) if compressed else file).read(size)


def load_site_index(index: dict[str, Any]) -> tuple[Repository, int, int]:
    """Replace the repository's release scans and site index with the file's, in one
    transaction; the repository is created when new. Returns it, and the releases and
    sites loaded."""
    owner, name = index["repo"].split("/")
    releases = index["releases"]
    with transaction.atomic():
        repository, _ = Repository.objects.get_or_create(
            owner=owner, name=name, defaults={"url": f"https://github.com/{owner}/{name}"}
        )
        Scan.objects.releases().filter(repository=repository).delete()
        Scan.objects.bulk_create(
            Scan(
                repository=repository,
                commit=release["commit"],
                ref=release["tag"],
                release=release["release"],
                scanner_version=index["scannerVersion"],
                files=release["files"],
                files_read=0,
                sites=release["sites"],
            )
            for release in releases
        )
        names = [release["release"] for release in releases]
        held = {
            (path, line, message, pattern, error_type): {names[i] for i in places_of(runs)}
            for path, line, message, pattern, error_type, runs in index["sites"]
        }
        _replace(repository, held)
    return repository, len(releases), len(held)


def _check(index: Any) -> None:
    def refuse(message: str):
        raise SiteIndexError(f"not a site index: {message}")

    if not isinstance(index, dict) or index.get("siteIndexVersion") != INDEX_VERSION:
        refuse(f"siteIndexVersion must be {INDEX_VERSION}")
    if not isinstance(index.get("repo"), str) or not REPO_RE.match(index["repo"]):
        refuse("repo must be owner/name")
    if not isinstance(index.get("scannerVersion"), int):
        refuse("scannerVersion must be a number")
    releases = index.get("releases")
    if not isinstance(releases, list):
        refuse("releases must be a list")
    for number, release in enumerate(releases):
        if not (
            isinstance(release, dict)
            and isinstance(release.get("release"), str)
            and is_release(release["release"])
            and all(isinstance(release.get(key), str) for key in ("tag", "commit"))
            and all(_count(release.get(key)) for key in ("files", "sites"))
        ):
            refuse(f"releases[{number}] must hold release, tag, commit, files and sites")
    if len({release["release"] for release in releases}) != len(releases):
        refuse("a release is listed twice")
    sites = index.get("sites")
    if not isinstance(sites, list):
        refuse("sites must be a list")
    for number, site in enumerate(sites):
        if not _is_site(site, len(releases)):
            refuse(f"sites[{number}] must be [path, line, message, pattern, errorType, releases]")


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _is_site(site: Any, releases: int) -> bool:
    if not (isinstance(site, list) and len(site) == 6):
        return False
    path, line, message, pattern, error_type, runs = site
    if not all(isinstance(value, str) for value in (path, message, pattern, error_type, runs)):
        return False
    if not (_count(line) and line >= 1 and path and len(path) <= 1000):
        return False
    try:
        return all(0 <= place < releases for place in places_of(runs)) and bool(runs)
    except ValueError:
        return False
