"""Dataset files uploaded in the admin: stored when valid, previewed, then applied once.

The file is kept as it was sent, so the preview and the apply read the same records.
Applying re-plans against the database as it is then and refuses a preview gone stale.
"""

import json
from datetime import datetime

from django.db import transaction
from django.utils import timezone

from .dataset import (
    Dataset,
    DatasetError,
    ImportResult,
    PlannedChange,
    import_dataset,
    parse_dataset,
    plan_digest,
    plan_import,
)
from .models import DatasetUpload
from .records import RecordError

# Twenty times the whole demo dataset; a file past this is a mistake, not a dataset.
MAX_UPLOAD_BYTES = 20 * 1024 * 1024
FILE_NAME_LENGTH = DatasetUpload._meta.get_field("file_name").max_length


class UploadError(ValueError):
    """An upload that cannot be stored or applied; the message is for whoever sent it."""


class UploadConflict(UploadError):
    """The upload cannot be applied as previewed: it was applied, or the database moved on."""


def store_upload(file_name: str, raw_bytes: bytes, user) -> DatasetUpload:
    """Keep a dataset file for preview, once it parses and every record is valid."""
    if len(raw_bytes) > MAX_UPLOAD_BYTES:
        raise UploadError(f"the file is larger than {MAX_UPLOAD_BYTES // 2**20} MB")
    try:
        # utf-8-sig: a byte order mark, as some editors write, is not part of the JSON.
        content = raw_bytes.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise UploadError(f"the file is not UTF-8 text (bad byte at offset {exc.start})") from None
    _parse(content)
    return DatasetUpload.objects.create(
        file_name=file_name[:FILE_NAME_LENGTH], content=content, uploaded_by=user
    )


def _parse(content: str) -> Dataset:
    try:
        data = json.loads(content)
    except json.JSONDecodeError as exc:
        raise UploadError(f"the file is not valid JSON: {exc}") from None
    except RecursionError:
        raise UploadError("the file is not valid JSON: it is nested too deeply") from None
    try:
        return parse_dataset(data)
    except (DatasetError, RecordError) as exc:
        raise UploadError(str(exc)) from exc


def preview(upload: DatasetUpload) -> tuple[Dataset, list[PlannedChange]]:
    """The upload's records and what applying them now would do; writes nothing."""
    dataset = _parse(upload.content)
    try:
        return dataset, plan_import(dataset)
    except RecordError as exc:
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
    # One conditional UPDATE, as curation.claim_edit does: of two clicks on Apply, the
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
