"""The curators' admin of entries: the list, the change form, and one change per save.

The logic lives in kb (workflow, revisions, editing, dataset, uploads); this module and
its mixins (history, workflow, verification) wire it to Django's admin screens.
"""

from django.contrib import admin, messages
from django.db.models import Count, OuterRef, Subquery
from django.http import HttpResponse
from django.utils import timezone

from errorkb.kb import editing, workflow
from errorkb.kb.dataset.import_export import dumps_dataset, export_dataset
from errorkb.kb.models import ErrorEntry, Report
from errorkb.verification.tasks import enqueue

from .catalog import UsedTagFilter
from .forms import HTTPS_LINKS, EntryForm
from .history import HistoryViews
from .inlines import EntryTagInline, RelatedLinkInline, ReportInline
from .uploads import UploadViews
from .upstream import FIELDS as UPSTREAM_FIELDS
from .upstream import RemovedUpstreamFilter, UpstreamColumns
from .verification import VerificationColumns, VerificationStateFilter
from .workflow import WorkflowViews

SKIPPED_NAMED = 10  # entries a re-verify names that it could not verify

NOT_CHANGES = ("base_version", "change_note")  # form fields that are not the entry's


# Grouped as the public entry page shows them.
FIELDSETS = (
    (
        "Error message",
        {
            "fields": (
                "repository",
                "slug",
                "error_message",
                "message_pattern",
                ("error_type", "severity"),
                ("error_code", "error_class", "http_status"),
            )
        },
    ),
    ("Summary", {"fields": ("summary",)}),
    ("What it means", {"fields": ("documentation",)}),
    (
        "Source",
        {
            "fields": (
                ("file_path", "line_number"),
                "source_code",
                ("source_code_start", "source_code_end"),
                "github_url",
                ("analyzed_sha", "analyzed_at"),
            )
        },
    ),
    ("Solutions", {"fields": ("solutions",)}),
    (
        "Example fix",
        {
            "fields": (
                "example_fix",
                "handling_strategy",
                "validation_code",
                "type_guard",
                "try_catch_pattern",
            )
        },
    ),
    (
        "When it happens",
        {"fields": ("trigger_scenarios", "common_situations", "applies_to", "fires_at")},
    ),
    # The upstream scanner's findings: shown, never edited here.
    ("Upstream", {"fields": UPSTREAM_FIELDS}),
    ("Prevention", {"fields": ("prevention_tips", "background_tag")}),
    ("Verification", {"fields": ("verification_summary",)}),
    (
        "Workflow",
        {
            "fields": (
                "change_note",
                ("status", "owner"),
                ("id", "schema_version", "dataset_version"),
                ("content_changed_at", "created_at", "updated_at"),
                "base_version",
            )
        },
    ),
)


