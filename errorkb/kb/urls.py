from django.urls import path

from . import views

app_name = "kb"

urlpatterns = [
    path("", views.home, name="home"),
    path("errors/<str:entry_id>/", views.entry_by_id, name="entry-by-id"),
    path("errors/<str:entry_id>/report/", views.report, name="report"),
    path("repos/<str:owner>/<str:name>/", views.repository, name="repository"),
    path("repos/<str:owner>/<str:name>/errors/<slug:slug>/", views.entry, name="entry"),
]
