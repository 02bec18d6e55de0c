"""Dataset files uploaded in the admin: stored when valid, previewed, then applied once.

The file is kept as it was sent, so the preview and the apply read the same records.
Applying re-plans against the database as it is then and refuses a preview gone stale.
"""

from datetime import datetime

from django.db import transaction
from django.utils import timezone

from ..models import DatasetUpload
from ..record.validation import InvalidRecord
from .files import MAX_DATASET_BYTES, Dataset, DatasetError, decode_dataset, load_dataset
from .import_export import ImportResult, PlannedChange, import_dataset, plan_digest, plan_import

MAX_UPLOAD_BYTES = MAX_DATASET_BYTES  # a single limit, under the name the upload form states
FILE_NAME_LENGTH = DatasetUpload._meta.get_field("file_name").max_length


class UploadError(ValueError):
    """An upload that cannot be stored or applied; the message is for whoever sent it."""


class UploadConflict(UploadError):
    """The upload cannot be applied as previewed: it was applied, or the database moved on."""


def store_upload(file_name: str, raw_bytes: bytes, user) -> DatasetUpload:
    """Keep a dataset file for preview, once it parses and every record is valid."""
    try:
        content = decode_dataset(raw_bytes)
    except DatasetError as exc:
        raise UploadError(str(exc)) from exc
    _parse(content)
    return DatasetUpload.objects.create(
        file_name=_storable_name(file_name), content=content, uploaded_by=user
    )


def _storable_name(file_name: str) -> str:
    # Django's upload parser drops unprintable characters from names; a caller may not
    # have, and a NUL or a lone surrogate would fail the write here and in the revision.
    return "".join(char for char in file_name if char.isprintable())[:FILE_NAME_LENGTH]


def _parse(content: str) -> Dataset:
    try:
        return load_dataset(content)
    except DatasetError as exc:
        raise UploadError(str(exc)) from exc


def preview(upload: DatasetUpload) -> tuple[Dataset, list[PlannedChange]]:
    """The upload's records and what applying them now would do; writes nothing."""
    dataset = _parse(upload.content)
    try:
        return dataset, plan_import(dataset)
    except InvalidRecord as exc:
        # The same refusal, worded the same way, as applying would give.
        raise UploadError(str(exc)) from exc


def apply_upload(upload: DatasetUpload, user, digest: str) -> ImportResult:
    """Import the upload as previewed, all or nothing, as one revision by the user."""
    with transaction.atomic():
        applied_at = _claim(upload)
        dataset, plan = preview(upload)
        if plan_digest(plan) != digest:
            raise UploadConflict(
                "the knowledge base changed since the preview; review the new preview"
            )
        result = import_dataset(dataset, user=user, source=upload.file_name)
        upload.applied_at, upload.result = applied_at, str(result)
        upload.save(update_fields=["applied_at", "result"])
    return result


def _claim(upload: DatasetUpload) -> datetime:
    # One conditional UPDATE, as editing.claim_edit does: of two clicks on Apply, the
    # database lets one through and the other, once the first commits, matches no row.
    # It holds on SQLite too, where select_for_update() is a no-op and a read before
    # the write would make the second click fail with "database is locked" instead.
    now = timezone.now()
    claimed = DatasetUpload.objects.filter(pk=upload.pk, applied_at=None).update(applied_at=now)
    if not claimed:
        done = DatasetUpload.objects.filter(pk=upload.pk).first()
        if done is None:
            raise UploadError("this upload no longer exists")
        when = timezone.localtime(done.applied_at)
        raise UploadConflict(
            f"this upload was already applied on {when:%Y-%m-%d %H:%M}: {done.result}"
        )
    return now
