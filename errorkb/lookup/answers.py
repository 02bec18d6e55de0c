"""A lookup as JSON: the one mapping the API answers with and the command prints."""

from collections.abc import Callable
from typing import Any

from .locations import Location
from .lookups import Lookup, Match

MATCHED_CHARS = 500


def lookup_answer(found: Lookup, absolute: Callable[[str], str] = str) -> dict[str, Any]:
    """The lookup's JSON body; `absolute` turns a page path into the address to give."""
    matches = [match_answer(match, absolute) for match in found.matches]
    return {"count": len(matches), "truncated": found.truncated, "matches": matches}


def match_answer(match: Match, absolute: Callable[[str], str] = str) -> dict[str, Any]:
    entry = match.entry
    return {
        "id": entry.id,
        "message": entry.message,
        "repo": entry.repo,
        "url": absolute(entry.url),
        "errorType": entry.error_type,
        "filePath": entry.file_path,
        "lineNumber": entry.line_number,
        "line": match.text_line,
        "span": [match.start, match.end],
        "matched": match.matched[:MATCHED_CHARS],
        "location": location_answer(match.location),
        "fits": match.fits,
        "releases": match.releases,
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
