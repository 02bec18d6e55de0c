from django.contrib import admin
from django.templatetags.static import static
from django.urls import include, path
from django.utils.functional import lazy
from django.views.generic import RedirectView
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from errorkb.http.methods import SAFE_METHODS, answers

FAVICON = RedirectView.as_view(url=lazy(static, str)("kb/favicon.svg"))

# An address no view answers: under /api/ the API's JSON 404, elsewhere the 404 page.
handler404 = "errorkb.http.api.not_found"

urlpatterns = [
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    # The split view serves Swagger UI's start script from /api/docs/?script=, and our
    # template its style from a file: the page needs no inline script or style (CSP).
    path(
        "api/docs/",
        SpectacularSwaggerSplitView.as_view(url_name="api-schema", template_name="api_docs.html"),
        name="api-docs",
    ),
    path("api/", include("errorkb.lookup.api_urls")),
    path("api/", include("errorkb.search.api_urls")),
    path("api/", include("errorkb.web.api.urls")),
    path("admin/", admin.site.urls),
    # Browsers ask for /favicon.ico on pages that name no icon (the admin's, a JSON answer).
    path("favicon.ico", answers(*SAFE_METHODS)(FAVICON)),
    path("", include("errorkb.lookup.urls")),
    path("", include("errorkb.search.urls")),
    path("", include("errorkb.web.urls")),
]
