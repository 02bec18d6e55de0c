"""A lookup told as a story: each event of the text with what explains it, in order.

Each panic or error the text prints (events.read_story) becomes a Finding, with the
entry that explains it or, when none does, the upstream line it points at ("no reviewed
entry yet"). The first is the likely cause. A later one follows from it when its entry
says it does (the cascade tag: a checkpointer whose worker died), when Rust's runtime
printed it (a panic while unwinding), when it unwraps a dead thread's join (`Any { .. }`)
or a lock a panic poisoned (`PoisonError`), or when its thread, a named worker, had already
panicked; any other is another, later failure. An entry found outside every event (the
panic hook's banner, a log line) is context, unless the text holds no event at all and it
is not the hook's.

Each event says where it happened (places.py): the upstream project's code in any
layout, another crate's (with the first frame of its backtrace in the project's code, the
place in the project that called it), the user's own code (their `unwrap()` around
burn's error, say), or Rust's standard library. The release is the one a registry path
names (burn-train-0.20.0/), the event's own or its backtrace's, or else the one every
registry path of the text agrees on.

The panic hook's lines (burn's `PANIC => {info}` and its banner) are context, always: the
panic they wrap is explained by its own entry or line, or by nothing.
"""

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from errorkb.kb.record.release_ranges import version_in

from ..matches.fits import FIT_ORDER, Known, Match, at_its_place, fit, matched
from .events import Event, Story
from .locations import Location
from .places import DEPENDENCY, RUST, UPSTREAM, USER, Place, place_of
from .upstream_lines import UpstreamFiles, UpstreamLine

ROLES = ("cause", "consequence", "later", "context")
UNNAMED = "<unnamed>"
# Thread names that say nothing of which thread panicked again: Rust names every thread
# spawned without a name '<unnamed>', tokio every thread of its pool alike, and a panic
# on `main` ends the program unless caught, so a second one is mostly another run.
NOT_ONE_THREAD = (None, UNNAMED, "tokio-runtime-worker", "main")
_COMPILING = re.compile(r"Compiling (?P<crate>[A-Za-z_][A-Za-z0-9_-]*) v(?P<version>\d[^\s]*)")


@dataclass(frozen=True)
class Finding:
    kind: str  # "panic", "logged", "error", or "message" (an entry found outside events)
    thread: str | None
    message: str
    text_line: int
    location: Location | None
    place: Place | None  # whose code the location is; None: the text names none
    release: str | None
    release_from: str  # "path": the location's or its backtrace's; "log": the text's; ""
    match: Match | None  # the entry that explains it
    also: tuple[Match, ...]  # other entries found in it (the inner error, the hook's line)
    upstream: UpstreamLine | None  # the upstream line, when no entry explains it
    follows: bool = False  # its entry, or Rust's runtime, says it follows an earlier panic
    order: int = 0  # 1-based, in text order
    role: str = ""  # one of ROLES
    # For a panic in another crate's code or Rust's library: the first frame of its
    # backtrace in the upstream project's code, the call that led there.
    called_from: Location | None = None

    @property
    def where(self) -> str:
        """places.UPSTREAM, DEPENDENCY, USER or RUST; "" when the text names no location."""
        return self.place.whose if self.place else ""


def tell(
    story: Story,
    matches: list[Match],
    known_by_line: dict[int, list[Known]],
    files: UpstreamFiles,
    rescan: Callable[[str], list[tuple[Known, Any]]],
    text: str,
) -> list[Finding]:
    """The findings of the story's events and of the matches outside them, in text order.

    `rescan(text)` finds the entries in another text (an event's unescaped message).
    """
    log_release = _log_release(story, text, files)
    told: list[Finding] = []
    inside: set[int] = set()
    for event in story.events:
        found = [
            m
            for m in matches
            if event.first_line <= m.text_line <= event.last_line and not m.entry.panic_hook
        ]
        inside.update(id(m) for m in found)
        told.append(_event_finding(event, found, known_by_line, files, rescan, log_release))
    # Outside events, on one line, the outer message first: `Training interrupted: {reason}`
    # before the error it quotes.
    outside = sorted(
        (m for m in matches if id(m) not in inside), key=lambda m: (m.text_line, m.start)
    )
    told += [_context_finding(match, files, log_release) for match in outside]
    told.sort(key=lambda finding: finding.text_line)  # stable: events before context
    return _with_roles(told, has_events=bool(story.events))


def _event_finding(event: Event, found, known_by_line, files, rescan, log_release) -> Finding:
    location = event.location
    near = [location] if location else []
    candidates = [_refit(match, near) for match in found]
    unescaped = event.unescaped()
    if not candidates and unescaped:
        candidates = [
            matched(entry, hit, near, text_line=event.message_line)
            for entry, hit in rescan(unescaped)
            if not entry.panic_hook
        ]
    candidates = [match for match in candidates if at_its_place(match)]
    release, release_from = _release(event, files, log_release)
    if not candidates and location:
        candidates = _by_location(event, known_by_line, release)
    candidates.sort(key=_event_rank)
    best = candidates[0] if candidates else None
    if release_from == "log" and best and not _within(release, best.releases):
        release, release_from = None, ""  # another part of the log, not this panic's
    place = _place(location, best, files)
    called_from = None
    if place and place.whose in (DEPENDENCY, RUST) and not event.follows_a_panic:
        called_from = _upstream_frame(event, files)
    upstream = None
    if best is None and place and place.whose == UPSTREAM:
        upstream = files.line_at(location, release, unescaped or event.message, place)
    elif best is None and called_from:
        frame = place_of(called_from, files.repo_of)
        upstream = files.line_at(called_from, release, "", frame)
    return Finding(
        kind=event.kind,
        thread=event.thread,
        message=event.message,
        text_line=event.first_line,
        location=location,
        place=place,
        release=release,
        release_from=release_from,
        match=best,
        also=tuple(candidates[1:]),
        upstream=upstream,
        follows=event.follows_a_panic or bool(best and best.entry.follows),
        called_from=called_from,
    )


