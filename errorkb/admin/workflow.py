"""The entry admin's workflow: the transition buttons, the publish confirmation, bulk steps."""

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.urls import path, reverse
from django.views.decorators.http import require_POST

from errorkb.kb import editing, workflow
from errorkb.kb.models import ErrorEntry

from .pages import int_or_none, render_page
from .verification import warnings_for


class WorkflowViews:
    """Transitions one entry at a time and in bulk, for ErrorEntryAdmin."""

    def get_urls(self):
        view = self.admin_site.admin_view(require_POST(self.transition_view))
        route = "<str:object_id>/transition/<str:name>/"
        return [path(route, view, name="kb_errorentry_transition"), *super().get_urls()]

    def render_change_form(self, request, context, add=False, change=False, form_url="", obj=None):
        if obj is not None:
            context["transitions"] = workflow.allowed_transitions(request.user, obj)
            context["edit_version"] = obj.edit_version
        return super().render_change_form(request, context, add, change, form_url, obj)

    def transition_view(self, request, object_id, name):
        entry = get_object_or_404(ErrorEntry, pk=object_id)
        if not self.has_view_permission(request, entry):
            raise PermissionDenied
        base = int_or_none(request.POST.get("base_version"))
        confirmed = "confirmed" in request.POST
        warnings = warnings_for(entry) if name == "publish" and not confirmed else []
        try:
            workflow.transition(entry, name, request.user, base_version=base, warnings=warnings)
        except workflow.NeedsConfirmation as needed:
            return self.confirm_publish_view(request, [(entry, needed.reasons)], single=True)
        except editing.EditConflict as conflict:
            return self.conflict_view(request, conflict)
        except workflow.NotPublishable as missing:
            self.message_user(request, f"Not published. {missing}", messages.ERROR)
            return HttpResponseRedirect(reverse("admin:kb_errorentry_change", args=[entry.pk]))
        self.message_user(request, f"{workflow.TRANSITIONS[name].label}: done.")
        return HttpResponseRedirect(reverse("admin:kb_errorentry_change", args=[entry.pk]))

    def confirm_publish_view(self, request, flagged, *, single=False, queryset=None):
        return render_page(
            self,
            request,
            "admin/kb/errorentry/confirm_publish.html",
            "Publish anyway?",
            flagged=flagged,
            single=single,
            entries=queryset,
            action_checkbox_name=admin.helpers.ACTION_CHECKBOX_NAME,
        )

    def _transition_each(self, request, queryset, name):
        done, skipped, incomplete = 0, [], []
        for entry in queryset:
            try:
                workflow.transition(entry, name, request.user, confirmed=True)
                done += 1
            except PermissionDenied:
                skipped.append(entry)
            except workflow.NotPublishable:
                incomplete.append(entry)
        label = workflow.TRANSITIONS[name].label
        self.message_user(request, f"{label}: {done} entries.")
        if skipped:
            self.message_user(
                request,
                f"{label}: skipped {len(skipped)} entries that are not in a state for it.",
                messages.WARNING,
            )
        if incomplete:
            self.message_user(
                request,
                f"{label}: skipped {len(incomplete)} entries that have no summary.",
                messages.WARNING,
            )

    @admin.action(description="Submit selected entries for review")
    def submit_selected(self, request, queryset):
        self._transition_each(request, queryset, "submit")

    @admin.action(description="Publish selected entries")
    def publish_selected(self, request, queryset):
        if "confirmed" not in request.POST:
            flagged = [(e, r) for e in queryset if (r := warnings_for(e))]
            if flagged:
                return self.confirm_publish_view(request, flagged, queryset=queryset)
        self._transition_each(request, queryset, "publish")

    @admin.action(description="Retire selected entries")
    def retire_selected(self, request, queryset):
        self._transition_each(request, queryset, "retire")
