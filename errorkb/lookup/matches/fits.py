"""An entry found in a text, and how well the text's location fits it.

A Match is one entry whose pattern the text carries (or, for a text cut off before its
message, whose file and line the text names). Where the text names a location, it fits
the entry's line ("line": the entry's pin, or a line its appliesTo or raisedIn rows
name, in the releases the rows say), its file only ("file"), or neither (""). Of two
entries that fit one line, the one pinned there ranks first: the other only lists the
line among its rows.
"""

from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from errorkb.kb.record.names import page_address
from errorkb.verification.state.per_release import AtRelease

from ..story.locations import Location, path_fits
from .release_fits import fitting_raised, fitting_releases, fitting_sites

FIT_ORDER = {"line": 0, "file": 1, "": 2}


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
    # Where Rust's own message is this entry: files, lines and releases (firesAt rows);
    # None for an entry of the project's own message, found wherever it is printed.
    fires_at: list[dict[str, Any]] | None
    scanned: tuple[str, ...]  # every release its repository's scans read, oldest first
    follows: bool = False  # its text follows an earlier panic (the cascade tag)
    panic_hook: bool = False  # the panic hook's own line (its tag): context, never a cause

    @property
    def url(self) -> str:
        owner, name = self.repo.split("/", 1)
        return page_address("web:entry", owner=owner, name=name, slug=self.slug)

    def raised_files(self) -> dict[str, set[str]]:
        """Every file its pin and rows raise it in, with the releases its raisedIn rows
        give for each."""
        files: dict[str, set[str]] = {self.file_path: set()} if self.file_path else {}
        for row in self.applies_to or ():
            if _raised(row) and row.get("filePath"):
                files.setdefault(row["filePath"], set())
        for row in self.raised_in or ():
            files.setdefault(row["filePath"], set()).add(row["release"])
        for row in self.fires_at or ():
            files.setdefault(row["filePath"], set())
        return files

    def raised_lines(self) -> set[int]:
        """Every line its pin and rows raise it at: where a location may fit it."""
        lines = {self.line_number} if self.line_number else set()
        lines |= {row["lineNumber"] for row in self.applies_to or () if _raised(row)}
        lines |= {row["lineNumber"] for row in self.raised_in or ()}
        return lines


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
    pinned: bool = False  # the location is the entry's own pin
    by: str = "message"  # "message": its pattern matched; "location": only its line did
    # The release the text was read at for it (its panic's, else the whole log's), and
    # the entry's state there (entry-wide without a release): states.with_states.
    release: str | None = None
    state: AtRelease | None = None

    @property
    def url(self) -> str:
        """The entry's page, opened at the release read from the text when there is one."""
        address = self.entry.url
        if address and self.release:
            address += "?" + urlencode({"release": self.release})
        return address


@dataclass(frozen=True)
class Fit:
    fits: str
    location: Location | None
    releases: list[str]
    pinned: bool


def fit(entry: Known, near: list[Location]) -> Fit:
    """How the nearest of the locations that fit the entry fits it."""
    for location in near:
        # The curated rows say it; the scanner's rows only where they say nothing.
        releases = fitting_releases(entry.applies_to, location)
        releases = releases or fitting_raised(entry.raised_in, location, entry.scanned)
        releases = releases or fitting_sites(entry.fires_at, location)
        pinned = path_fits(location, entry.file_path) and location.line == entry.line_number
        if pinned or releases:
            return Fit("line", location, releases, pinned)
    raised = [row["filePath"] for row in entry.applies_to or () if _raised(row)]
    raised += [row["filePath"] for row in entry.raised_in or ()]
    for location in near:
        if any(path_fits(location, path) for path in [entry.file_path, *raised]):
            return Fit("file", location, [], False)
    return Fit("", near[0] if near else None, [], False)


def matched(entry: Known, hit, near: list[Location], *, text_line: int | None = None) -> Match:
    """The Match of a pattern's hit, fitted to the locations near it."""
    found = fit(entry, near)
    return Match(
        entry,
        hit.text_line if text_line is None else text_line,
        hit.start,
        hit.end,
        hit.matched,
        found.location,
        found.fits,
        found.releases,
        found.pinned,
    )


def at_its_place(match: Match) -> bool:
    """Whether the match counts: an entry of Rust's own message only at its lines."""
    return not match.entry.fires_at or match.fits == "line"


def rank(match: Match) -> tuple:
    """In text order; on one line, the entry pinned at the text's location first, then
    one whose rows name it, then its file, then the more specific pattern."""
    entry = match.entry
    return (
        match.text_line,
        FIT_ORDER[match.fits],
        not match.pinned,
        -entry.specificity,
        entry.message,
        entry.id,
    )


def _raised(row: dict[str, Any]) -> bool:
    return row.get("outcome") == "raised" and row.get("lineNumber") is not None
