"""Curated text as HTML: CommonMark by markdown-it, then sanitised by nh3.

Curators write documentation, trigger scenarios, solutions and tips with backticks,
lists and links. markdown-it escapes any raw HTML in the source ("html": False), and
every link is judged by the one rule for public links (errorkb.kb.links.link_error):
a link that fails it keeps its text and loses its href. nh3 then keeps only the tags
below, so even a renderer bug cannot put script, style or an event handler on a page.
"""

import nh3
from markdown_it import MarkdownIt
from markdown_it.token import Token

from errorkb.kb.links import link_error

# Images would load from other hosts (and the CSP would block them): the text stays.
MD = MarkdownIt("commonmark", {"html": False}).disable("image")
# markdown-it's own check lets through hosts link_error refuses (localhost, a bare
# name): every link is judged once, by link_error, in _unlink_unsafe.
MD.validateLink = lambda url: True

# The page's own h1 and h2 frame the sections: a curator's heading sits below them.
HEADING_OFFSET = 2
TAGS = {"p", "br", "code", "pre", "em", "strong", "ul", "ol", "li", "a", "blockquote", "hr"}
TAGS |= {f"h{level}" for level in range(1 + HEADING_OFFSET, 7)}
ATTRIBUTES = {"a": {"href", "title"}, "ol": {"start"}}
LINK_REL = "nofollow noopener noreferrer"


def render_markdown(text: str | None) -> str:
    """Safe HTML for curated text of one or more paragraphs, lists and quotes."""
    tokens = MD.parse(text or "")
    for token in tokens:
        if token.type in ("heading_open", "heading_close"):
            token.tag = _demoted(token.tag)
        elif token.type == "inline":
            token.children = _unlink_unsafe(token.children or [])
    return _clean(MD.renderer.render(tokens, MD.options, {}))


def render_markdown_inline(text: str | None) -> str:
    """Safe HTML for a one-line item (a solution, a tip): no paragraph around it."""
    tokens = MD.parseInline(text or "")
    for token in tokens:
        token.children = _unlink_unsafe(token.children or [])
    return _clean(MD.renderer.render(tokens, MD.options, {}))


def markdown_text(text: str | None) -> str:
    """The words of curated text without its markup, for a meta description."""
    words = []
    for token in MD.parse(text or ""):
        for child in token.children or []:
            if child.type in ("text", "code_inline"):
                words.append(child.content)
            elif child.type in ("softbreak", "hardbreak"):
                words.append(" ")
        if token.type == "inline":
            words.append(" ")
    return " ".join("".join(words).split())


def _demoted(tag: str) -> str:
    return f"h{min(int(tag[1]) + HEADING_OFFSET, 6)}"


def _unlink_unsafe(children: list[Token]) -> list[Token]:
    """The inline tokens without the opening and closing tags of links that fail link_error."""
    kept, dropping = [], []
    for child in children:
        if child.type == "link_open":
            unsafe = link_error(str(child.attrGet("href") or "")) is not None
            dropping.append(unsafe)
            if unsafe:
                continue
        elif child.type == "link_close" and dropping.pop():
            continue
        kept.append(child)
    return kept


def _clean(html: str) -> str:
    return nh3.clean(
        html,
        tags=TAGS,
        attributes=ATTRIBUTES,
        attribute_filter=_safe_attribute,
        url_schemes={"http", "https"},
        link_rel=LINK_REL,
    ).strip()


def _safe_attribute(tag: str, attribute: str, value: str) -> str | None:
    # A second look at every href, so nothing but a public link survives nh3 either.
    if tag == "a" and attribute == "href" and link_error(value) is not None:
        return None
    return value
