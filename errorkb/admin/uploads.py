"""Admin screens for uploading a dataset file, previewing it and applying it.

Plain views that UploadViews mounts on ErrorEntryAdmin; the work is in kb.dataset.uploads.
"""

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.urls import path, reverse
from django.utils.html import format_html

from errorkb.kb.dataset.uploads import (
    MAX_UPLOAD_BYTES,
    UploadConflict,
    UploadError,
    apply_upload,
    plan_digest,
    preview,
    store_upload,
)
from errorkb.kb.models import DatasetUpload

from .pages import render_page

PERMISSION = "kb.add_datasetupload"


class UploadForm(forms.Form):
    file = forms.FileField(
        label="Dataset file",
        help_text=(
            "A JSON export dump, a list of records, or an API response. "
            f"At most {MAX_UPLOAD_BYTES // 2**20} MB."
        ),
    )


def upload_view(model_admin, request):
    """GET: the upload form. POST: keep a valid file and show its preview."""
    _require_permission(request)
    if request.method != "POST":
        form = UploadForm()
    else:
        form = UploadForm(request.POST, request.FILES)
    if form.is_bound and form.is_valid():
        file = form.cleaned_data["file"]
        try:
            # One byte past the cap is enough for store_upload to refuse the file.
            upload = store_upload(file.name, file.read(MAX_UPLOAD_BYTES + 1), request.user)
        except UploadError as exc:
            form.add_error("file", str(exc))
        else:
            url = reverse("admin:kb_errorentry_upload_preview", args=[upload.pk])
            return HttpResponseRedirect(url, status=303)
    status = 400 if form.errors else 200
    template = "admin/kb/errorentry/upload.html"
    return render_page(model_admin, request, template, "Upload a dataset", status=status, form=form)


def preview_view(model_admin, request, upload_id):
    """GET: what applying the upload would change. POST: apply it, all or nothing."""
    _require_permission(request)
    upload = get_object_or_404(DatasetUpload, pk=upload_id)
    if request.method != "POST":
        return _preview_response(model_admin, request, upload)
    try:
        result = apply_upload(upload, request.user, request.POST.get("digest", ""))
    except UploadError as exc:
        status = 409 if isinstance(exc, UploadConflict) else 400
        return _preview_response(model_admin, request, upload, error=str(exc), status=status)
    model_admin.message_user(request, f"Applied {upload.file_name}: {result}.", messages.SUCCESS)
    return HttpResponseRedirect(reverse("admin:kb_errorentry_changelist"), status=303)


def _preview_response(model_admin, request, upload, *, error="", status=200):
    errors = [error] if error else []
    plan, planned = [], False
    if upload.applied_at is None:
        try:
            _, plan = preview(upload)
            planned = True
        except UploadError as exc:
            # The file was valid when stored; what it now conflicts with is the database.
            errors.append(str(exc))
            status = 409 if status == 200 else status
    created = [c for c in plan if c.action == "created"]
    updated = [c for c in plan if c.action == "updated"]
    return render_page(
        model_admin,
        request,
        "admin/kb/errorentry/upload_preview.html",
        f"Preview of {upload.file_name}",
        status=status,
        upload=upload,
        errors=errors,
        planned=planned,
        created=created,
        updated=updated,
        unchanged=len(plan) - len(created) - len(updated),
        can_apply=bool(created or updated),
        digest=plan_digest(plan),
    )


def _require_permission(request) -> None:
    if not request.user.has_perm(PERMISSION):
        raise PermissionDenied("uploading datasets needs the add dataset upload permission")


@admin.register(DatasetUpload)
class DatasetUploadAdmin(admin.ModelAdmin):
    """Uploaded dataset files, kept as sent: who uploaded what, and what applying did."""

    list_display = ("file_name", "uploaded_by", "uploaded_at", "applied_at", "result", "preview")
    list_filter = (("applied_at", admin.EmptyFieldListFilter),)
    search_fields = ("file_name",)
    fields = ("file_name", "uploaded_by", "uploaded_at", "applied_at", "result", "preview")
    readonly_fields = fields

    @admin.display(description="preview")
    def preview(self, upload):
        url = reverse("admin:kb_errorentry_upload_preview", args=[upload.pk])
        return format_html(
            '<a href="{}">{}</a>',
            url,
            "Applied: view" if upload.applied_at else "Preview and apply",
        )

    def has_add_permission(self, request):
        return False  # uploads start from the entry list's "Upload dataset"

    def has_change_permission(self, request, obj=None):
        return False


class UploadViews:
    """The entry list's "Upload dataset": the upload form and its preview, for ErrorEntryAdmin."""

    def get_urls(self):
        wrap = self.admin_site.admin_view
        return [
            path("upload/", wrap(self.upload_view), name="kb_errorentry_upload"),
            path(
                "upload/<int:upload_id>/",
                wrap(self.upload_preview_view),
                name="kb_errorentry_upload_preview",
            ),
            *super().get_urls(),
        ]

    def upload_view(self, request):
        return upload_view(self, request)

    def upload_preview_view(self, request, upload_id):
        return preview_view(self, request, upload_id)

    def changelist_view(self, request, extra_context=None):
        extra_context = {
            **(extra_context or {}),
            "can_upload": request.user.has_perm(PERMISSION),
        }
        return super().changelist_view(request, extra_context)
