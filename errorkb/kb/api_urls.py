from django.urls import path, re_path

from .api import ErrorDetail, ErrorList
from .caching import conditional

urlpatterns = [
    path("errors/", conditional(ErrorList.as_view()), name="api-error-list"),
    # The seed's address has no trailing slash; accept both spellings.
    re_path(
        r"^errors/(?P<pk>[^/]+)/?$", conditional(ErrorDetail.as_view()), name="api-error-detail"
    ),
]
