"""Imports of thousands of records: set-based checks, batched writes, one revision."""

import json
from io import StringIO

import pytest
from django.core import serializers
from django.core.management import CommandError, call_command
from django.db import transaction
from reversion.models import Revision, Version

from errorkb.kb.dataset import bulk_writes
from errorkb.kb.dataset.files import parse_dataset
from errorkb.kb.dataset.import_export import import_dataset, plan_import
from errorkb.kb.editing import EditConflict
from errorkb.kb.models import EntryTag, ErrorEntry, RelatedLink
from errorkb.kb.record.schema import stored_record
from errorkb.kb.record.validation import InvalidRecord
from errorkb.kb.revisions import version_snapshot
from tests.builders import import_records, make_record, write_json

pytestmark = pytest.mark.django_db

MANY = 3000  # nine chunks of records on SQLite, whose variable limit cuts every statement


def shard(n: int, **overrides) -> dict:
    """Record n of a big file: seven repositories, two tags, a link to record n - 5."""
    defaults = {
        "repo": f"acme/r{n % 7}",
        "tags": ["rust", f"t{n % 13}"],
        "related": [] if n < 5 else [shard_id(n - 5)],
    }
    return make_record(f"Shard {n} failed.", **{**defaults, **overrides})


def shard_id(n: int) -> str:
    return make_record(f"Shard {n} failed.", repo=f"acme/r{n % 7}")["id"]


def dataset(records: list[dict], version: str = "2026-10-01T00:00:00.000Z"):
    return parse_dataset({"datasetVersion": version, "records": records})