@admin.register(ErrorEntry)
class ErrorEntryAdmin(
    WorkflowViews,
    HistoryViews,
    UploadViews,
    VerificationColumns,
    UpstreamColumns,
    admin.ModelAdmin,
):
    form = EntryForm
    formfield_overrides = HTTPS_LINKS
    change_form_template = "admin/kb/errorentry/change_form.html"
    list_display = (
        "message_column",
        "repository",
        "severity",
        "status",
        "verification_column",
        "open_reports",
        "updated_at",
    )
    list_filter = (
        "repository",
        "status",
        "severity",
        VerificationStateFilter,
        RemovedUpstreamFilter,
        ("entry_tags__tag", UsedTagFilter),
    )
    search_fields = ("id", "error_message", "file_path", "entry_tags__tag__name")
    list_select_related = ("repository",)
    # The list says "N results" for the filtered rows only: counting every entry too costs
    # a scan of the whole table on each page.
    show_full_result_count = False
    readonly_fields = (
        "id",
        "status",
        "owner",
        "content_changed_at",
        "dataset_version",
        "created_at",
        "updated_at",
        "verification_summary",
        *UPSTREAM_FIELDS,
    )
    fieldsets = FIELDSETS
    inlines = (EntryTagInline, RelatedLinkInline, ReportInline)
    actions = (
        "submit_selected",
        "publish_selected",
        "retire_selected",
        "reverify_selected",
        "export_selected",
    )

    def view_on_site(self, entry):
        # Only a published entry has a public page to go to.
        if entry.status == ErrorEntry.Status.PUBLISHED:
            return entry.get_absolute_url()
        return None

    # --- the list ---------------------------------------------------------------

    @admin.display(description="error message", ordering="error_message")
    def message_column(self, entry):
        return entry.error_message[:90]

    def get_queryset(self, request):
        # A subquery, not a join: it is worked out for the rows of the page alone.
        open_reports = Report.objects.open().filter(entry=OuterRef("pk"))
        counted = open_reports.values("entry").annotate(n=Count("pk")).values("n")
        return super().get_queryset(request).annotate(open_report_count=Subquery(counted))

    @admin.display(description="open reports", ordering="open_report_count")
    def open_reports(self, entry):
        return entry.open_report_count or ""

    # --- permissions --------------------------------------------------------------

    def has_change_permission(self, request, obj=None):
        if not super().has_change_permission(request, obj):
            return False
        return obj is None or workflow.can_edit(request.user, obj)

    def has_delete_permission(self, request, obj=None):
        # Entries are retired, never deleted: retiring keeps their history and links.
        return False

    def get_readonly_fields(self, request, obj=None):
        if obj is None:
            return self.readonly_fields
        # The id is derived from repository, message and file: fixed once created.
        return self.readonly_fields + ("repository",)

    def get_actions(self, request):
        actions = super().get_actions(request)
        if not request.user.has_perm("kb.submit_errorentry"):
            actions.pop("submit_selected", None)
        if not workflow.is_editor(request.user):
            actions.pop("publish_selected", None)
            actions.pop("retire_selected", None)
        if not request.user.has_perm("kb.change_errorentry"):
            actions.pop("reverify_selected", None)
        return actions

    # --- saving: one change through editing, conflicts refused -------------------------

    def changeform_view(self, request, object_id=None, form_url="", extra_context=None):
        try:
            return super().changeform_view(request, object_id, form_url, extra_context)
        except editing.EditConflict as conflict:
            return self.conflict_view(request, conflict)

    def save_model(self, request, obj, form, change):
        # Written in save_related with its tags and links: one change, one revision.
        if not change:
            obj.owner = request.user

    def save_related(self, request, form, formsets, change):
        entry = form.instance
        base = form.cleaned_data.get("base_version")
        comment = form.cleaned_data.get("change_note") or _default_comment(form, formsets, change)
        with editing.change(entry, request.user, base, comment):
            super().save_model(request, entry, form, change)
            super().save_related(request, form, formsets, change)

    @admin.action(description="Re-verify selected entries now")
    def reverify_selected(self, request, queryset):
        fanout = enqueue(queryset, source="admin")  # one group, the devices found once
        self.message_user(
            request, f"Queued {len(fanout.runs)} verification runs for {fanout.entries} entries."
        )
        for entry, reason in fanout.skipped[:SKIPPED_NAMED]:
            self.message_user(request, f"Not verified: {entry}: {reason}.", messages.WARNING)
        if len(fanout.skipped) > SKIPPED_NAMED:
            more = len(fanout.skipped) - SKIPPED_NAMED
            self.message_user(request, f"Not verified: {more} more entries.", messages.WARNING)

    @admin.action(description="Export selected entries as a dataset file")
    def export_selected(self, request, queryset):
        response = HttpResponse(
            dumps_dataset(export_dataset(queryset)), content_type="application/json"
        )
        stamp = timezone.now().strftime("%Y%m%dT%H%M%S")
        response["Content-Disposition"] = f'attachment; filename="errorkb-{stamp}.json"'
        return response


def _default_comment(form, formsets, change: bool) -> str:
    if not change:
        return "Created"
    changed = [name for name in form.changed_data if name not in NOT_CHANGES]
    changed += [str(fs.model._meta.verbose_name_plural) for fs in formsets if fs.has_changed()]
    return f"Changed {', '.join(changed)}"
