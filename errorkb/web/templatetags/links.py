"""Links a page builds from stored data; each is "" when no link can be made, and then the
page shows the text unlinked.

{{ url|public_link }}: the URL when it is safe to link to. Every href to another site goes
through it, so a bad URL already in the database (written before links were checked, or
by raw SQL) is shown, if at all, as text. The result is still autoescaped like any other
value. {{ tag|tag_address }}: the tag's page, when the tag is spelled as tags must be.
"""

from django import template

from errorkb.kb.record.links import link_error
from errorkb.kb.record.names import page_address

register = template.Library()


@register.filter
def public_link(url: str | None) -> str:
    if not isinstance(url, str) or link_error(url):
        return ""
    return url


@register.filter
def tag_address(tag: str) -> str:
    """{{ tag|tag_address }}: the tag's page, or "" for a tag no address can hold (unlinked)."""
    return page_address("web:tag", tag=tag)
