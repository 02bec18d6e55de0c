"""An entry page's body: message, meaning, source, releases, solutions, fixes, prevention.

Rendered from a plain dict of the fields it shows (BODY_FIELDS), so the template cannot
read a field its caller did not mean it to. The whole page, body included, is kept in
Django's cache under its ETag (errorkb.http.caching): a body is rendered once per
content, in whichever process first serves it.
"""

from dataclasses import asdict, dataclass

from django.template.loader import render_to_string

from errorkb.kb.models import ErrorEntry
from errorkb.kb.record.lengths import ITEM_LENGTH, ITEMS

from . import upstream
from .highlight import highlight_code, highlight_snippet
from .markup import markdown_text
from .references import sources_of

TEMPLATE = "kb/entry_body.html"
BODY_FIELDS = (
    "error_message",
    "documentation",
    "file_path",
    "line_number",
    "source_code",
    "source_code_start",
    "github_url",
    "analyzed_sha",
    "solutions",
    "example_fix",
    "validation_code",
    "type_guard",
    "try_catch_pattern",
    "trigger_scenarios",
    "common_situations",
    "applies_to",
    "fires_at",
    "prevention_tips",
)
CODE_FIELDS = (
    ("example_fix", None),  # the section's own heading names it
    ("validation_code", "Validation"),
    ("type_guard", "Guard"),
    ("try_catch_pattern", "Catching it"),
)


@dataclass(frozen=True)
class Rendered:
    description: str  # the meta description: the meaning's words without markup
    html: str


def render_body(entry: ErrorEntry) -> Rendered:
    """The entry's body as HTML, and its meta description."""
    fields = {name: _within_bounds(name, getattr(entry, name)) for name in BODY_FIELDS}
    raised_in = upstream.raised_in(entry)
    context = {
        "entry": fields,
        "source_html": _source_html(fields),
        "code_blocks": _code_blocks(fields),
        "applies_to": _applies_to_rows(fields, entry.repository.full_name),
        "fires_at": _fires_at_rows(fields, entry.repository.full_name),
        "raised_in": asdict(raised_in) if raised_in is not None else None,
        "sources": sources_of(entry, _curated_texts(fields)),
    }
    html = render_to_string(TEMPLATE, context)
    return Rendered(markdown_text(fields["documentation"]), html)


def _curated_texts(entry: dict) -> list[str]:
    """The Markdown fields, whose source references the page links."""
    texts = [entry["documentation"], entry["trigger_scenarios"], entry["common_situations"]]
    return (
        [text or "" for text in texts]
        + (entry["solutions"] or [])
        + (entry["prevention_tips"] or [])
    )


def _within_bounds(name: str, value):
    """value clipped to the field's documented bounds (kb.record.lengths).

    Import, upload, the admin and the scanner refuse longer text; a row written past them
    (raw SQL) is clipped here, before Markdown and Pygments, whose time and memory grow
    with the text, so no stored row can make a page slow or huge.
    """
    if isinstance(value, str):
        return _clip(value, ErrorEntry._meta.get_field(name).max_length)
    if name in ("applies_to", "fires_at") and value is not None:
        return [_clipped_row(row) for row in value[:ITEMS]]
    if isinstance(value, list):  # solutions, prevention tips
        return [_clip(item, ITEM_LENGTH) for item in value[:ITEMS]]
    return value


def _clipped_row(row: dict) -> dict:
    return {key: _clip(value, ITEM_LENGTH) for key, value in row.items()}


def _clip(value, limit: int | None):
    if not isinstance(value, str) or limit is None or len(value) <= limit:
        return value
    return value[:limit] + "…"


def _source_html(entry: dict) -> str | None:
    if not entry["source_code"]:
        return None
    start = entry["source_code_start"] or 1
    return highlight_snippet(entry["source_code"], entry["file_path"], start, entry["line_number"])


def _applies_to_rows(entry: dict, repo: str) -> list[dict] | None:
    """The appliesTo rows, each with a link to the cited line of the entry's repository."""
    if entry["applies_to"] is None:
        return None
    return [
        {
            **row,
            "source_url": upstream.blob_url(
                repo, row["commit"], row["filePath"], row["lineNumber"]
            ),
            "source_label": f"{row['filePath']}:{row['lineNumber']}@{row['commit'][:10]}",
        }
        for row in entry["applies_to"]
    ]


def _fires_at_rows(entry: dict, repo: str) -> list[dict] | None:
    """The firesAt rows, each with a link to its lines at its commit."""
    if entry["fires_at"] is None:
        return None
    return [
        {
            **row,
            "source_url": upstream.blob_url(
                repo, row["commit"], row["filePath"], row["firstLine"], row["lastLine"]
            ),
            "source_label": f"{row['filePath']}:{row['firstLine']}-{row['lastLine']}"
            f"@{row['commit'][:10]}",
        }
        for row in entry["fires_at"]
    ]


def _code_blocks(entry: dict) -> list[tuple[str | None, str]]:
    return [
        (title, highlight_code(entry[attr], entry["file_path"]))
        for attr, title in CODE_FIELDS
        if entry[attr]
    ]
