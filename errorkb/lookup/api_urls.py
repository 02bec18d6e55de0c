from django.urls import path

from . import api, search_views

urlpatterns = [
    path("lookup", api.LookupAPI.as_view(), name="api-lookup"),
    path("search", search_views.SearchAPI.as_view(), name="api-search"),
]
