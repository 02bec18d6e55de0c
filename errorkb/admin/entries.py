"""The curators' admin of entries: their workflow, history, conflicts, repositories and tags.

The logic lives in kb's curation.py, dataset.py and uploads.py; this module wires it to
Django's admin screens and checks who may do what.
"""

import reversion
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db import models
from django.http import HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_POST

from errorkb.kb import curation
from errorkb.kb.dataset import dumps_dataset, export_dataset
from errorkb.kb.models import EntryTag, ErrorEntry, RelatedLink, Report, Repository, Tag
from errorkb.verification.state import State, verification_of
from errorkb.verification.tasks import enqueue_entry

from . import uploads
from .forms import EntryForm, LinkField

RUNS_SHOWN = 10
# A link typed without a scheme is https, as Django 6 will assume; every link a page
# shows must pass errorkb.kb.links, so a curator cannot save one that runs script.
HTTPS_LINKS = {models.URLField: {"form_class": LinkField, "assume_scheme": "https"}}


@admin.register(Repository)
class RepositoryAdmin(admin.ModelAdmin):
    formfield_overrides = HTTPS_LINKS
    list_display = ("full_name", "url")
    search_fields = ("owner", "name")


@admin.register(Tag)
class TagAdmin(admin.ModelAdmin):
    search_fields = ("name",)


class EntryPartInline(admin.TabularInline):
    """Tags and links are part of the entry: whoever may edit the entry may edit them."""

    extra = 0

    def has_view_permission(self, request, obj=None):
        return request.user.has_perm("kb.view_errorentry")

    def has_add_permission(self, request, obj=None):
        if obj is None:
            return request.user.has_perm("kb.add_errorentry")
        return curation.can_edit(request.user, obj)

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


class VerificationStateFilter(admin.SimpleListFilter):
    title = "verification state"
    parameter_name = "verification"

    def lookups(self, request, model_admin):
        return State.choices

    def queryset(self, request, queryset):
        if self.value() is None:
            return queryset
        # The state is derived from runs, never stored: work it out entry by entry.
        entries = queryset.prefetch_related("scenarios")
        wanted = [e.pk for e in entries if verification_of(e).state == self.value()]
        return queryset.filter(pk__in=wanted)


