from django.urls import re_path

from errorkb.kb.caching import conditional

from .api import EntryRuns

urlpatterns = [
    re_path(
        r"^errors/(?P<pk>[^/]+)/runs/?$", conditional(EntryRuns.as_view()), name="api-error-runs"
    ),
]
