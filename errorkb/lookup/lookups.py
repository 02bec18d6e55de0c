"""A pasted text in, the published entries whose messages it carries out, best first.

The face's one function, `look_up`, serves the API, the page and the command alike.
The entries' patterns are compiled into one Set once, and again only when what is
published changes: the Set is kept per process, keyed on the content token that every
committed write moves (kb.freshness). A new token whose published patterns are the
same (a verification run was recorded, a text was edited) reuses the compiled Set.
"""

import hashlib
import threading
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.urls import reverse

from errorkb.kb.freshness import content_token
from errorkb.kb.models import ErrorEntry, Repository
from errorkb.upstream.releases import scanned_releases

from .locations import Located, Location, find_locations, path_fits
from .matching import PatternSet
from .patterns import specificity
from .releases import fitting_raised, fitting_releases

MAX_TEXT_BYTES = 1 << 20


class TextError(ValueError):
    """A text the lookup will not read; `status` is the HTTP status that says why."""

    status = 400


class EmptyText(TextError):
    def __init__(self):
        super().__init__("Paste the text of an error: the text is empty.")


class TextTooLarge(TextError):
    status = 413

    def __init__(self, size: int):
        super().__init__(
            f"The text is {size:,} bytes; a lookup reads at most {MAX_TEXT_BYTES:,} bytes "
            "(1 MiB). Paste the part around the error."
        )


class BodyTooLarge(TextError):
    status = 413

    def __init__(self):
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        super().__init__(f"The request body is over {limit:,} bytes: it cannot hold 1 MiB.")


def check_body_size(content_length: str | None) -> None:
    """Refuse, before reading it, a body larger than any text a lookup would read."""
    declared = int(content_length) if (content_length or "").isdigit() else 0
    if declared > settings.DATA_UPLOAD_MAX_MEMORY_SIZE:
        raise BodyTooLarge


@dataclass(frozen=True)
class Known:
    """A published entry, as much of it as a lookup reads."""

    id: str
    message: str
    pattern: str
    repo: str
    slug: str
    error_type: str
    file_path: str | None
    line_number: int | None
    applies_to: list[dict[str, Any]] | None
    specificity: int
    raised_in: list[dict[str, Any]] | None  # the upstream scanner's rows
    scanned: tuple[str, ...]  # every release its repository's scans read, oldest first

    @property
    def url(self) -> str:
        owner, name = self.repo.split("/", 1)
        return reverse("kb:entry", kwargs={"owner": owner, "name": name, "slug": self.slug})


@dataclass(frozen=True)
class Match:
    """One entry found in the text: where, and how well the text's location fits it."""

    entry: Known
    text_line: int
    start: int
    end: int
    matched: str
    location: Location | None
    fits: str  # "line": its file and line; "file": its file; "": neither, or no location
    releases: list[str]


@dataclass
class Lookup:
    matches: list[Match] = field(default_factory=list)
    truncated: bool = False


def check_text(text: str) -> None:
    """Raise TextError for a text the lookup will not read."""
    if not text.strip():
        raise EmptyText
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_TEXT_BYTES:
        raise TextTooLarge(size)


def look_up(text: str) -> Lookup:
    """The entries whose patterns match the text: in the order the text shows them, and
    on one line, those whose file and line the text names first, then the more specific."""
    check_text(text)
    index = current_index()
    scan = index.patterns.scan(text)
    located = Located(find_locations(text))
    matches = [_match(index.known[hit.index], hit, located) for hit in scan.hits]
    matches.sort(key=_rank)
    return Lookup(matches, scan.truncated)


FIT_ORDER = {"line": 0, "file": 1, "": 2}


def _rank(match: Match) -> tuple:
    entry = match.entry
    return (match.text_line, FIT_ORDER[match.fits], -entry.specificity, entry.message, entry.id)


def _match(entry: Known, hit, located: Located) -> Match:
    near = located.near(hit.text_line)
    fits, location, releases = _fit(entry, near)
    return Match(entry, hit.text_line, hit.start, hit.end, hit.matched, location, fits, releases)


def _fit(entry: Known, near: list[Location]) -> tuple[str, Location | None, list[str]]:
    for location in near:
        releases = fitting_releases(entry.applies_to, location)
        ranges = fitting_raised(entry.raised_in, location, entry.scanned)
        releases += [versions for versions in ranges if versions not in releases]
        pinned = path_fits(location, entry.file_path) and location.line == entry.line_number
        if pinned or releases:
            return "line", location, releases
    raised = [row["filePath"] for row in entry.applies_to or () if row.get("outcome") == "raised"]
    raised += [row["filePath"] for row in entry.raised_in or ()]
    for location in near:
        if any(path_fits(location, path) for path in [entry.file_path, *raised]):
            return "file", location, []
    return "", (near[0] if near else None), []


@dataclass(frozen=True)
class Index:
    token: str
    fingerprint: str
    known: list[Known]
    patterns: PatternSet


_index: Index | None = None
_lock = threading.Lock()


def current_index() -> Index:
    """The published entries and their compiled Set, rebuilt when what is published changed."""
    global _index
    token = content_token()
    index = _index
    if index is not None and index.token == token:
        return index
    with _lock:
        known = _published()
        fingerprint = _fingerprint(known)
        if _index is not None and _index.fingerprint == fingerprint:
            patterns = _index.patterns
        else:
            patterns = PatternSet([entry.pattern for entry in known])
        _index = Index(token, fingerprint, known, patterns)
        return _index


def _published() -> list[Known]:
    rows = list(ErrorEntry.objects.published().order_by("id").values(*_READ))
    scanned = _scanned({row["repository_id"] for row in rows if row["raised_in"]})
    return [_known(row, scanned.get(row["repository_id"], ())) for row in rows]


def _scanned(repository_ids: set[int]) -> dict[int, tuple[str, ...]]:
    """The releases each repository's scans read, for the repositories that need them."""
    repositories = Repository.objects.filter(id__in=repository_ids)
    return {repo.id: tuple(scanned_releases(repo)) for repo in repositories}


_READ = (
    "id",
    "error_message",
    "message_pattern",
    "repository__owner",
    "repository__name",
    "slug",
    "error_type",
    "file_path",
    "line_number",
    "applies_to",
    "raised_in",
    "repository_id",
)


def _known(row: dict[str, Any], scanned: tuple[str, ...]) -> Known:
    return Known(
        id=row["id"],
        message=row["error_message"],
        pattern=row["message_pattern"],
        repo=f"{row['repository__owner']}/{row['repository__name']}",
        slug=row["slug"],
        error_type=row["error_type"],
        file_path=row["file_path"],
        line_number=row["line_number"],
        applies_to=row["applies_to"],
        specificity=specificity(row["message_pattern"]),
        raised_in=row["raised_in"],
        scanned=scanned,
    )


def _fingerprint(known: list[Known]) -> str:
    digest = hashlib.blake2b(digest_size=16)
    for entry in known:
        digest.update(entry.pattern.encode("utf-8", "surrogatepass") + b"\x00")
    return digest.hexdigest()
