from django.urls import path

from . import views

app_name = "lookup"

urlpatterns = [
    path("lookup/", views.lookup_page, name="lookup"),
    path("lookup/<str:key>/", views.kept_page, name="kept"),
]
