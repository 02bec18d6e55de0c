"""Readers' reports in the admin: read them, mark them resolved."""

from django.contrib import admin
from django.db import transaction
from django.utils import timezone

from errorkb.kb.changes import entries_changed
from errorkb.kb.models import Report


@admin.register(Report)
class ReportAdmin(admin.ModelAdmin):
    list_display = ("created_at", "entry", "message_start", "contact", "resolved_at")
    list_filter = (("resolved_at", admin.EmptyFieldListFilter),)
    search_fields = ("message", "entry__error_message", "entry__id")
    readonly_fields = ("entry", "message", "contact", "created_at", "resolved_at", "resolved_by")
    list_select_related = ("entry",)
    actions = ("resolve_selected",)

    @admin.display(description="message")
    def message_start(self, report):
        return report.message[:80]

    def has_add_permission(self, request):
        return False

    @admin.action(description="Mark selected reports resolved", permissions=["change"])
    def resolve_selected(self, request, queryset):
        with transaction.atomic():
            entry_ids = list(queryset.open().values_list("entry_id", flat=True))
            count = queryset.open().update(resolved_at=timezone.now(), resolved_by=request.user)
            entries_changed(entry_ids)
        self.message_user(request, f"{count} reports marked resolved.")
