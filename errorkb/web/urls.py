from django.urls import path, register_converter

from errorkb.kb.record.names import TAG_RE

from . import verification_views, views


class TextConverter:
    """A path segment without NUL, which PostgreSQL text cannot hold: such an address is a 404."""

    regex = "[^/\x00]+"

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


class TagConverter(TextConverter):
    """A tag as records may spell it (record.schema.TAG_RE), so every tag has its page."""

    # TAG_RE without its anchors: Django anchors a converter's pattern itself.
    regex = TAG_RE.pattern.removeprefix("^").removesuffix(r"\Z")


register_converter(TextConverter, "text")
register_converter(TagConverter, "tag")

app_name = "web"

urlpatterns = [
    path("", views.home, name="home"),
    path("errors/<text:entry_id>/", views.entry_by_id, name="entry-by-id"),
    path("errors/<text:entry_id>/report/", views.report, name="report"),
    path("repos/<text:owner>/<text:name>/", views.repository, name="repository"),
    path("tags/<tag:tag>/", views.tag, name="tag"),
    path("verification/", verification_views.verification, name="verification"),
    path("repos/<text:owner>/<text:name>/errors/<slug:slug>/", views.entry, name="entry"),
]
