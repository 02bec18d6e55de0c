"""Dataset uploads: stored only when valid, previewed without writing, applied once, whole."""

import json

import pytest
from reversion.models import Revision

from errorkb.kb.dataset.files import parse_dataset
from errorkb.kb.dataset.import_export import dumps_dataset, export_dataset, plan_import
from errorkb.kb.dataset.uploads import (
    MAX_UPLOAD_BYTES,
    UploadConflict,
    UploadError,
    apply_upload,
    plan_digest,
    preview,
    store_upload,
)
from errorkb.kb.ids import ENTRY_ID_LENGTH
from errorkb.kb.models import DatasetUpload, ErrorEntry
from tests.builders import import_records, make_record
from tests.kb.people import editor

pytestmark = pytest.mark.django_db


def as_file(*records) -> bytes:
    return json.dumps({"datasetVersion": "v-upload", "records": list(records)}).encode()


@pytest.fixture
def uploader():
    return editor()


@pytest.fixture
def existing():
    """Two entries already in the knowledge base: one the file changes, one it repeats."""
    changed = make_record("Engine stalled.")
    same = make_record("Fuel is low.")
    import_records(changed, same)
    return changed, same


@pytest.fixture
def mixed(existing):
    """A file with one new record, one changed record and one unchanged record."""
    changed, same = existing
    edited = {
        **changed,
        "documentation": "Rewritten.",
        "tags": ["rust"],
        "status": "draft",
    }
    return as_file(make_record("Brand new."), edited, same)


def state() -> tuple:
    return dumps_dataset(export_dataset()), Revision.objects.count()


def test_it_previews_new_changed_and_unchanged_records_with_the_changed_keys(mixed, uploader):
    upload = store_upload("mixed.json", mixed, uploader)
    before = state()
    dataset, plan = preview(upload)
    assert [(c.error_message, c.action, c.changed) for c in plan] == [
        ("Brand new.", "created", []),
        ("Engine stalled.", "updated", ["documentation", "tags", "status"]),
        ("Fuel is low.", "unchanged", []),
    ]
    assert [c.entry_id for c in plan] == [r.id for r in dataset.records]
    assert state() == before
    assert ErrorEntry.objects.count() == 2


def test_it_sees_a_timestamp_written_another_way_as_unchanged(existing):
    _, same = existing
    record = {**same, "analyzedAt": same["analyzedAt"].replace("Z", "+00:00")}
    (change,) = plan_import(parse_dataset([record]))
    assert change.action == "unchanged"


def test_it_stores_a_valid_file_as_it_was_sent(mixed, uploader):
    upload = store_upload("mixed.json", mixed, uploader)
    stored = DatasetUpload.objects.get()
    assert (stored.pk, stored.file_name, stored.uploaded_by) == (upload.pk, "mixed.json", uploader)
    assert stored.content == mixed.decode()
    assert stored.applied_at is None


def test_it_accepts_a_file_that_starts_with_a_byte_order_mark(uploader):
    upload = store_upload("bom.json", b"\xef\xbb\xbf" + as_file(make_record()), uploader)
    assert len(preview(upload)[1]) == 1


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (b'{"records": [\xff]}', "not UTF-8"),
        (b'{"records": ', "not valid JSON"),
        (b"[" * 100_000, "not valid JSON"),
        (b'{"recs": []}', "expected a 'record' or 'records' key"),
        (as_file(make_record(severity="fatal")), "field 'severity': must be one of"),
    ],
    ids=["not-utf8", "not-json", "too-deep", "no-records", "bad-field"],
)
def test_it_refuses_an_invalid_file_and_stores_nothing(raw, expected, uploader):
    with pytest.raises(UploadError, match=expected):
        store_upload("bad.json", raw, uploader)
    assert not DatasetUpload.objects.exists()


def test_it_refuses_a_file_past_the_size_cap_and_stores_nothing(uploader):
    with pytest.raises(UploadError, match="larger than 20 MB"):
        store_upload("big.json", b" " * (MAX_UPLOAD_BYTES + 1), uploader)
    assert not DatasetUpload.objects.exists()


def test_it_names_the_record_and_field_of_an_invalid_record(uploader):
    record = make_record(severity="fatal")
    with pytest.raises(UploadError) as caught:
        store_upload("bad.json", as_file(make_record("Fine."), record), uploader)
    assert str(caught.value).startswith(f"record {record['id']} (#1), field 'severity'")


def test_it_applies_the_file_as_one_revision_by_the_uploader(mixed, uploader):
    upload = store_upload("mixed.json", mixed, uploader)
    _, plan = preview(upload)
    revisions = Revision.objects.count()
    result = apply_upload(upload, uploader, plan_digest(plan))
    assert str(result) == "1 created, 1 updated, 1 unchanged"
    assert Revision.objects.count() == revisions + 1
    revision = Revision.objects.latest("pk")
    assert revision.user == uploader
    assert "mixed.json" in revision.get_comment()
    assert ErrorEntry.objects.get(error_message="Engine stalled.").status == "draft"
    stored = DatasetUpload.objects.get()
    assert stored.applied_at is not None and stored.result == str(result)


def test_it_refuses_to_apply_the_same_upload_twice(mixed, uploader):
    upload = store_upload("mixed.json", mixed, uploader)
    digest = plan_digest(preview(upload)[1])
    apply_upload(upload, uploader, digest)
    before = state()
    # A second click, from a page loaded before the first apply, holds the same digest.
    again = DatasetUpload.objects.get(pk=upload.pk)
    with pytest.raises(UploadConflict, match="already applied"):
        apply_upload(again, uploader, digest)
    assert state() == before


def test_it_refuses_when_the_knowledge_base_changed_since_the_preview(existing, uploader):
    changed, _ = existing
    upload = store_upload("one.json", as_file({**changed, "documentation": "Ours."}), uploader)
    _, seen = preview(upload)
    import_records({**changed, "documentation": "Someone else's."})
    before = state()
    _, now = preview(upload)
    # The same keys still change, yet the entry is not the one that was previewed.
    assert [c.changed for c in now] == [c.changed for c in seen] == [["documentation"]]
    with pytest.raises(UploadConflict, match="changed since the preview"):
        apply_upload(upload, uploader, plan_digest(seen))
    assert state() == before
    assert DatasetUpload.objects.get().applied_at is None
    assert ErrorEntry.objects.get(id=changed["id"]).documentation == "Someone else's."


def test_it_writes_nothing_when_a_record_fails_the_database_check(existing, uploader):
    unknown = "0" * ENTRY_ID_LENGTH
    broken = make_record("Links nowhere.", related=[unknown])
    upload = store_upload("broken.json", as_file(make_record("Brand new."), broken), uploader)
    expected = f"record {broken['id']}, field 'related': unknown entry '{unknown}'"
    with pytest.raises(UploadError) as previewed:
        preview(upload)
    assert str(previewed.value) == expected
    before = state()
    with pytest.raises(UploadError) as applied:
        apply_upload(upload, uploader, plan_digest([]))
    assert str(applied.value) == expected
    assert state() == before
    assert not ErrorEntry.objects.filter(error_message="Brand new.").exists()
    assert DatasetUpload.objects.get().applied_at is None


def test_the_digest_is_stable_and_follows_the_plan(mixed, uploader):
    upload = store_upload("mixed.json", mixed, uploader)
    first, second = preview(upload)[1], preview(upload)[1]
    assert plan_digest(first) == plan_digest(second)
    second[1].changed = ["documentation"]
    assert plan_digest(first) != plan_digest(second)
