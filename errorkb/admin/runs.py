from django.contrib import admin
from django.utils.html import format_html

from errorkb.verification.models import Scenario, Sweep, VerificationRun, WorkerEnvironment
from errorkb.verification.overview import recent_sweeps


@admin.register(Scenario)
class ScenarioAdmin(admin.ModelAdmin):
    list_display = ("name", "message", "release", "setup", "fault", "active", "synced_at")
    list_filter = ("active", "release", "setup", "fault")
    search_fields = ("name", "message")
    filter_horizontal = ("entries",)


class ReadOnly:
    """Evidence: shown, never added or edited by hand."""

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(VerificationRun)
class VerificationRunAdmin(ReadOnly, admin.ModelAdmin):
    """Runs are evidence; above them, the progress of the sweeps still running."""

    list_display = (
        "scenario",
        "entry",
        "variant",
        "device",
        "status",
        "signal",
        "pattern_matched",
        "started_at",
    )
    list_filter = ("status", "variant", "device", "pattern_matched")
    search_fields = ("task_id", "scenario__name", "entry__error_message")

    def changelist_view(self, request, extra_context=None):
        running = [p for p in recent_sweeps() if p.running]
        sweeps = [(p.sweep, _progress(p.sweep, p.finished)) for p in running]
        return super().changelist_view(request, {**(extra_context or {}), "sweeps": sweeps})


@admin.register(Sweep)
class SweepAdmin(ReadOnly, admin.ModelAdmin):
    list_display = ("started_at", "source", "entries", "runs", "confirmed", "why", "progress")
    list_filter = ("source",)
    list_per_page = 20  # a count of finished runs for each

    def has_view_permission(self, request, obj=None):
        # Who may see the runs may see the sweeps that sent them: no role to extend.
        return request.user.has_perm("verification.view_verificationrun")

    def has_delete_permission(self, request, obj=None):
        return False

    @admin.display(description="progress")
    def progress(self, sweep):
        return _progress(sweep, sweep.finished_runs)

    @admin.display(description="why its runs were needed")
    def why(self, sweep):
        return "; ".join(f"{runs} {reason}" for reason, runs, _ in sweep.why) or "-"


@admin.register(WorkerEnvironment)
class WorkerEnvironmentAdmin(ReadOnly, admin.ModelAdmin):
    """What the workers of each device announced on start: what the sweep plans against."""

    list_display = ("device", "trainer", "torch", "host", "announced_at")

    def has_view_permission(self, request, obj=None):
        return request.user.has_perm("verification.view_verificationrun")

    def has_delete_permission(self, request, obj=None):
        return False


def _progress(sweep: Sweep, done: int) -> str:
    return format_html(
        '<span class="sweep-progress" data-sweep="{}"><progress value="{}" max="{}"></progress>'
        " {} of {} runs finished</span>",
        sweep.pk,
        done,
        sweep.runs,
        done,
        sweep.runs,
    )
