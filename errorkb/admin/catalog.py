"""The catalog beside the entries: repositories and tags."""

from django.contrib import admin
from django.db.models import Exists, OuterRef, Q

from errorkb.kb.editing import rename_tag
from errorkb.kb.models import EntryTag, Repository, Tag

from .forms import HTTPS_LINKS


@admin.register(Repository)
class RepositoryAdmin(admin.ModelAdmin):
    formfield_overrides = HTTPS_LINKS
    list_display = ("full_name", "url")
    search_fields = ("owner", "name")


@admin.register(Tag)
class TagAdmin(admin.ModelAdmin):
    search_fields = ("name",)

    def save_model(self, request, obj, form, change):
        if change and "name" in form.changed_data:
            rename_tag(obj, obj.name)  # the tagged entries' search documents say it too
        else:
            super().save_model(request, obj, form, change)


class UsedTagFilter(admin.RelatedFieldListFilter):
    """The entry list's tag filter: every tag some entry has, as RelatedOnlyFieldListFilter.

    Asked of the tags, one EXISTS each over the entry-tag index, instead of a DISTINCT
    over every entry's tags.
    """

    def field_choices(self, field, request, model_admin):
        used = Q(Exists(EntryTag.objects.filter(tag=OuterRef("pk"))))
        ordering = self.field_admin_ordering(field, request, model_admin)
        return field.get_choices(include_blank=False, limit_choices_to=used, ordering=ordering)
