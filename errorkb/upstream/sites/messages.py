"""What an error site says: its message as written, the pattern that matches it, its lines.

A message is built from segments, each a pair (written, matched): `written` is the text as
the source has it (escapes decoded, placeholders kept), `matched` the text it produces at
run time, or None for a placeholder, whose run-time text is unknown.
"""

import re
from dataclasses import asdict, dataclass, fields

Segment = tuple[str, str | None]

# A placeholder matches any text up to this long: RE2 needs a bound to stay linear and small.
WILDCARD = ".{0,1000}"
# The characters RE2 reads as syntax; everything else stands for itself.
METACHARACTERS = set("\\.^$|?*+()[]{}")
# `{{`/`}}` are written escapes; a placeholder may nest one level (Python's `{x:{width}}`).
BRACES = r"\{\{|\}\}|\{[^{}]*(?:\{[^{}]*\}[^{}]*)*\}"
BRACE_ESCAPES = r"\{\{|\}\}"
PERCENT = r"%%|%(?:\([^()]*\))?[#0 +-]*(?:\*|\d+)?(?:\.(?:\*|\d+))?[hlL]?[diouxXeEfFgGcrsa]"
# Format syntaxes by name: the placeholders and written escapes each recognises.
SYNTAXES = {
    "braces": re.compile(BRACES),
    "brace-escapes": re.compile(BRACE_ESCAPES),
    "percent": re.compile(PERCENT),
    "percent+brace-escapes": re.compile(f"{BRACE_ESCAPES}|{PERCENT}"),
}
ESCAPES = {"{{": "{", "}}": "}", "%%": "%"}


@dataclass(frozen=True)
class Site:
    """One place in a source file that reports an error with a message."""

    message: str
    pattern: str
    error_type: str
    error_class: str | None
    form: str
    line: int
    snippet_start: int
    snippet_end: int

    def to_json(self) -> dict:
        """The site as a plain dict, for JSON storage."""
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict) -> "Site":
        """The site `to_json` stored; keys it does not know are ignored."""
        return cls(**{field.name: data[field.name] for field in fields(cls)})


def segments(text: str, syntax: str | None) -> list[Segment]:
    """`text` (escapes already decoded) split into literal text and placeholders."""
    if syntax is None:
        return [(text, text)]
    found: list[Segment] = []
    position = 0
    for match in SYNTAXES[syntax].finditer(text):
        if match.start() > position:
            found.append((text[position : match.start()], text[position : match.start()]))
        written = match.group()
        found.append((written, ESCAPES.get(written)))
        position = match.end()
    if position < len(text):
        found.append((text[position:], text[position:]))
    return found


def escape(text: str) -> str:
    """`text` as an RE2 pattern that matches exactly it."""
    return "".join(
        "\\n" if char == "\n" else f"\\{char}" if char in METACHARACTERS else char for char in text
    )


def pattern_of(parts: list[Segment]) -> str:
    """The unanchored pattern matching every text the segments can produce."""
    return "".join(WILDCARD if matched is None else escape(matched) for _, matched in parts)


def says_something(parts: list[Segment]) -> bool:
    """Whether the literal text holds a letter: a message of placeholders matches anything."""
    return any(char.isalpha() for _, matched in parts if matched is not None for char in matched)


def snippet(line: int, function: tuple[int, int] | None, last_line: int) -> tuple[int, int]:
    """The lines to show around `line`: its short enclosing function, else a clipped window."""
    if function is not None and function[1] - function[0] < 40:
        return function
    low, high = function or (1, last_line)
    return max(low, line - 10), min(high, line + 10)


def enclosing(node, kind: str) -> tuple[int, int] | None:
    """The 1-based first and last lines of the innermost `kind` node holding `node`."""
    parent = node.parent
    while parent is not None and parent.type != kind:
        parent = parent.parent
    if parent is None:
        return None
    return parent.start_point.row + 1, parent.end_point.row + 1


@dataclass(frozen=True)
class Finding:
    """A site as a language scanner finds it, before its pattern and snippet are worked out."""

    parts: list[Segment]
    error_type: str
    error_class: str | None
    form: str
    line: int
    column: int
    function: tuple[int, int] | None

    def site(self, last_line: int) -> Site:
        """The site, its snippet clipped to a file of `last_line` lines."""
        start, end = snippet(self.line, self.function, last_line)
        return Site(
            message="".join(written for written, _ in self.parts),
            pattern=pattern_of(self.parts),
            error_type=self.error_type,
            error_class=self.error_class,
            form=self.form,
            line=self.line,
            snippet_start=start,
            snippet_end=end,
        )
