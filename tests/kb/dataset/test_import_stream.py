"""Dataset files read as streams: memory that does not grow with the file, and refusals
that still leave nothing written, however late in the file they come."""

import json
import tracemalloc

import pytest
from django.core.management import CommandError
from reversion.models import Revision

from errorkb.kb.dataset import bulk_writes, files
from errorkb.kb.dataset.files import DatasetError, read_dataset_file
from errorkb.kb.dataset.import_export import import_dataset
from errorkb.kb.models import ErrorEntry
from tests.builders import import_records, make_record
from tests.kb.dataset.test_import_errors import run_import
from tests.kb.dataset.test_import_scale import shard

pytestmark = pytest.mark.django_db

MANY = 3000
PROSE = "The shard could not be read back after the worker restarted. " * 30  # as real records


def big_file(path):
    return write_records(path, [shard(n, documentation=PROSE) for n in range(MANY)])


def write_records(path, records: list[dict]):
    path.write_text(json.dumps({"datasetVersion": "v1", "records": records}), encoding="utf-8")
    return path


@pytest.fixture
def existing():
    import_records(make_record("Existing entry."))
    return ErrorEntry.objects.count()


def peak_bytes(work) -> int:
    tracemalloc.start()
    try:
        work()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_reading_a_big_file_holds_a_small_part_of_it_in_memory(tmp_path):
    path = big_file(tmp_path / "big.json")
    size = path.stat().st_size
    dataset = None

    def read():
        nonlocal dataset
        dataset = read_dataset_file(path)

    # The file's text alone would take its size; its parsed records several times that.
    assert peak_bytes(read) < size / 2, size
    assert len(dataset.records) == MANY
    # Its records are read again as they are iterated, one at a time, none kept.
    assert peak_bytes(lambda: sum(1 for _ in dataset.records)) < size / 4
    assert [record.id for record in dataset.records][-1] == shard(MANY - 1)["id"]


def test_a_big_file_imports_in_memory_that_does_not_hold_the_file(tmp_path, monkeypatch):
    # The writes hold one chunk of entries at a time: chunks as short as SQLite's on both.
    monkeypatch.setattr(bulk_writes, "chunk_size", lambda: 300)
    path = big_file(tmp_path / "big.json")
    said = []
    peak = peak_bytes(lambda: said.append(run_import(path)))
    assert f"{MANY} records: {MANY} created" in said[0]
    # Read whole, the file's text alone took its size, and json.loads' objects twice more.
    assert peak < path.stat().st_size, (peak, path.stat().st_size)
    assert ErrorEntry.objects.count() == MANY
    assert Revision.objects.count() == 1


CHANGES = {
    "text": lambda records: records[2000].update(documentation="Changed in between."),
    "slug": lambda records: records[2000].update(slug="another-slug"),
    "one-fewer": lambda records: records.pop(),
    "one-more": lambda records: records.append(shard(MANY)),
}


@pytest.mark.parametrize("change", CHANGES.values(), ids=CHANGES.keys())
def test_a_file_that_changes_after_it_was_read_imports_the_records_that_were_checked(
    tmp_path, change
):
    records = [shard(n) for n in range(MANY)]
    path = write_records(tmp_path / "big.json", records)
    dataset = read_dataset_file(path)
    changed = json.loads(json.dumps(records))
    change(changed)
    write_records(path, changed)
    assert import_dataset(dataset).created == MANY
    entry = ErrorEntry.objects.get(pk=records[2000]["id"])
    assert (entry.slug, entry.documentation) == (records[2000]["slug"], "The engine gave up.")


@pytest.mark.parametrize("change", CHANGES.values(), ids=CHANGES.keys())
def test_a_file_that_changes_between_its_two_readings_is_refused(tmp_path, monkeypatch, change):
    # The scan bounds the file and the validation reads it again: the bytes must be the same.
    records = [shard(n) for n in range(MANY)]
    path = write_records(tmp_path / "big.json", records)
    scanned = files.scan

    def scan_then_change(*args, **kwargs):
        layout = scanned(*args, **kwargs)
        change(records)
        write_records(path, records)
        return layout

    monkeypatch.setattr(files, "scan", scan_then_change)
    with pytest.raises(DatasetError, match="the file changed while it was imported"):
        read_dataset_file(path)


def test_invalid_json_late_in_a_big_file_is_refused_before_anything_is_written(tmp_path, existing):
    path = write_records(tmp_path / "big.json", [shard(n) for n in range(MANY)])
    text = path.read_text()
    path.write_text(text[:-2] + ", ]}")  # a comma after the last record
    assert_refused_by_command(path, existing, "not valid JSON")


def test_nesting_past_the_limit_late_in_a_big_file_is_refused(tmp_path, existing):
    records = [shard(n) for n in range(MANY)]
    records[-1]["appliesTo"] = json.loads("[" * 70 + "]" * 70)
    path = write_records(tmp_path / "big.json", records)
    assert_refused_by_command(path, existing, "nested more than 64 levels deep")


def test_a_lone_surrogate_late_in_a_big_file_is_named_with_its_record_and_field(tmp_path, existing):
    # The fast parser would read the escape as "?": the file is read by the exact one.
    records = [shard(n) for n in range(MANY)]
    records[2500]["errorMessage"] = "Bad \ud800 text."
    path = write_records(tmp_path / "big.json", records)
    expected = f"record {records[2500]['id']} (#2500), field 'errorMessage': holds a lone surrogate"
    assert_refused_by_command(path, existing, expected)


def test_an_escaped_surrogate_pair_is_read_as_its_character(tmp_path):
    path = write_records(tmp_path / "emoji.json", [make_record(documentation="Fuel \U0001f680.")])
    assert "1 created" in run_import(path)
    assert ErrorEntry.objects.get().documentation == "Fuel \U0001f680."


def test_an_integer_past_64_bits_is_named_with_its_record_and_field(tmp_path, existing):
    records = [shard(n) for n in range(10)]
    records[7]["lineNumber"] = 2**64
    path = write_records(tmp_path / "big.json", records)
    assert_refused_by_command(path, existing, f"record {records[7]['id']} (#7), field 'lineNumber'")


def test_a_top_level_key_given_twice_is_refused(tmp_path, existing):
    path = tmp_path / "twice.json"
    path.write_text('{"records": [], "records": []}')
    assert_refused_by_command(path, existing, "'records' appears twice at the top level")


def assert_refused_by_command(path, existing: int, expected: str) -> None:
    before = Revision.objects.count()
    with pytest.raises(CommandError) as caught:
        run_import(path)
    assert expected in str(caught.value), caught.value
    assert ErrorEntry.objects.count() == existing
    assert Revision.objects.count() == before
