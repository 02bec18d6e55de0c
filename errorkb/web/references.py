"""Issue and source references in curated text, as the links markup puts on them.

`owner/repo#1234` links to that issue (GitHub sends a pull request's number on to it).
`path/file.rs:NN` or `file.rs:NN–MM`, with "at vX.Y.Z", "@vX.Y.Z", "at main" or nothing
after it, links to those lines at that release's tag, or at the entry's pinned commit
(analyzedSha) for main or when no release is named. Only a path that resolves to exactly
one file known at that release (the entry's own paths, the scanner's site index) gets a
link; a reference that names a release some other way ("before 0.14.0", "at 0.19.x"),
or a file that could be two, stays text.
"""

import re
from collections import defaultdict
from dataclasses import dataclass
from pathlib import PurePosixPath

from django.db.models import Q

from errorkb.kb.models import ErrorEntry
from errorkb.upstream.github import blob_url
from errorkb.upstream.models import ReleaseSite, Scan, ScannedFile

ISSUE_RE = re.compile(r"(?<![\w./#-])([A-Za-z0-9][A-Za-z0-9-]*/[A-Za-z0-9_.-]+)#([0-9]+)\b")
SOURCE_RE = re.compile(
    r"(?<![\w./-])(?:(?P<crate>burn-[\w-]+) )?"
    r"(?P<ref>(?P<path>(?:[\w.-]+/)*[\w-]+\.rs):(?P<first>[0-9]+)(?:[–-](?P<last>[0-9]+))?)"
    r"(?:(?: at |@)(?P<at>v?[0-9]+\.[0-9][\w.-]*|main)"
    # A column (a panic's location, from some log) or a release named otherwise: text.
    r"|(?P<other>:[0-9]| (?:in|before|after|until|since|from|up to|to) v?[0-9]))?"
)
MAIN = "main"


@dataclass(frozen=True)
class Sources:
    """Where an entry's source references can point: its repository's refs and their files."""

    repo: str  # owner/name
    pinned: str  # the entry's analyzedSha: main as the entry read it ("" when unknown)
    tags: dict[str, str]  # release -> the tag (or commit) its scan read
    files: dict[str, frozenset[str]]  # tag or commit -> the paths known there

    def url(
        self, path: str, first: int, last: int | None, *, at: str | None, crate: str | None
    ) -> str:
        """The lines' address, or "" when the release or the file is not known for sure."""
        ref = self.pinned if at in (None, MAIN) else self.tags.get(at.removeprefix("v"))
        if not ref or (last is not None and last < first):
            return ""
        found = [known for known in self.files.get(ref, ()) if _names(path, known, crate)]
        return blob_url(self.repo, ref, found[0], first, last) if len(found) == 1 else ""


def _names(path: str, known: str, crate: str | None) -> bool:
    """Whether a reference's path (after the crate it names, if any) can mean known."""
    if "/src/" in path:  # written from the repository's root: that layout, no other
        return path == known
    return f"/{known}".endswith(f"/{path}") and (not crate or f"/{crate}/" in f"/{known}")


def links_in(text: str, sources: Sources | None) -> list[tuple[int, int, str]]:
    """(start, end, url) of each reference in text that can be linked, in order."""
    links = [
        (found.start(), found.end(), f"https://github.com/{found[1]}/issues/{found[2]}")
        for found in ISSUE_RE.finditer(text)
    ]
    for found in SOURCE_RE.finditer(text) if sources is not None else ():
        if found["other"]:
            continue
        at = found["at"].rstrip(".-") if found["at"] else None
        last = int(found["last"]) if found["last"] else None
        url = sources.url(found["path"], int(found["first"]), last, at=at, crate=found["crate"])
        if url:
            links.append((found.start("ref"), found.end("ref"), url))
    kept, end = [], 0
    for link in sorted(links):
        if link[0] >= end:  # a reference inside another is the other's
            kept.append(link)
            end = link[1]
    return kept


def sources_of(entry: ErrorEntry, texts: list[str]) -> Sources | None:
    """What the references in texts, the entry's curated text, can link to; None if none."""
    names = {
        PurePosixPath(found["path"]).name for text in texts for found in SOURCE_RE.finditer(text)
    }
    if not names:
        return None
    tags, by_commit, head = _scanned_refs(entry)
    pinned = entry.analyzed_sha or ""
    files = _entry_files(entry, tags, by_commit)
    named = Q()
    for name in names:
        named |= Q(path=name) | Q(path__endswith=f"/{name}")
    if pinned and head == pinned:  # the files of the last head scan are those of main
        head_files = ScannedFile.objects.filter(named, repository=entry.repository)
        files[pinned].update(head_files.values_list("path", flat=True))
    sites = ReleaseSite.objects.filter(named, repository=entry.repository)
    for path, releases in sites.values_list("path", "releases"):
        for release in releases:
            if release in tags:
                files[tags[release]].add(path)
    known = {ref: frozenset(paths) for ref, paths in files.items()}
    return Sources(entry.repository.full_name, pinned, tags, known)


def _scanned_refs(entry: ErrorEntry) -> tuple[dict[str, str], dict[str, str], str | None]:
    """The tag of each scanned release (the entry's raisedIn adds its commits), the tag
    each of those commits is, and the commit of the last head scan."""
    tags, by_commit, head = {}, {}, None
    scans = Scan.objects.filter(repository=entry.repository)  # newest first
    for release, ref, commit in scans.values_list("release", "ref", "commit"):
        if release:
            tags[release] = by_commit[commit] = ref or commit
        elif head is None:
            head = commit
    for row in entry.raised_in or []:
        by_commit.setdefault(row["commit"], tags.setdefault(row["release"], row["commit"]))
    if entry.analyzed_sha:
        by_commit[entry.analyzed_sha] = entry.analyzed_sha
    return tags, by_commit, head


def _entry_files(
    entry: ErrorEntry, tags: dict[str, str], by_commit: dict[str, str]
) -> dict[str, set[str]]:
    """The paths the entry itself names at each tag or commit."""
    files: dict[str, set[str]] = defaultdict(set)
    if entry.analyzed_sha and entry.file_path:
        files[entry.analyzed_sha].add(entry.file_path)
    for row in entry.raised_in or []:
        files[tags[row["release"]]].add(row["filePath"])
    for row in [*(entry.applies_to or []), *(entry.fires_at or [])]:
        if row["commit"] in by_commit:
            files[by_commit[row["commit"]]].add(row["filePath"])
    return files
