from django.urls import path

from . import views

urlpatterns = [
    path("search", views.SearchAPI.as_view(), name="api-search"),
]
