from django.contrib import admin

from errorkb.verification.models import Scenario, VerificationRun


@admin.register(Scenario)
class ScenarioAdmin(admin.ModelAdmin):
    list_display = ("name", "message", "release", "setup", "fault", "active", "synced_at")
    list_filter = ("active", "release", "setup", "fault")
    search_fields = ("name", "message")
    filter_horizontal = ("entries",)


@admin.register(VerificationRun)
class VerificationRunAdmin(admin.ModelAdmin):
    """Runs are evidence: shown, never edited by hand."""

    list_display = (
        "scenario",
        "entry",
        "variant",
        "device",
        "status",
        "pattern_matched",
        "started_at",
    )
    list_filter = ("status", "variant", "device", "pattern_matched")
    search_fields = ("task_id", "scenario__name", "entry__error_message")

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False
