"""The helper for the admin's own pages: the site's context, the model's options, a title."""

from django.template.response import TemplateResponse


def render_page(model_admin, request, template: str, title: str, *, status=200, **context):
    """A page of model_admin's screens, rendered as the admin renders its own."""
    context = {
        **model_admin.admin_site.each_context(request),
        "opts": model_admin.opts,
        "title": title,
        **context,
    }
    return TemplateResponse(request, template, context, status=status)


def int_or_none(value) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None
