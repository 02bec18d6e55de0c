from django.urls import path

from . import api

urlpatterns = [
    path("lookup", api.LookupAPI.as_view(), name="api-lookup"),
]
