"""Curated text as HTML: CommonMark by markdown-it, then sanitised by nh3.

Curators write documentation, trigger scenarios, solutions and tips with backticks,
lists and links. markdown-it escapes any raw HTML in the source ("html": False), and
every link is judged by the single rule for public links (errorkb.kb.record.links.link_error):
a link that fails it keeps its text and loses its href. Issue and source references in
the text, outside code and links, become links (errorkb.web.references). nh3 then keeps
only the tags below, so even a renderer bug cannot put script, style or an event handler
on a page.
"""

import nh3
from markdown_it import MarkdownIt
from markdown_it.token import Token

from errorkb.kb.record.links import link_error

from .references import Sources, links_in

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


def render_markdown(text: str | None, sources: Sources | None = None) -> str:
    """Safe HTML for curated text of one or more paragraphs, lists and quotes.

    sources: where the entry's source references point; without it only issues are linked.
    """
    tokens = MD.parse(text or "")
    for token in tokens:
        if token.type in ("heading_open", "heading_close"):
            token.tag = _demoted(token.tag)
        elif token.type == "inline":
            token.children = _linked(_unlink_unsafe(token.children or []), sources)
    return _clean(MD.renderer.render(tokens, MD.options, {}))


def render_markdown_inline(text: str | None, sources: Sources | None = None) -> str:
    """Safe HTML for a one-line item (a solution, a tip): no paragraph around it."""
    tokens = MD.parseInline(text or "")
    for token in tokens:
        token.children = _linked(_unlink_unsafe(token.children or []), sources)
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


def _linked(children: list[Token], sources: Sources | None) -> list[Token]:
    """The inline tokens with each issue and source reference in their plain text a link.

    References are read in the line's whole text, a line break as a space, so "at v0.19.1"
    on the next line still names the release; code and links' own text are never linked.
    """
    words, texts, depth, start = [], [], 0, 0
    for child in children:
        depth += {"link_open": 1, "link_close": -1}.get(child.type, 0)
        word = child.content if child.type == "text" else "\x00"
        if child.type in ("softbreak", "hardbreak"):
            word = " "
        elif child.type == "text" and not depth:
            texts.append((start, start + len(word), child))
        words.append(word)
        start += len(word)
    links = links_in("".join(words), sources)
    if not links:
        return children
    split = {
        id(child): _split(
            child, [(s - at, e - at, url) for s, e, url in links if at <= s and e <= end]
        )
        for at, end, child in texts
    }
    return [part for child in children for part in split.get(id(child), [child])]


def _split(text: Token, links: list[tuple[int, int, str]]) -> list[Token]:
    """The text token as text and links, one link for each (start, end, url)."""
    parts, done = [], 0
    for start, end, url in links:
        parts.append(Token("text", "", 0, content=text.content[done:start]))
        parts.append(Token("link_open", "a", 1, attrs={"href": url}))
        parts.append(Token("text", "", 0, content=text.content[start:end]))
        parts.append(Token("link_close", "a", -1))
        done = end
    parts.append(Token("text", "", 0, content=text.content[done:]))
    return parts


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
