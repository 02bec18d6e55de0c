"""{{ text|markdown }}, {{ item|markdown_inline }}, {{ text|markdown_text }}: curated text

{{ text|markdown:sources }} and {{ item|markdown_inline:sources }} also link the entry's
source references (errorkb.web.references.sources_of); issues are linked either way.

The HTML comes from errorkb.web.markup, which escapes raw HTML and keeps only safe tags
and public links, so it is marked safe here and nowhere else.
"""

from django import template
from django.utils.safestring import SafeString, mark_safe

from errorkb.web.markup import markdown_text as plain_text
from errorkb.web.markup import render_markdown, render_markdown_inline
from errorkb.web.references import Sources

register = template.Library()


@register.filter
def markdown(text: str | None, sources: Sources | None = None) -> SafeString:
    return mark_safe(render_markdown(text, sources or None))


@register.filter
def markdown_inline(text: str | None, sources: Sources | None = None) -> SafeString:
    return mark_safe(render_markdown_inline(text, sources or None))


@register.filter
def markdown_text(text: str | None) -> str:
    return plain_text(text)
