"""One identity per error: the seed documents' entries are the demo's, under the seeds' ids."""

import json
import re
from io import StringIO

import pytest
from django.core.management import call_command

from errorkb.kb.models import ErrorEntry
from tests.builders import DEMO_DATASET, SHARED, load_demo

SEEDS = SHARED / "seeds"
SEED_PAGE = SEEDS / "000_2a41b9e0b6f392f0.txt"  # an entry page, rendered to text
SEED_RECORD = SEEDS / "001_96ea0f7d8f2255fb.txt"  # an API response: {"record": ...}

# The seeds' entries, by id: the demo entries for the same two errors carry these ids.
SEED_IDS = {
    "27edcc848b620ecb": ("can-save-model-checkpoint", "Can save model checkpoint."),
    "d46a3ac9838c7fb3": ("can-save-optimizer-checkpoint", "Can save optimizer checkpoint."),
}

pytestmark = pytest.mark.django_db
needs_seeds = pytest.mark.skipif(
    not SEEDS.is_dir(), reason="../shared/seeds is not beside this checkout"
)


def import_file(path) -> str:
    out = StringIO()
    call_command("import_errors", str(path), stdout=out)
    return out.getvalue()


def test_the_demo_entries_of_the_seeds_errors_carry_the_seeds_ids(client):
    load_demo()
    for entry_id, (slug, message) in SEED_IDS.items():
        entry = ErrorEntry.objects.get(id=entry_id)
        assert (entry.slug, entry.error_message) == (slug, message)
        assert client.get(f"/errors/{entry_id}/").status_code == 200


def test_a_seed_shaped_record_with_the_seeds_id_updates_its_entry(tmp_path):
    """A record as the seed documents write it (no related, status or appliesTo)."""
    load_demo()
    out = StringIO()
    call_command("export_errors", "-", stdout=out)
    record = next(r for r in json.loads(out.getvalue())["records"] if r["id"] in SEED_IDS)
    for key in ("related", "status", "appliesTo"):
        record.pop(key, None)
    record["documentation"] = "Changed by a seed-shaped import."
    path = tmp_path / "seed.json"
    path.write_text(json.dumps({"record": record, "datasetVersion": "2026-09-12T17:17:11.597Z"}))
    before = ErrorEntry.objects.count()

    assert "1 records: 0 created, 1 updated, 0 unchanged" in import_file(path)

    assert ErrorEntry.objects.count() == before
    assert ErrorEntry.objects.get(id=record["id"]).documentation == record["documentation"]


@needs_seeds
def test_importing_the_seed_record_onto_the_demo_updates_its_entry(client):
    seed = json.loads(SEED_RECORD.read_text(encoding="utf-8"))["record"]
    load_demo()
    before = ErrorEntry.objects.count()

    assert "1 records: 0 created, 1 updated, 0 unchanged" in import_file(SEED_RECORD)

    assert ErrorEntry.objects.count() == before
    body = client.get(f"/api/errors/{seed['id']}").json()["record"]
    assert (body["slug"], body["errorMessage"]) == (seed["slug"], seed["errorMessage"])
    assert body["analyzedSha"] == seed["analyzedSha"]


@needs_seeds
def test_the_demo_can_be_imported_again_over_the_seed(client):
    import_file(SEED_RECORD)
    load_demo()
    demo = json.loads(DEMO_DATASET.read_text(encoding="utf-8"))
    assert ErrorEntry.objects.count() == len(demo["records"])  # the seed's entry among them


@needs_seeds
def test_the_seed_pages_links_reach_the_demo_entry_of_the_same_error(client):
    page = SEED_PAGE.read_text(encoding="utf-8")
    entry_id = re.search(r"/api/errors/([0-9a-f]{16})", page)[1]
    message = page.splitlines()[2].strip()  # the page's heading: the error message
    load_demo()

    assert client.get(f"/api/errors/{entry_id}").json()["record"]["errorMessage"] == message
    assert client.get(f"/errors/{entry_id}/").status_code == 200
    slug = message.lower().rstrip(".").replace(" ", "-")
    assert client.get(f"/repos/tracel-ai/burn/errors/{slug}/").status_code == 200
