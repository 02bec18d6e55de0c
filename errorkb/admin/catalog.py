"""The catalog beside the entries: repositories and tags."""

from django.contrib import admin

from errorkb.kb.models import Repository, Tag

from .forms import HTTPS_LINKS


@admin.register(Repository)
class RepositoryAdmin(admin.ModelAdmin):
    formfield_overrides = HTTPS_LINKS
    list_display = ("full_name", "url")
    search_fields = ("owner", "name")


@admin.register(Tag)
class TagAdmin(admin.ModelAdmin):
    search_fields = ("name",)
