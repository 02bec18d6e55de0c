from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

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
    path("", include("errorkb.lookup.urls")),
    path("", include("errorkb.search.urls")),
    path("", include("errorkb.web.urls")),
]
