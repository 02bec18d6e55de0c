"""The entry admin's history screens: the revisions, a compare, a revert, an edit conflict."""

from django.core.exceptions import PermissionDenied
from django.http import HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.urls import path, reverse

from errorkb.kb import editing, revisions, workflow
from errorkb.kb.models import ErrorEntry

from .pages import int_or_none, render_page

TEMPLATES = "admin/kb/errorentry/"


class HistoryViews:
    """History, compare, revert and the conflict page, for ErrorEntryAdmin."""

    def get_urls(self):
        wrap = self.admin_site.admin_view
        return [
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
            *super().get_urls(),
        ]

    def _viewable(self, request, object_id) -> ErrorEntry:
        entry = get_object_or_404(ErrorEntry, pk=object_id)
        if not self.has_view_permission(request, entry):
            raise PermissionDenied
        return entry

    def history_view(self, request, object_id, extra_context=None):
        entry = self._viewable(request, object_id)
        return render_page(
            self,
            request,
            TEMPLATES + "history.html",
            f"History: {entry.error_message[:80]}",
            entry=entry,
            versions=revisions.history(entry),
            can_revert=workflow.can_edit(request.user, entry),
        )

    def compare_view(self, request, object_id):
        entry = self._viewable(request, object_id)
        versions = revisions.history(entry)
        older = get_object_or_404(versions, pk=int_or_none(request.GET.get("a")))
        newer = get_object_or_404(versions, pk=int_or_none(request.GET.get("b")))
        if older.revision.date_created > newer.revision.date_created:
            older, newer = newer, older
        changes = revisions.diff(
            revisions.version_snapshot(older), revisions.version_snapshot(newer)
        )
        return render_page(
            self,
            request,
            TEMPLATES + "compare.html",
            "Compare revisions",
            entry=entry,
            older=older,
            newer=newer,
            changes=changes,
        )

    def revert_view(self, request, object_id, version_id):
        entry = get_object_or_404(ErrorEntry, pk=object_id)
        version = get_object_or_404(revisions.history(entry), pk=version_id)
        if not workflow.can_edit(request.user, entry):
            raise PermissionDenied
        if request.method == "POST":
            base = int_or_none(request.POST.get("base_version"))
            try:
                revisions.revert(entry, version, request.user, base_version=base)
            except editing.EditConflict as conflict:
                return self.conflict_view(request, conflict)
            self.message_user(request, "Reverted: the revert is the newest revision.")
            return HttpResponseRedirect(reverse("admin:kb_errorentry_history", args=[entry.pk]))
        changes = revisions.diff(editing.snapshot(entry), revisions.version_snapshot(version))
        return render_page(
            self,
            request,
            TEMPLATES + "revert.html",
            "Revert to this revision?",
            entry=entry,
            version=version,
            changes=changes,
        )

    def conflict_view(self, request, conflict: editing.EditConflict):
        entry = get_object_or_404(ErrorEntry, pk=conflict.entry_id)
        versions = list(revisions.history(entry))
        base = conflict.base_version
        opened = next((v for v in versions if v.field_dict.get("edit_version") == base), None)
        since = [v for v in versions if v.field_dict.get("edit_version", 0) > base]
        current = editing.snapshot(entry)
        form = self.get_form(request, entry, change=True)(request.POST, instance=entry)
        yours = [
            (name, form[name].value())
            for name in form.changed_data
            if name not in ("base_version", "change_note")
        ]
        meanwhile = revisions.diff(revisions.version_snapshot(opened), current) if opened else None
        return render_page(
            self,
            request,
            TEMPLATES + "conflict.html",
            "Edit conflict: your changes were not saved",
            status=409,
            entry=entry,
            meanwhile=meanwhile,
            since=reversed(since),
            yours=yours,
        )
