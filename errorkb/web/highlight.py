"""Server-side syntax highlighting of source snippets and code fields."""

from functools import lru_cache

from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import TextLexer, get_lexer_for_filename
from pygments.util import ClassNotFound

CSS_CLASS = "highlight"


def _lexer(filename: str | None):
    try:
        return get_lexer_for_filename(filename or "", stripnl=False, ensurenl=False)
    except ClassNotFound:
        return TextLexer(stripnl=False, ensurenl=False)


# Highlighting is a pure function of its arguments and costs milliseconds; cache it.
@lru_cache(maxsize=2048)
def highlight_snippet(code: str, filename: str | None, start: int, mark: int | None) -> str:
    """The snippet as HTML, numbered from its real first line, the raising line marked."""
    marked = [mark - start + 1] if mark is not None and mark >= start else []
    formatter = HtmlFormatter(
        cssclass=CSS_CLASS,
        linenos="inline",
        linenostart=start,
        hl_lines=marked,
        lineanchors="L",
        wrapcode=True,
    )
    return highlight(code, _lexer(filename), formatter)


@lru_cache(maxsize=2048)
def highlight_code(code: str, filename: str | None) -> str:
    """A code field (example fix, guard, ...) in the language of the entry's source file."""
    return highlight(code, _lexer(filename), HtmlFormatter(cssclass=CSS_CLASS, wrapcode=True))