@pytest.mark.slow
def test_an_import_of_thousands_of_records_makes_a_few_queries_per_batch_not_per_record(
    django_assert_max_num_queries,
):
    # The per-record code made about ten queries a record. Now what grows with the file is
    # the number of statements SQLite's 999 variables force on Django's bulk writes: at
    # most one query per ten records, writes included, and a re-import that changes
    # nothing only reads, a few queries per chunk of records.
    data = dataset([shard(n) for n in range(MANY)])
    with django_assert_max_num_queries(MANY // 10):
        result = import_dataset(data)
    assert (result.created, result.updated, result.unchanged) == (MANY, 0, 0)
    chunks = -(-MANY // bulk_writes.chunk_size())
    with django_assert_max_num_queries(5 + 4 * chunks):
        assert import_dataset(data).unchanged == MANY
    with django_assert_max_num_queries(5 + 4 * chunks):
        assert len(plan_import(data)) == MANY


def test_an_update_of_thousands_of_records_is_batched_and_leaves_unchanged_ones_alone(
    django_assert_max_num_queries,
):
    many = 1200  # four chunks on SQLite
    import_dataset(dataset([shard(n) for n in range(many)]))
    before = {e.id: (e.updated_at, e.edit_version) for e in ErrorEntry.objects.all()}
    changed = {shard_id(n) for n in range(0, many, 3)}
    records = [
        shard(n, documentation="Now explained.", tags=["rust", "new"]) if n % 3 == 0 else shard(n)
        for n in range(many)
    ]
    with django_assert_max_num_queries(many // 10):
        result = import_dataset(dataset(records, version="v2"))
    assert (result.created, result.updated, result.unchanged) == (0, many // 3, many - many // 3)
    for entry in ErrorEntry.objects.with_tags():
        if entry.id in changed:
            assert entry.edit_version == before[entry.id][1] + 1
            assert (entry.documentation, entry.tag_names) == ("Now explained.", ["rust", "new"])
            assert entry.dataset_version == "v2"
        else:
            assert (entry.updated_at, entry.edit_version) == before[entry.id]
            assert entry.dataset_version == "2026-10-01T00:00:00.000Z"
    assert EntryTag.objects.count() == 2 * many


def test_an_import_is_one_revision_holding_every_entry_its_tags_and_links():
    records = [shard(n) for n in range(700)]
    import_dataset(dataset(records))
    (revision,) = Revision.objects.all()
    assert (
        revision.comment
        == "Imported dataset 2026-10-01T00:00:00.000Z: 700 created, 0 updated, 0 unchanged"
    )
    kinds = {}
    for version in revision.version_set.all():
        kinds[version.content_type.model] = kinds.get(version.content_type.model, 0) + 1
    assert kinds == {"errorentry": 700, "entrytag": 1400, "relatedlink": 695}
    # Each entry's revision reads back as the entry is, and is the very row reversion
    # itself would have written for it.
    for record in records[::170]:
        entry = ErrorEntry.objects.for_record().get(id=record["id"])
        version = Version.objects.get_for_object(entry).get()
        assert version_snapshot(version) == stored_record(entry)
        assert version.serialized_data == serializers.serialize("json", (entry,))
        for row in (*entry.entry_tags.all(), *entry.outgoing_links.all()):
            assert Version.objects.get_for_object(row).get().serialized_data == (
                serializers.serialize("json", (row,))
            )


def test_an_update_is_one_more_revision_holding_only_the_changed_entries():
    import_dataset(dataset([shard(n) for n in range(700)]))
    records = [shard(n, solutions=["Retry."]) if n % 2 else shard(n) for n in range(700)]
    import_dataset(dataset(records, version="v2"))
    assert Revision.objects.count() == 2
    latest = Revision.objects.latest("pk")
    entries = latest.version_set.filter(content_type__model="errorentry")
    assert {v.object_id for v in entries} == {shard_id(n) for n in range(1, 700, 2)}
    # An import that changes nothing makes no revision at all.
    import_dataset(dataset(records, version="v2"))
    assert Revision.objects.count() == 2


def test_content_changed_at_is_the_datasets_for_new_and_changed_entries():
    import_dataset(dataset([shard(n, contentChangedAt=None) for n in range(400)]))
    assert not ErrorEntry.objects.exclude(content_changed_at=None).exists()
    stamp = "2026-11-02T03:04:05.678Z"
    import_dataset(dataset([shard(n, contentChangedAt=stamp) for n in range(400)]))
    (when,) = set(ErrorEntry.objects.values_list("content_changed_at", flat=True))
    assert when.isoformat() == "2026-11-02T03:04:05.678000+00:00"


def test_a_missing_related_entry_deep_in_a_big_file_is_named_with_its_field():
    records = [shard(n) for n in range(MANY)]
    records[2500]["related"] = ["0123456789abcdef"]
    records[2900]["related"] = ["fedcba9876543210"]
    with pytest.raises(InvalidRecord) as caught:
        import_dataset(dataset(records))
    assert str(caught.value) == (
        f"record {records[2500]['id']}, field 'related': unknown entry '0123456789abcdef'"
    )
    assert not ErrorEntry.objects.exists()


def test_a_slug_taken_outside_the_file_is_named_with_the_entry_holding_it():
    (holder,) = import_records(make_record("Holder.", repo="acme/r3", slug="taken"))
    records = [shard(n) for n in range(MANY)]
    records[2000]["slug"] = "taken"  # another repository's slug: free
    records[2001]["slug"] = "taken"  # 2001 % 7 == 6
    records[2005]["slug"] = "taken"  # acme/r3: taken by the holder
    records[2005 + 7]["related"] = ["0123456789abcdef"]  # later in the file: not named
    for refuse in (import_dataset, plan_import):
        with pytest.raises(InvalidRecord) as caught:
            refuse(dataset(records))
        assert str(caught.value) == (
            f"record {records[2005]['id']}, field 'slug': already used by entry {holder.id}"
        )
    assert ErrorEntry.objects.count() == 1


def test_the_first_bad_record_in_file_order_is_named_whichever_check_finds_it():
    import_records(make_record("Holder.", repo="acme/r1", slug="taken"))
    records = [shard(n) for n in range(800)]
    records[700]["related"] = ["0123456789abcdef"]
    records[400]["slug"] = "taken"  # 400 % 7 == 1
    with pytest.raises(InvalidRecord, match=f"record {records[400]['id']}, field 'slug'"):
        import_dataset(dataset(records))


def test_a_file_may_take_over_slugs_its_own_entries_give_up():
    import_dataset(dataset([shard(0, slug="old-name")]))
    # Both in acme/r0; the new entry comes first and takes the name the other gives up.
    records = [shard(7, slug="old-name", related=[]), shard(0, slug="new-name")]
    result = import_dataset(dataset(records))
    assert (result.created, result.updated) == (1, 1)


def test_a_version_moved_since_it_was_read_refuses_the_whole_claim():
    entries = import_records(make_record("One."), make_record("Two."), make_record("Three."))
    bases = {entry.id: entry.edit_version for entry in entries}
    ErrorEntry.objects.filter(id=entries[1].id).update(edit_version=7)  # a curator saved
    with pytest.raises(EditConflict) as caught, transaction.atomic():
        bulk_writes.claim_many(bases)
    assert (caught.value.entry_id, caught.value.base_version) == (entries[1].id, 0)
    versions = dict(ErrorEntry.objects.values_list("id", "edit_version"))
    assert versions == {entries[0].id: 0, entries[1].id: 7, entries[2].id: 0}
    bulk_writes.claim_many({entries[0].id: 0, entries[1].id: 7})
    versions = dict(ErrorEntry.objects.values_list("id", "edit_version"))
    assert versions == {entries[0].id: 1, entries[1].id: 8, entries[2].id: 0}


def test_links_to_records_later_in_the_file_land_across_batches():
    count = 2 * bulk_writes.chunk_size() + 10
    records = [shard(n, related=[shard_id(count - 1 - n)]) for n in range(count)]
    records[count // 2]["related"] = []  # count is odd: the middle one would link to itself
    import_dataset(dataset(records))
    assert RelatedLink.objects.count() == count - 1
    first = ErrorEntry.objects.for_record().get(id=shard_id(0))
    assert first.related_ids == [shard_id(count - 1)]


def test_the_command_reads_a_file_up_to_its_setting_and_the_upload_keeps_its_limit(
    tmp_path, settings
):
    path = write_json(tmp_path / "big.json", [shard(n) for n in range(1000)])
    assert path.stat().st_size > 2**20
    settings.DATASET_FILE_MAX_MB = 1
    with pytest.raises(CommandError, match="larger than 1 MB"):
        call_command("import_errors", str(path))
    settings.DATASET_FILE_MAX_MB = 2
    call_command("import_errors", str(path), stdout=StringIO())
    assert ErrorEntry.objects.count() == 1000
    assert json.loads(path.read_text())[0]["id"] == shard_id(0)
