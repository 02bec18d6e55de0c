"""{{ url|public_link }}: the URL when it is safe to link to, else "" (so no link is made).

Every href a public page builds from stored data goes through this filter, so a bad URL
already in the database (written before links were checked, or by raw SQL) is shown,
if at all, as text. The result is still autoescaped like any other value.
"""

from django import template

from errorkb.kb.links import link_error

register = template.Library()


@register.filter
def public_link(url: str | None) -> str:
    if not isinstance(url, str) or link_error(url):
        return ""
    return url
