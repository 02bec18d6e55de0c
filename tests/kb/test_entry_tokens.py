"""Entry versions and the catalog token: which writes move which, read from the models."""

import pytest
from django.utils import timezone

from errorkb.kb.freshness import entry_columns, entry_token
from errorkb.kb.models import EntryTag, ErrorEntry, RelatedLink, Repository, Tag
from errorkb.upstream.models import Scan
from errorkb.verification.models import EntryState, Scenario, VerificationRun
from tests.builders import import_records, make_record
from tests.verification.builders import link_scenario

pytestmark = pytest.mark.django_db(transaction=True)


def test_it_keys_every_table_with_a_foreign_key_to_an_entry_by_that_entry():
    assert entry_columns(ErrorEntry) == ["id"]
    assert entry_columns(EntryTag) == ["entry_id"]
    assert entry_columns(RelatedLink) == ["source_id", "target_id"]
    assert entry_columns(VerificationRun) == ["entry_id"]
    assert entry_columns(EntryState) == ["entry_id"]
    assert entry_columns(Scenario.entries.through) == ["errorentry_id"]
    for catalog in (Repository, Tag, Scenario, Scan):
        assert entry_columns(catalog) == [], catalog


def test_a_bulk_insert_of_runs_moves_the_versions_of_their_entries_only():
    records = [make_record(f"Failure {n}.") for n in range(3)]
    import_records(*records)
    first, second, third = (ErrorEntry.objects.get(id=r["id"]) for r in records)
    scenario = link_scenario(first)
    scenario.entries.add(second, third)
    before = {entry.id: entry_token(entry.id) for entry in (first, second, third)}
    now = timezone.now()
    VerificationRun.objects.bulk_create(
        VerificationRun(
            task_id=f"bulk-{entry.id}-{n}", entry=entry, scenario=scenario,
            variant="failure", device="cpu", started_at=now,
        )
        for entry in (first, second)
        for n in range(500)
    )  # fmt: skip
    assert entry_token(first.id) != before[first.id]
    assert entry_token(second.id) != before[second.id]
    assert entry_token(third.id) == before[third.id]


def test_a_link_moves_both_of_its_ends():
    records = [make_record("Linking."), make_record("Linked."), make_record("Bystander.")]
    import_records(*records)
    source, target, bystander = (r["id"] for r in records)
    before = {pk: entry_token(pk) for pk in (source, target, bystander)}
    RelatedLink.objects.create(source_id=source, target_id=target, position=0)
    assert entry_token(source) != before[source]
    assert entry_token(target) != before[target]
    assert entry_token(bystander) == before[bystander]


def test_it_resolves_a_slug_address_to_the_same_token_as_the_id():
    record = make_record()
    import_records(record)
    by_slug = entry_token(slug=("acme", "rocket", record["slug"]))
    assert by_slug == entry_token(record["id"])
    assert entry_token(slug=("acme", "rocket", "no-such-slug")) != by_slug
