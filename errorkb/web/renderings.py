"""An entry page's body, rendered once per content and kept: highlighting and Markdown off the
request path.

The body (message, meaning, source, releases, solutions, fixes, prevention) is a pure
function of some of the entry's fields, its repository's name and the releases scans
read. Those inputs are hashed; the rendering is stored under that hash (Rendering) the
first time anyone reads that content, and every later read, in any process, fetches it
by key. A change to any input gives a new key, so a kept rendering is never stale, and
the template sees only the inputs (a dict built from BODY_FIELDS), so it cannot read a
field the key leaves out.

Why here and computed on first read, rather than written with the entry: the renderer
(markup.py, highlight.py, the template) belongs to the public face, which sits above
kb; kb's save and import paths cannot call it, and every write path (raw SQL included)
would need to. A key made from the content itself needs none of them.
"""

import hashlib
import inspect
import json
import sys
from dataclasses import asdict, dataclass
from functools import cache
from importlib.metadata import version

from django.db import connections
from django.template.loader import get_template, render_to_string

from errorkb.kb import links
from errorkb.kb.models import ErrorEntry

from . import highlight, markup, upstream
from .highlight import highlight_code, highlight_snippet
from .markup import markdown_text
from .models import Rendering
from .templatetags import links as link_filters
from .templatetags import markdown as markdown_filters

TEMPLATE = "kb/entry_body.html"
# What renders the body besides its inputs: a change to any of them (a deploy) makes
# every key new, so no rendering of older code is read again.
RENDERER_PACKAGES = ("Django", "Pygments", "markdown-it-py", "nh3")
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
    "prevention_tips",
)
CODE_FIELDS = (
    ("example_fix", None),  # the section's own heading names it
    ("validation_code", "Validation"),
    ("type_guard", "Guard"),
    ("try_catch_pattern", "Catching it"),
)

_FIND = f'SELECT description, html FROM {Rendering._meta.db_table} WHERE "key" = %s'


@dataclass(frozen=True)
class Rendered:
    description: str  # the meta description: the meaning's words without markup
    html: str


def rendered_body(entry: ErrorEntry) -> Rendered:
    """The entry's body as HTML: kept under the hash of its inputs, rendered on a miss."""
    inputs = body_inputs(entry)
    key = _key(inputs)
    with connections[Rendering.objects.db].cursor() as cursor:
        cursor.execute(_FIND, [key])  # plain SQL: an ORM query costs more to build than to run
        found = cursor.fetchone()
    if found is not None:
        return Rendered(*found)
    rendered = render_body(inputs)
    row = Rendering(key=key, description=rendered.description, html=rendered.html)
    Rendering.objects.bulk_create([row], ignore_conflicts=True)  # two readers may race
    return rendered


def body_inputs(entry: ErrorEntry) -> dict:
    """Everything the body shows, as plain data: the key is made from it."""
    raised_in = upstream.raised_in(entry)
    return {
        "entry": {name: getattr(entry, name) for name in BODY_FIELDS},
        "repository": entry.repository.full_name,
        "raised_in": asdict(raised_in) if raised_in is not None else None,
    }


def render_body(inputs: dict) -> Rendered:
    entry = inputs["entry"]
    context = {
        "entry": entry,
        "source_html": _source_html(entry),
        "code_blocks": _code_blocks(entry),
        "applies_to": _applies_to_rows(entry, inputs["repository"]),
        "raised_in": inputs["raised_in"],
    }
    html = render_to_string(TEMPLATE, context)
    return Rendered(markdown_text(entry["documentation"]), html)


def _key(inputs: dict) -> str:
    text = json.dumps([renderer(), inputs], sort_keys=True, default=str)
    return hashlib.blake2b(text.encode(), digest_size=32).hexdigest()


@cache
def renderer() -> str:
    """A fingerprint of the code that renders a body: the template, the modules, packages."""
    modules = (sys.modules[__name__], markup, highlight, links, link_filters, markdown_filters)
    modules += (upstream,)
    parts = [get_template(TEMPLATE).template.source]
    parts += [inspect.getsource(module) for module in modules]
    parts += [version(package) for package in RENDERER_PACKAGES]
    return hashlib.blake2b("\0".join(parts).encode(), digest_size=16).hexdigest()


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


def _code_blocks(entry: dict) -> list[tuple[str | None, str]]:
    return [
        (title, highlight_code(entry[attr], entry["file_path"]))
        for attr, title in CODE_FIELDS
        if entry[attr]
    ]