def _context_finding(match: Match, files: UpstreamFiles, log_release: str | None) -> Finding:
    location = match.location
    release = files.release_in(location) if location else None
    return Finding(
        kind="message",
        thread=None,
        message=match.matched,
        text_line=match.text_line,
        location=location,
        place=_place(location, match, files),
        release=release or log_release,
        release_from="path" if release else ("log" if log_release else ""),
        match=match,
        also=(),
        upstream=None,
    )


def _with_roles(told: list[Finding], *, has_events: bool) -> list[Finding]:
    findings = []
    events_seen = 0
    panicked: set[str] = set()
    # A text of messages alone (no panic, no error): the first that is not the panic
    # hook's own line is what happened.
    first = next((f for f in told if not has_events and not f.match.entry.panic_hook), None)
    for order, finding in enumerate(told, start=1):
        if finding.kind == "message":
            role = "cause" if finding is first else "context"
        elif events_seen == 0:
            role = "consequence" if finding.follows else "cause"
        elif finding.follows or finding.thread in panicked:
            role = "consequence"
        else:
            role = "later"
        if finding.kind != "message":
            events_seen += 1
            if finding.kind == "panic" and finding.thread not in NOT_ONE_THREAD:
                panicked.add(finding.thread)
        findings.append(replace(finding, order=order, role=role))
    return findings


def _refit(match: Match, near: list[Location]) -> Match:
    """The match fitted to its event's own location (or to none)."""
    return matched(match.entry, match, near)


def _event_rank(match: Match) -> tuple:
    """Within one event: the entry that explains it is not a log line's entry (the hook's
    PANIC =>), fits the location best, is pinned there, and is the most specific."""
    entry = match.entry
    return (
        entry.error_type == "log",  # a log line's text, "Training interrupted: {reason}"
        match.by != "message",
        FIT_ORDER[match.fits],
        not match.pinned,
        -entry.specificity,
        match.text_line,
        entry.id,
    )


def _by_location(event: Event, known_by_line, release: str | None) -> list[Match]:
    """Entries raised at the event's file and line whose message the text's, cut off, could
    be the start of: a log cut in the middle still names its entry."""
    location = event.location
    headline = event.headline.strip()
    found = []
    for entry in known_by_line.get(location.line, ()):
        if entry.panic_hook:
            continue
        head = entry.message.split("{", 1)[0]
        if headline and not head.startswith(headline):
            continue
        place = fit(entry, [location])
        if place.fits != "line" or (release and not _within(release, place.releases)):
            continue
        found.append(
            Match(
                entry,
                event.first_line,
                0,
                0,
                "",
                location,
                "line",
                place.releases,
                place.pinned,
                "location",
            )
        )
    return found


def _place(location: Location | None, match: Match | None, files: UpstreamFiles) -> Place | None:
    """Whose code the location is; an entry's file or line it fits is its repository's."""
    if location is None:
        return None
    found = place_of(location, files.repo_of)
    if found.whose == UPSTREAM:
        return found
    if match is not None and match.fits in ("line", "file"):
        return Place(UPSTREAM, match.entry.repo)
    if found.whose == USER:  # unless its path ends in a file the scans read
        known = files.file_at(location)
        if known is not None:
            return place_of(location, files.repo_of, known.repo)
    return found


def _upstream_frame(event: Event, files: UpstreamFiles) -> Location | None:
    """The first frame of the event's backtrace in the upstream project's code."""
    for frame in event.backtrace:
        if _place(frame, None, files).whose == UPSTREAM:
            return frame
    return None


def _within(release: str | None, ranges: list[str]) -> bool:
    return not ranges or any(version_in(release, versions) for versions in ranges)


def _release(event: Event, files: UpstreamFiles, log_release: str | None) -> tuple[str | None, str]:
    for location in (event.location, *event.backtrace):
        release = files.release_in(location) if location else None
        if release:
            return release, "path"
    return (log_release, "log") if log_release else (None, "")


def _log_release(story: Story, text: str, files: UpstreamFiles) -> str | None:
    """The single release every registry path and `Compiling` line of the text names for a
    crate the scans read; None when they name none, or several."""
    releases = set()
    for event in story.events:
        for location in (event.location, *event.backtrace):
            release = files.release_in(location) if location else None
            if release:
                releases.add(release)
    for compiling in _COMPILING.finditer(text):
        if files.is_upstream_crate(compiling["crate"]):
            releases.add(compiling["version"])
        if len(releases) > 1:
            break
    return releases.pop() if len(releases) == 1 else None
