"""A pasted text in, the published entries whose messages it carries out, best first.

The app's single function, `look_up`, serves the API, the page and the command alike.
The entries' patterns are compiled into one Set once, and again only when what is
published changes: the Set is kept per process, keyed on the content token that every
write moves (kb.changes). A new token whose published patterns are the
same (a verification run was recorded, a text was edited) reuses the compiled Set.
"""

import hashlib
import re
import threading
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings

from errorkb.kb.changes import content_token
from errorkb.kb.models import ErrorEntry, Repository
from errorkb.kb.models.entries import CASCADE_TAG, PANIC_HOOK_TAG
from errorkb.upstream.scanned_releases import scanned_releases

from .matches.fits import Known, Match, at_its_place, matched, rank
from .matches.pattern_set import PatternSet
from .matches.patterns import specificity
from .matches.states import with_states
from .story.events import clean, read_story
from .story.findings import Finding, tell
from .story.locations import Located, find_locations
from .story.upstream_lines import UpstreamFiles

MAX_TEXT_BYTES = 1 << 20
# A character that is not white space, in an explicit class that Python's re and the ECMA
# dialect of the OpenAPI document read alike: either's \S alone would disagree (Python
# counts U+001C-U+001F and U+0085 as space, ECMA counts U+FEFF), so a text the document
# calls blank would be read, or one it allows refused. The class is both dialects' space.
NOT_BLANK = re.compile(
    r"[^\t\n\v\f\r \x1c-\x1f\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]"
)


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


@dataclass
class Lookup:
    matches: list[Match] = field(default_factory=list)
    truncated: bool = False
    story: list[Finding] = field(default_factory=list)  # what happened, in order
    story_truncated: bool = False  # the text has more events than a lookup reads

    @property
    def cause(self) -> Finding | None:
        return next((finding for finding in self.story if finding.role == "cause"), None)


def check_text(text: str) -> None:
    """Raise TextError for a text the lookup will not read."""
    if not NOT_BLANK.search(text):
        raise EmptyText
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_TEXT_BYTES:
        raise TextTooLarge(size)


def look_up(text: str) -> Lookup:
    """The entries whose patterns match the text: in the order the text shows them, and
    on one line, those whose file and line the text names first, then the more specific;
    and the text's story, its panics and errors in order, each with what explains it.
    Each entry found comes with its state at the release the text was read at."""
    check_text(text)
    text = clean(text)
    index = current_index()
    scan = index.patterns.scan(text)
    located = Located(find_locations(text))
    matches = [
        matched(index.known[hit.index], hit, located.near(hit.text_line)) for hit in scan.hits
    ]
    matches = [match for match in matches if at_its_place(match)]
    matches.sort(key=rank)
    story = read_story(text)
    findings = tell(story, matches, index.by_line, index.files, index.rescan, text)
    findings, matches = with_states(findings, matches)
    return Lookup(matches, scan.truncated, findings, story.truncated)


@dataclass(frozen=True)
class Index:
    token: str
    fingerprint: str
    known: list[Known]
    patterns: PatternSet
    by_line: dict[int, list[Known]]  # the entries raised at each line number
    files: UpstreamFiles  # the files the release scans read sites in

    def rescan(self, text: str) -> list[tuple[Known, Any]]:
        """The entries found in a short text (an event's message read back), with the hits."""
        return [(self.known[hit.index], hit) for hit in self.patterns.scan(text).hits]


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
        by_line = defaultdict(list)
        for entry in known:
            for line in entry.raised_lines():
                by_line[line].append(entry)
        _index = Index(
            token, fingerprint, known, patterns, dict(by_line), UpstreamFiles.load(known)
        )
        return _index


def _published() -> list[Known]:
    published = ErrorEntry.objects.published()
    rows = list(published.order_by("id").values(*_READ))
    scanned = _scanned({row["repository_id"] for row in rows if row["raised_in"]})
    following = set(published.tagged(CASCADE_TAG).values_list("id", flat=True))
    hooks = set(published.tagged(PANIC_HOOK_TAG).values_list("id", flat=True))
    return [
        _known(
            row,
            scanned.get(row["repository_id"], ()),
            follows=row["id"] in following,
            panic_hook=row["id"] in hooks,
        )
        for row in rows
    ]


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
    "fires_at",
    "repository_id",
)


def _known(
    row: dict[str, Any], scanned: tuple[str, ...], *, follows: bool, panic_hook: bool
) -> Known:
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
        fires_at=row["fires_at"],
        scanned=scanned,
        follows=follows,
        panic_hook=panic_hook,
    )


def _fingerprint(known: list[Known]) -> str:
    digest = hashlib.blake2b(digest_size=16)
    for entry in known:
        digest.update(entry.pattern.encode("utf-8", "surrogatepass") + b"\x00")
    return digest.hexdigest()
