from django.urls import path

from . import search_views, views

app_name = "lookup"

urlpatterns = [
    path("lookup/", views.lookup_page, name="lookup"),
    path("search/", search_views.search_page, name="search"),
]
