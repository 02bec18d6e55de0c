"""{{ text|markdown }}, {{ item|markdown_inline }}, {{ text|markdown_text }}: curated text

The HTML comes from errorkb.web.markup, which escapes raw HTML and keeps only safe tags
and public links, so it is marked safe here and nowhere else.
"""

from django import template
from django.utils.safestring import SafeString, mark_safe

from errorkb.web.markup import markdown_text as plain_text
from errorkb.web.markup import render_markdown, render_markdown_inline

register = template.Library()


@register.filter
def markdown(text: str | None) -> SafeString:
    return mark_safe(render_markdown(text))


@register.filter
def markdown_inline(text: str | None) -> SafeString:
    return mark_safe(render_markdown_inline(text))


@register.filter
def markdown_text(text: str | None) -> str:
    return plain_text(text)
