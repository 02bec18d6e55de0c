"""A lookup as JSON: the one mapping the API answers with and the command prints."""

from collections.abc import Callable
from typing import Any

from .findings import Finding
from .fits import Match
from .locations import Location
from .lookups import Lookup
from .upstream_lines import UpstreamLine

MATCHED_CHARS = 500
MESSAGE_CHARS = 2000


def lookup_answer(
    found: Lookup, absolute: Callable[[str], str] = str, *, address: str | None = None
) -> dict[str, Any]:
    """The lookup's JSON body; `absolute` turns a page path into the address to give;
    `address`, the kept lookup's page, when its reader asked to keep it."""
    matches = [match_answer(match, absolute) for match in found.matches]
    return {
        "count": len(matches),
        "truncated": found.truncated,
        "matches": matches,
        "story": [finding_answer(finding, absolute) for finding in found.story],
        "storyTruncated": found.story_truncated,
        "address": address,
    }


def match_answer(match: Match, absolute: Callable[[str], str] = str) -> dict[str, Any]:
    entry = match.entry
    return {
        "id": entry.id,
        "message": entry.message,
        "repo": entry.repo,
        "url": absolute(match.url) if match.url else "",  # "": no address (names.page_address)
        "release": match.release,
        "state": match.state.state.value if match.state else None,
        "stateLabel": match.state.label if match.state else "",
        "errorType": entry.error_type,
        "filePath": entry.file_path,
        "lineNumber": entry.line_number,
        "line": match.text_line,
        "span": [match.start, match.end],
        "matched": match.matched[:MATCHED_CHARS],
        "location": location_answer(match.location),
        "fits": match.fits,
        "pinned": match.pinned,
        "by": match.by,
        "releases": match.releases,
    }


def finding_answer(finding: Finding, absolute: Callable[[str], str] = str) -> dict[str, Any]:
    return {
        "order": finding.order,
        "role": finding.role,
        "kind": finding.kind,
        "thread": finding.thread,
        "message": finding.message[:MESSAGE_CHARS],
        "line": finding.text_line,
        "location": location_answer(finding.location),
        "where": finding.where,
        "place": place_answer(finding),
        "release": finding.release,
        "releaseFrom": finding.release_from,
        "entry": match_answer(finding.match, absolute) if finding.match else None,
        "also": [match_answer(match, absolute) for match in finding.also],
        "upstream": upstream_answer(finding.upstream),
    }


def place_answer(finding: Finding) -> dict[str, Any] | None:
    """Whose code the event happened in, said for a reader, with what its path tells."""
    place = finding.place
    if place is None:
        return None
    return {
        "text": place.describe(),
        "repo": place.repo,
        "crate": place.crate,
        "version": place.version,
        "installed": place.installed or None,
        "calledFrom": location_answer(finding.called_from),
    }


def upstream_answer(upstream: UpstreamLine | None) -> dict[str, Any] | None:
    if upstream is None:
        return None
    return {
        "repo": upstream.file.repo,
        "filePath": upstream.file.path,
        "lineNumber": upstream.line,
        "release": upstream.release,
        "commit": upstream.commit,
        "message": upstream.message,
        "saysIt": upstream.says_it,
        "releases": list(upstream.releases),
        "url": upstream.url,
        "reviewed": False,
    }


def location_answer(location: Location | None) -> dict[str, Any] | None:
    if location is None:
        return None
    return {
        "path": location.path,
        "line": location.line,
        "column": location.column,
        "textLine": location.text_line,
        "version": location.version,
    }
