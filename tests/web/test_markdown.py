"""Curated text is Markdown: code, lists and public links render; nothing else comes out live."""

import re

import pytest

from errorkb.kb.models import ErrorEntry
from errorkb.web.markup import markdown_text, render_markdown, render_markdown_inline
from tests.builders import import_records, load_demo, make_record

REL = 'rel="nofollow noopener noreferrer"'
HOSTILE = [
    "<script>alert(1)</script>",
    '<img src=x onerror="alert(2)">',
    "[x](javascript:alert(3))",
    "[x](JaVaScRiPt:alert(3))",
    "[x](data:text/html;base64,PHNjcmlwdD5hbGVydCg0KTwvc2NyaXB0Pg==)",
    "<javascript:alert(5)>",
    "[x](vbscript:msgbox(6))",
    "![x](javascript:alert(7))",
    '[x](https://example.com/" onmouseover="alert(8))',
    "<a href='https://example.com/' onclick='alert(9)'>x</a>",
    "<style>body { display: none }</style>",
]


def live_markup(html: str) -> list[str]:
    """Anything in html that a browser would run or load."""
    found = re.findall(r"<(?:script|img|style|iframe|object|svg)\b", html, re.I)
    found += re.findall(r"<[^>]*\son\w+\s*=", html, re.I)
    hrefs = re.findall(r'href="([^"]*)"', html)
    # The page's own links are to this site ("/..."); curated ones must be http(s).
    found += [href for href in hrefs if not href.startswith(("http://", "https://", "/"))]
    return found


def test_it_renders_backticks_as_code():
    assert render_markdown("Call `load_file(path)`.") == "<p>Call <code>load_file(path)</code>.</p>"


def test_it_escapes_html_inside_code():
    assert "<code>&lt;artifact dir&gt;/model-&lt;epoch&gt;.bpk</code>" in render_markdown(
        "Look in `<artifact dir>/model-<epoch>.bpk`."
    )


def test_it_renders_lists_emphasis_and_quotes():
    html = render_markdown("Either:\n\n- *this*\n- **that**\n\n1. one\n2. two\n\n> quoted")
    assert "<ul>\n<li><em>this</em></li>\n<li><strong>that</strong></li>\n</ul>" in html
    assert "<ol>\n<li>one</li>\n<li>two</li>\n</ol>" in html
    assert "<blockquote>\n<p>quoted</p>\n</blockquote>" in html


def test_it_links_public_urls_with_nofollow():
    html = render_markdown("See [the issue](https://github.com/tracel-ai/burn/issues/3990).")
    assert f'<a href="https://github.com/tracel-ai/burn/issues/3990" {REL}>the issue</a>' in html


def test_it_keeps_the_text_of_a_link_to_no_real_host_but_not_the_link():
    html = render_markdown("[local](http://localhost:8000/) and [bare](https://intranet/)")
    assert html == "<p>local and bare</p>"


def test_it_puts_a_curators_heading_below_the_pages_own():
    html = render_markdown("# Cause\n\n## Detail")
    assert html == "<h3>Cause</h3>\n<h4>Detail</h4>"


def test_it_renders_an_item_without_a_paragraph_around_it():
    assert render_markdown_inline("Use `try_load_file`.") == "Use <code>try_load_file</code>."


def test_it_leaves_block_syntax_in_an_item_as_text():
    assert render_markdown_inline("1. not a list") == "1. not a list"


def test_it_gives_the_words_without_markup_for_a_description():
    text = "`Module::load_file` [reads](https://example.com/) a *file*.\n\n- and more"
    assert markdown_text(text) == "Module::load_file reads a file. and more"


def test_it_renders_empty_and_missing_text_as_nothing():
    assert render_markdown("") == render_markdown(None) == render_markdown_inline(None) == ""


@pytest.mark.parametrize("source", HOSTILE)
@pytest.mark.parametrize("render", [render_markdown, render_markdown_inline])
def test_it_never_puts_script_or_a_live_unsafe_link_out(render, source):
    assert live_markup(render(f"before {source} after")) == []


@pytest.mark.django_db
def test_it_renders_hostile_curated_text_harmless_on_the_entry_page(client):
    fields = {
        "documentation": "\n\n".join(HOSTILE),
        "triggerScenarios": " ".join(HOSTILE),
        "commonSituations": " ".join(HOSTILE),
        "solutions": HOSTILE,
        "preventionTips": HOSTILE,
    }
    (entry,) = import_records(make_record("Boom.", **fields))
    html = client.get(f"/errors/{entry.id}/").content.decode()
    article = html[html.index('id="meaning"') : html.index('id="provenance"')]
    assert live_markup(article) == []
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in article


@pytest.mark.django_db
def test_it_renders_the_backticks_of_every_demo_entry_as_code(client):
    # burn's own texts carry backticks ("Record error: `…`"): the demo writes a span
    # quoting them between double backticks, `` a `b` ``, as CommonMark has it.
    load_demo()
    for entry in ErrorEntry.objects.published().select_related("repository"):
        html = client.get(entry.get_absolute_url()).content.decode()
        curated = "".join(_section(html, name) for name in CURATED_SECTIONS)
        assert "<code>" in curated, entry.slug
        outside_code = re.sub(r"<code>.*?</code>", "", curated, flags=re.S)
        assert "`" not in outside_code, f"{entry.slug}: a backtick is left on the page"


# The entry page's sections of curated Markdown (the releases table quotes burn's
# printed texts, backticks and all, as text).
CURATED_SECTIONS = ["meaning", "solutions", "when", "prevention"]


def _section(html: str, name: str) -> str:
    start = html.find(f'<section id="{name}">')
    return "" if start < 0 else html[start : html.index("</section>", start)]


@pytest.mark.django_db
def test_it_renders_solutions_tips_and_situations_as_markdown(client):
    record = make_record(
        "Boom.",
        triggerScenarios="A missing `model-3.bpk`.",
        commonSituations="- one\n- two",
        solutions=["Run `df -h`.", "See [the docs](https://burn.dev/docs/)."],
        preventionTips=["Check **first**."],
    )
    (entry,) = import_records(record)
    html = client.get(f"/errors/{entry.id}/").content.decode()
    assert (
        '<div class="curated" id="trigger"><p>A missing <code>model-3.bpk</code>.</p></div>' in html
    )
    assert "<ul>\n<li>one</li>\n<li>two</li>\n</ul>" in html
    assert "<li data-copy>Run <code>df -h</code>.</li>" in html
    assert f'<li data-copy>See <a href="https://burn.dev/docs/" {REL}>the docs</a>.</li>' in html
    assert "<li>Check <strong>first</strong>.</li>" in html


@pytest.mark.django_db
def test_its_description_has_no_markdown(client):
    (entry,) = import_records(make_record("Boom.", documentation="Calls `expect` on **it**."))
    html = client.get(f"/errors/{entry.id}/").content.decode()
    assert '<meta name="description" content="Calls expect on it.">' in html


def test_it_renders_a_backtick_inside_a_double_backtick_span():
    assert render_markdown_inline("`` Record error: `…` ``") == "<code>Record error: `…`</code>"
