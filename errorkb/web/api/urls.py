from django.urls import path, re_path

from errorkb.http.caching import conditional, conditional_entry

from .entries import ErrorDetail, ErrorList
from .runs import EntryRuns

urlpatterns = [
    path("errors/", conditional(ErrorList.as_view()), name="api-error-list"),
    # The seed's address has no trailing slash; accept both spellings.
    re_path(
        r"^errors/(?P<pk>[^/]+)/?$",
        conditional_entry(ErrorDetail.as_view()),
        name="api-error-detail",
    ),
    re_path(
        r"^errors/(?P<pk>[^/]+)/runs/?$",
        conditional_entry(EntryRuns.as_view()),
        name="api-error-runs",
    ),
]
