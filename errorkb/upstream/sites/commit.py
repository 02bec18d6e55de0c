"""A commit's error sites: every source file parsed, or only those changed since a base.

scan_tree(checkout, commit) parses every source file; given the tree of an earlier
scan, it asks git which paths changed between the two commits and parses only those,
taking the rest from the base, so it ends with the same tree a full scan would. Plain
Python: the database keeps trees (errorkb.upstream.models), this module does not know.
"""

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from ..git import Checkout, GitError, MissingBlob
from .error_sites import Site, SourceError, find_sites, is_scanned

# Blobs read from git in one go: bounds the memory a scan of a large tree holds.
BATCH = 400


class ScanError(Exception):
    """A file of the commit that cannot be scanned, named with the commit."""


@dataclass
class FileScan:
    blob: str
    sites: list[Site]


@dataclass
class Tree:
    """The source files of one commit that the scanner reads, each with its sites."""

    commit: str
    files: dict[str, FileScan]
    read: int = 0  # files parsed to make this tree; the rest came from a base
    total: int = field(init=False)

    def __post_init__(self):
        self.total = len(self.files)

    def sites(self) -> Iterator[tuple[str, Site]]:
        """(path, site) in path order, then file order."""
        for path in sorted(self.files):
            for site in self.files[path].sites:
                yield path, site

    @property
    def site_count(self) -> int:
        return sum(len(file.sites) for file in self.files.values())


# Parsed sites by (blob, suffix): the same content is never parsed twice in one process
# run, whichever tag or path it turns up under. Only the suffix of a path matters to
# the parser, once is_scanned let the path in.
Cache = dict[tuple[str, str], list[Site]]


def scan_tree(
    checkout: Checkout,
    commit: str,
    *,
    base: Tree | None = None,
    cache: Cache | None = None,
    progress: Callable[[int], Callable[[int], None]] | None = None,
) -> Tree:
    """The tree of `commit`; with a base, only the files changed since base.commit are read.

    progress, when given, is called with the number of files to read and returns a
    function that is called with each batch's count as it is read.
    """
    if base is None:
        files: dict[str, FileScan] = {}
        wanted = {p: blob for p, blob in checkout.tree(commit).items() if is_scanned(p)}
    else:
        files = dict(base.files)
        wanted = {}
        for change in checkout.changes(base.commit, commit):
            if not is_scanned(change.path):
                continue
            if change.blob is None:
                files.pop(change.path, None)
            else:
                wanted[change.path] = change.blob
    cache = {} if cache is None else cache
    tick = progress(len(wanted)) if progress else None
    for path, scan in _parse(checkout, commit, wanted, cache, tick):
        files[path] = scan
    return Tree(commit, files, read=len(wanted))


def _parse(checkout, commit, wanted: dict[str, str], cache: Cache, progress):
    paths = sorted(wanted)
    for start in range(0, len(paths), BATCH):
        chunk = paths[start : start + BATCH]
        unread = [wanted[p] for p in chunk if _key(p, wanted[p]) not in cache]
        contents = _read(checkout, commit, unread, wanted)
        for path in chunk:
            key = _key(path, wanted[path])
            if key not in cache:
                cache[key] = _sites(path, commit, contents[wanted[path]])
            yield path, FileScan(wanted[path], cache[key])
        if progress:
            progress(len(chunk))


def _read(checkout: Checkout, commit: str, blobs: list[str], wanted: dict[str, str]):
    try:
        return checkout.read(blobs)
    except MissingBlob as exc:
        path = next(p for p, blob in wanted.items() if blob == exc.blob)
        raise ScanError(f"{path} at {commit[:12]}: cannot be read: {exc}") from None
    except GitError as exc:
        raise ScanError(f"at {commit[:12]}: {exc}") from None


def _sites(path: str, commit: str, content: bytes) -> list[Site]:
    try:
        return find_sites(path, content)
    except SourceError as exc:
        raise ScanError(f"at {commit[:12]}: {exc}") from None


def _key(path: str, blob: str) -> tuple[str, str]:
    return blob, PurePosixPath(path).suffix


def read_lines(checkout: Checkout, tree: Tree, paths: set[str]) -> dict[str, list[str]]:
    """The lines of each of these files of the tree, for snippets."""
    blobs = {path: tree.files[path].blob for path in paths}
    contents = checkout.read(list(blobs.values()))
    return {path: contents[blob].decode("utf-8").splitlines() for path, blob in blobs.items()}