@admin.register(ErrorEntry)
class ErrorEntryAdmin(admin.ModelAdmin):
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
        ("entry_tags__tag", admin.RelatedOnlyFieldListFilter),
    )
    search_fields = ("id", "error_message", "file_path", "entry_tags__tag__name")
    list_select_related = ("repository",)
    readonly_fields = (
        "id",
        "status",
        "owner",
        "content_changed_at",
        "dataset_version",
        "created_at",
        "updated_at",
        "verification_summary",
    )
    # Grouped as the public entry page shows them.
    fieldsets = (
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
            {"fields": ("trigger_scenarios", "common_situations", "applies_to")},
        ),
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

    @admin.display(description="verification")
    def verification_column(self, entry):
        return verification_of(entry).state.label

    @admin.display(description="open reports")
    def open_reports(self, entry):
        return entry.reports.open().count() or ""

    @admin.display(description="verification")
    def verification_summary(self, entry):
        if not entry.pk:
            return "Not verified yet: save the entry, link a scenario and re-verify it."
        verification = verification_of(entry)
        rows = format_html_join(
            "",
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            (
                (run.started_at, run.scenario_id, run.variant, run.device, run.status)
                for run in verification.history[:RUNS_SHOWN]
            ),
        )
        runs_url = reverse("admin:verification_verificationrun_changelist")
        return format_html(
            '<p>State: <strong class="state-{}">{}</strong>. '
            '<a href="{}?entry__id__exact={}">All runs</a></p>'
            "<table><tr><th>started</th><th>scenario</th><th>variant</th><th>device</th>"
            "<th>status</th></tr>{}</table>",
            verification.state,
            verification.state.label,
            runs_url,
            entry.pk,
            rows or mark_safe('<tr><td colspan="5">No runs yet.</td></tr>'),
        )

    # --- permissions --------------------------------------------------------------

    def has_change_permission(self, request, obj=None):
        if not super().has_change_permission(request, obj):
            return False
        return obj is None or curation.can_edit(request.user, obj)

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
        if not curation.is_editor(request.user):
            actions.pop("publish_selected", None)
            actions.pop("retire_selected", None)
        if not request.user.has_perm("kb.change_errorentry"):
            actions.pop("reverify_selected", None)
        return actions

    # --- saving: one revision, conflicts refused ----------------------------------------

    def changeform_view(self, request, object_id=None, form_url="", extra_context=None):
        try:
            with reversion.create_revision():
                reversion.set_user(request.user)
                return super().changeform_view(request, object_id, form_url, extra_context)
        except curation.EditConflict as conflict:
            return self.conflict_view(request, conflict)

    def save_model(self, request, obj, form, change):
        if change:
            base = form.cleaned_data.get("base_version")
            request.kb_before = curation.snapshot(obj)
            obj.edit_version = curation.claim_edit(
                obj.pk, obj.edit_version if base is None else base
            )
        else:
            obj.owner = request.user
            request.kb_before = None
        super().save_model(request, obj, form, change)

    def save_related(self, request, form, formsets, change):
        super().save_related(request, form, formsets, change)
        curation.finish_change(form.instance, request.kb_before)
        changed = [f for f in form.changed_data if f not in ("base_version", "change_note")]
        changed += [str(fs.model._meta.verbose_name_plural) for fs in formsets if fs.has_changed()]
        default = f"Changed {', '.join(changed)}" if change else "Created"
        reversion.set_comment(form.cleaned_data.get("change_note") or default)

    def conflict_view(self, request, conflict):
        entry = get_object_or_404(ErrorEntry, pk=conflict.entry_id)
        versions = list(curation.history(entry))
        opened = next(
            (v for v in versions if v.field_dict.get("edit_version") == conflict.base_version),
            None,
        )
        current = curation.snapshot(entry)
        since = [v for v in versions if v.field_dict.get("edit_version", 0) > conflict.base_version]
        form = self.get_form(request, entry, change=True)(request.POST, instance=entry)
        yours = [
            (name, form[name].value())
            for name in form.changed_data
            if name not in ("base_version", "change_note")
        ]
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "entry": entry,
            "title": "Edit conflict: your changes were not saved",
            "meanwhile": curation.diff(curation.version_snapshot(opened), current)
            if opened
            else None,
            "since": reversed(since),
            "yours": yours,
        }
        return TemplateResponse(request, "admin/kb/errorentry/conflict.html", context, status=409)

    # --- workflow -------------------------------------------------------------------

    def render_change_form(self, request, context, add=False, change=False, form_url="", obj=None):
        if obj is not None:
            context["transitions"] = curation.allowed_transitions(request.user, obj)
            context["edit_version"] = obj.edit_version
        return super().render_change_form(request, context, add, change, form_url, obj)

    def transition_view(self, request, object_id, name):
        entry = get_object_or_404(ErrorEntry, pk=object_id)
        if not self.has_view_permission(request, entry):
            raise PermissionDenied
        base = _int_or_none(request.POST.get("base_version"))
        try:
            curation.transition(
                entry, name, request.user, base_version=base, confirmed="confirmed" in request.POST
            )
        except curation.NeedsConfirmation as needed:
            return self.confirm_publish_view(request, [(entry, needed.reasons)], single=True)
        except curation.EditConflict as conflict:
            return self.conflict_view(request, conflict)
        self.message_user(request, f"{curation.TRANSITIONS[name].label}: done.")
        return HttpResponseRedirect(reverse("admin:kb_errorentry_change", args=[entry.pk]))

    def confirm_publish_view(self, request, flagged, *, single=False, queryset=None):
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": "Publish anyway?",
            "flagged": flagged,
            "single": single,
            "entries": queryset,
            "action_checkbox_name": admin.helpers.ACTION_CHECKBOX_NAME,
        }
        return TemplateResponse(request, "admin/kb/errorentry/confirm_publish.html", context)

    def _transition_each(self, request, queryset, name, *, confirmed=True):
        done, skipped = 0, []
        for entry in queryset:
            try:
                curation.transition(entry, name, request.user, confirmed=confirmed)
                done += 1
            except PermissionDenied:
                skipped.append(entry)
        label = curation.TRANSITIONS[name].label
        self.message_user(request, f"{label}: {done} entries.")
        if skipped:
            self.message_user(
                request,
                f"{label}: skipped {len(skipped)} entries that are not in a state for it.",
                messages.WARNING,
            )

    @admin.action(description="Submit selected entries for review")
    def submit_selected(self, request, queryset):
        self._transition_each(request, queryset, "submit")

    @admin.action(description="Publish selected entries")
    def publish_selected(self, request, queryset):
        if "confirmed" not in request.POST:
            flagged = [(e, r) for e in queryset if (r := curation.publish_warnings(e))]
            if flagged:
                return self.confirm_publish_view(request, flagged, queryset=queryset)
        self._transition_each(request, queryset, "publish")

    @admin.action(description="Retire selected entries")
    def retire_selected(self, request, queryset):
        self._transition_each(request, queryset, "retire")

    @admin.action(description="Re-verify selected entries now")
    def reverify_selected(self, request, queryset):

        queued = sum(len(enqueue_entry(entry)) for entry in queryset)
        self.message_user(
            request, f"Queued {queued} verification runs for {len(queryset)} entries."
        )

    @admin.action(description="Export selected entries as a dataset file")
    def export_selected(self, request, queryset):
        response = HttpResponse(
            dumps_dataset(export_dataset(queryset)), content_type="application/json"
        )
        stamp = timezone.now().strftime("%Y%m%dT%H%M%S")
        response["Content-Disposition"] = f'attachment; filename="errorkb-{stamp}.json"'
        return response

    # --- history, diff and revert -----------------------------------------------------

    def history_view(self, request, object_id, extra_context=None):
        entry = get_object_or_404(ErrorEntry, pk=object_id)
        if not self.has_view_permission(request, entry):
            raise PermissionDenied
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "entry": entry,
            "title": f"History: {entry.error_message[:80]}",
            "versions": curation.history(entry),
            "can_revert": curation.can_edit(request.user, entry),
        }
        return TemplateResponse(request, "admin/kb/errorentry/history.html", context)

    def compare_view(self, request, object_id):
        entry = get_object_or_404(ErrorEntry, pk=object_id)
        if not self.has_view_permission(request, entry):
            raise PermissionDenied
        versions = curation.history(entry)
        older = get_object_or_404(versions, pk=_int_or_none(request.GET.get("a")))
        newer = get_object_or_404(versions, pk=_int_or_none(request.GET.get("b")))
        if older.revision.date_created > newer.revision.date_created:
            older, newer = newer, older
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "entry": entry,
            "title": "Compare revisions",
            "older": older,
            "newer": newer,
            "changes": curation.diff(
                curation.version_snapshot(older), curation.version_snapshot(newer)
            ),
        }
        return TemplateResponse(request, "admin/kb/errorentry/compare.html", context)

    def revert_view(self, request, object_id, version_id):
        entry = get_object_or_404(ErrorEntry, pk=object_id)
        version = get_object_or_404(curation.history(entry), pk=version_id)
        if not curation.can_edit(request.user, entry):
            raise PermissionDenied
        if request.method == "POST":
            base = _int_or_none(request.POST.get("base_version"))
            try:
                curation.revert(entry, version, request.user, base_version=base)
            except curation.EditConflict as conflict:
                return self.conflict_view(request, conflict)
            self.message_user(request, "Reverted: the revert is the newest revision.")
            return HttpResponseRedirect(reverse("admin:kb_errorentry_history", args=[entry.pk]))
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "entry": entry,
            "version": version,
            "title": "Revert to this revision?",
            "changes": curation.diff(curation.snapshot(entry), curation.version_snapshot(version)),
        }
        return TemplateResponse(request, "admin/kb/errorentry/revert.html", context)

    def get_urls(self):
        wrap = self.admin_site.admin_view
        return [
            path(
                "<str:object_id>/transition/<str:name>/",
                wrap(require_POST(self.transition_view)),
                name="kb_errorentry_transition",
            ),
            path(
                "<str:object_id>/history/compare/",
                wrap(self.compare_view),
                name="kb_errorentry_compare",
            ),
            path(
                "<str:object_id>/history/<int:version_id>/revert/",
                wrap(self.revert_view),
                name="kb_errorentry_revert",
            ),
            path("upload/", wrap(self.upload_view), name="kb_errorentry_upload"),
            path(
                "upload/<int:upload_id>/",
                wrap(self.upload_preview_view),
                name="kb_errorentry_upload_preview",
            ),
            *super().get_urls(),
        ]

    def upload_view(self, request):
        return uploads.upload_view(self, request)

    def upload_preview_view(self, request, upload_id):
        return uploads.preview_view(self, request, upload_id)

    def changelist_view(self, request, extra_context=None):
        extra_context = {
            **(extra_context or {}),
            "can_upload": request.user.has_perm("kb.add_datasetupload"),
        }
        return super().changelist_view(request, extra_context)


def _int_or_none(value) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None
