from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

urlpatterns = [
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
    path("api/", include("errorkb.verification.api_urls")),
    path("api/", include("errorkb.kb.api_urls")),
    path("admin/", admin.site.urls),
    path("", include("errorkb.kb.urls")),
]
