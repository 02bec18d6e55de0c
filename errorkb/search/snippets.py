"""Highlighted snippets of an entry's fields: its own text, escaped, with <mark> round matches.

Built here, for both databases, rather than by ts_headline or FTS5's highlight(): the
entry's text is escaped first and only our own marks are added, so a message holding
"<script>" stays text. A word is marked when it is a query word, the same word with
another ending (checkpoint, checkpoints), or, for longer words, one letter or two from
it (a misspelt query's word: chekpoint marks checkpoint).

A snippet is plain text: the Markdown of the prose fields (backticks, links, emphasis,
headings, lists) is read as the words it shows. A hit has one or two: the first fields
that match, the message first.
"""

import difflib
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from html import unescape

from django.utils.html import escape, strip_tags

from errorkb.kb.models import ErrorEntry

from .terms import WORD

# Record keys, as the API names fields, and each field's texts (of an entry and its tags).
FIELDS: dict[str, Callable[[ErrorEntry, list[str]], list[str]]] = {
    "errorMessage": lambda entry, tags: [entry.error_message],
    "tags": lambda entry, tags: [", ".join(tags)],
    "filePath": lambda entry, tags: [entry.file_path or ""],
    "documentation": lambda entry, tags: [entry.documentation],
    "triggerScenarios": lambda entry, tags: [entry.trigger_scenarios],
    "commonSituations": lambda entry, tags: [entry.common_situations],
    "solutions": lambda entry, tags: (
        [str(s) for s in entry.solutions] if isinstance(entry.solutions, list) else []
    ),
}
# How the search page names each field (the entry page's own headings).
LABELS = {
    "errorMessage": "Error message",
    "tags": "Tags",
    "filePath": "Source file",
    "documentation": "What it means",
    "triggerScenarios": "When it happens",
    "commonSituations": "Common situations",
    "solutions": "Solutions",
}
# The fields written in Markdown: their snippets show the words, not the markup.
MARKDOWN = {"documentation", "triggerScenarios", "commonSituations", "solutions"}
MAX_SNIPPETS = 2
ENDINGS = ("ing", "es", "ed", "e", "s")
FUZZY_LENGTH = 5
FUZZY_RATIO = 0.8
WIDTH = 200  # characters of a long field shown round its first match
LEAD = 60  # of which before it


@dataclass(frozen=True)
class Snippet:
    """Part of one field, as safe HTML: the entry's text escaped, matches in <mark>."""

    field: str
    html: str

    @property
    def label(self) -> str:
        return LABELS[self.field]

    @property
    def text(self) -> str:
        """The snippet without its marks."""
        return unescape(strip_tags(self.html))


def snippets_for(entry: ErrorEntry, tags: list[str], matcher: "Matcher") -> list[Snippet]:
    """A snippet of the first MAX_SNIPPETS fields with a match, in FIELDS' order; else the
    plain message.

    One matcher serves a page's entries: the words of their prose repeat, each judged once.
    """
    found = []
    for field, texts in FIELDS.items():
        plain = _plain if field in MARKDOWN else str
        marked = (highlight(plain(text), matcher) for text in texts(entry, tags))
        if html := next(filter(None, marked), None):
            found.append(Snippet(field, html))
        if len(found) == MAX_SNIPPETS:
            break
    return found or [Snippet("errorMessage", escape(entry.error_message))]


class Matcher:
    """Whether a word of an entry matches one of the query's words; each word judged once."""

    def __init__(self, words: list[str]):
        self.stems = {_stem(word) for word in words}
        self.judged: dict[str, bool] = {}

    def __call__(self, word: str) -> bool:
        word = word.lower()
        if word not in self.judged:
            self.judged[word] = _matches(word, self.stems)
        return self.judged[word]


def highlight(text: str, matches: Matcher) -> str | None:
    """`text` round its first match, escaped, each match marked; None without a match."""
    spans = [m.span() for m in WORD.finditer(text) if matches(m.group())]
    if not spans:
        return None
    start, end = _window(text, spans[0][0])
    parts, position = [], start
    for begin, finish in spans:
        if begin < position or finish > end:
            continue
        parts += [escape(text[position:begin]), "<mark>", escape(text[begin:finish]), "</mark>"]
        position = finish
    parts.append(escape(text[position:end]))
    return ("…" if start else "") + "".join(parts) + ("…" if end < len(text) else "")


# Markdown read as the words it shows: each pattern's match becomes its first group.
_MARKUP = [
    (re.compile(r"^ {0,3}(?:```|~~~).*$", re.MULTILINE), ""),  # code fences
    (re.compile(r"!?\[([^\]]*)\]\([^)]*\)"), r"\1"),  # [text](url), ![alt](src)
    (re.compile(r"<(https?://[^>\s]+)>"), r"\1"),  # <https://...>
    (re.compile(r"(`+)(.+?)\1"), r"\2"),  # `code`, ``code``
    (re.compile(r"^ {0,3}(?:#{1,6}|>|[-*+]|\d+[.)])[ \t]+", re.MULTILINE), ""),  # blocks
    (re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1"), r"\2"),  # **strong**
    (re.compile(r"(?<![\w*])\*(?=\S)([^*]+?)(?<=\S)\*(?![\w*])"), r"\1"),  # *emphasis*
]
_SPACE = re.compile(r"\s+")


def _plain(markdown: str) -> str:
    """The words a Markdown text shows, on one line."""
    for pattern, replacement in _MARKUP:
        markdown = pattern.sub(replacement, markdown)
    return _SPACE.sub(" ", markdown).strip()


def _window(text: str, first: int) -> tuple[int, int]:
    if len(text) <= WIDTH:
        return 0, len(text)
    start = max(0, first - LEAD)
    if start:
        # Begin at a word, not inside one.
        space = text.find(" ", start, first)
        start = space + 1 if space != -1 else start
    end = min(len(text), start + WIDTH)
    if end < len(text):
        space = text.rfind(" ", start, end)
        end = space if space > first else end
    return start, end


def _matches(word: str, stems: set[str]) -> bool:
    stem = _stem(word)
    return stem in stems or (len(word) >= FUZZY_LENGTH and any(_close(stem, s) for s in stems))


@lru_cache(maxsize=65536)
def _close(stem: str, query_stem: str) -> bool:
    # Cached across searches: the same words come back, and SequenceMatcher is slow.
    return (
        len(query_stem) >= FUZZY_LENGTH - 1
        and abs(len(stem) - len(query_stem)) <= 2
        and difflib.SequenceMatcher(None, stem, query_stem).ratio() >= FUZZY_RATIO
    )


def _stem(word: str) -> str:
    for ending in ENDINGS:
        if word.endswith(ending) and len(word) - len(ending) >= 3:
            return word[: -len(ending)]
    return word
