"""Each entry a lookup found, with its state at the release read from the text.

The text tells a release for each of its panics (a registry path, or the single release
every path and Compiling line of the log names): an entry found in that panic is told
at that release, with per_release.state_at, and linked to its page at it. An entry
found where the text tells no release is told entry-wide.
"""

from dataclasses import replace

from errorkb.kb.models import ErrorEntry
from errorkb.verification.state.per_release import (
    AtRelease,
    Claim,
    UnknownRelease,
    claims_of_entries,
    state_at,
)

from ..story.findings import Finding
from .fits import Match


def with_states(story: list[Finding], matches: list[Match]) -> tuple[list[Finding], list[Match]]:
    """The story and the matches, each match with its release and its state there."""
    found = [m for finding in story for m in _matches_of(finding)] + matches
    if not found:
        return story, matches
    entries = list(ErrorEntry.objects.published().filter(pk__in={m.entry.id for m in found}))
    claims = claims_of_entries(entries)
    by_id = {entry.pk: entry for entry in entries}
    told = {}  # (entry id, release): its state, each told once

    def at(match: Match, release: str | None) -> Match:
        entry = by_id.get(match.entry.id)
        if entry is None:  # unpublished since the index was read: nothing to tell
            return match
        key = (entry.pk, release)
        if key not in told:
            told[key] = _state(entry, release, claims[entry.pk])
        state = told[key]
        return replace(match, release=state.release, state=state)

    story = [_told(finding, at) for finding in story]
    # A match of the whole text is told at the release of the panic that holds it (on its
    # line, else the first that names its entry).
    on_line, of_entry = {}, {}
    for finding in story:
        for match in _matches_of(finding):
            on_line.setdefault((match.entry.id, match.text_line), finding.release)
            of_entry.setdefault(match.entry.id, finding.release)
    matches = [
        at(m, on_line.get((m.entry.id, m.text_line), of_entry.get(m.entry.id))) for m in matches
    ]
    return story, matches


def _matches_of(finding: Finding) -> list[Match]:
    return [*([finding.match] if finding.match else []), *finding.also]


def _told(finding: Finding, at) -> Finding:
    if finding.match is None and not finding.also:
        return finding
    return replace(
        finding,
        match=at(finding.match, finding.release) if finding.match else None,
        also=tuple(at(m, finding.release) for m in finding.also),
    )


def _state(entry: ErrorEntry, release: str | None, claims: list[Claim]) -> AtRelease:
    try:
        return state_at(entry, release, claims)
    except UnknownRelease:  # a registry version no release is named like (1.0.0-alpha)
        return state_at(entry, None, claims)
