"""The parts shown inside an entry's change form: its tags, its related links, its reports."""

from django.contrib import admin

from errorkb.kb import workflow
from errorkb.kb.models import EntryTag, RelatedLink, Report


class EntryPartInline(admin.TabularInline):
    """Tags and links are part of the entry: whoever may edit the entry may edit them."""

    extra = 0

    def has_view_permission(self, request, obj=None):
        return request.user.has_perm("kb.view_errorentry")

    def has_add_permission(self, request, obj=None):
        if obj is None:
            return request.user.has_perm("kb.add_errorentry")
        return workflow.can_edit(request.user, obj)

    def has_change_permission(self, request, obj=None):
        return self.has_add_permission(request, obj)

    def has_delete_permission(self, request, obj=None):
        return self.has_add_permission(request, obj)


class EntryTagInline(EntryPartInline):
    model = EntryTag
    fields = ("position", "tag")
    autocomplete_fields = ("tag",)
    verbose_name_plural = "tags (in order)"


class RelatedLinkInline(EntryPartInline):
    model = RelatedLink
    fk_name = "source"
    fields = ("position", "target")
    autocomplete_fields = ("target",)
    verbose_name_plural = "related entries (in order)"


class ReportInline(admin.TabularInline):
    """Readers' reports next to the entry they are about; resolved in the report admin."""

    model = Report
    fields = ("created_at", "message", "contact", "resolved_at")
    readonly_fields = fields
    extra = 0
    can_delete = False
    verbose_name_plural = "reports from readers"

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_view_permission(self, request, obj=None):
        return request.user.has_perm("kb.view_report")
