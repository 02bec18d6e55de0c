from django.urls import path, register_converter

from . import views


class TextConverter:
    """A path segment without NUL, which PostgreSQL text cannot hold: such an address is a 404."""

    regex = "[^/\x00]+"

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


register_converter(TextConverter, "text")

app_name = "kb"

urlpatterns = [
    path("", views.home, name="home"),
    path("errors/<text:entry_id>/", views.entry_by_id, name="entry-by-id"),
    path("errors/<text:entry_id>/report/", views.report, name="report"),
    path("repos/<text:owner>/<text:name>/", views.repository, name="repository"),
    path("repos/<text:owner>/<text:name>/errors/<slug:slug>/", views.entry, name="entry"),
]
