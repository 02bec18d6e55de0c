from django.contrib import admin

from .models import EntryTag, ErrorEntry, RelatedLink, Repository, Tag


@admin.register(Repository)
class RepositoryAdmin(admin.ModelAdmin):
    list_display = ("full_name", "url")
    search_fields = ("owner", "name")


@admin.register(Tag)
class TagAdmin(admin.ModelAdmin):
    search_fields = ("name",)


class EntryTagInline(admin.TabularInline):
    model = EntryTag
    autocomplete_fields = ("tag",)
    extra = 0


class RelatedLinkInline(admin.TabularInline):
    model = RelatedLink
    fk_name = "source"
    autocomplete_fields = ("target",)
    extra = 0


@admin.register(ErrorEntry)
class ErrorEntryAdmin(admin.ModelAdmin):
    list_display = ("error_message", "repository", "severity", "status", "updated_at")
    list_filter = ("status", "severity", "repository")
    search_fields = ("id", "error_message", "file_path")
    readonly_fields = ("id", "created_at", "updated_at")
    inlines = (EntryTagInline, RelatedLinkInline)
