"""Entry versions and the catalog version: which write functions move which."""

import io

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.utils import timezone

from errorkb.kb import editing
from errorkb.kb.changes import (
    catalog_changed,
    content_token,
    entries_changed,
    entry_fields,
    entry_token,
)
from errorkb.kb.models import EntryTag, ErrorEntry, RelatedLink, Repository, Tag
from errorkb.upstream.models import Scan
from errorkb.verification.models import EntryState, Scenario, VerificationRun
from tests.builders import import_records, make_record
from tests.verification.builders import link_scenario

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_single_row_write_moves_the_entry_its_row_names_or_the_catalog():
    assert entry_fields(ErrorEntry) == ["id"]
    assert entry_fields(EntryTag) == ["entry_id"]
    assert entry_fields(RelatedLink) == ["source_id", "target_id"]
    assert entry_fields(VerificationRun) == ["entry_id"]
    assert entry_fields(EntryState) == ["entry_id"]
    for catalog in (Repository, Tag, Scenario, Scan):
        assert entry_fields(catalog) == [], catalog


def test_a_bulk_insert_of_runs_moves_the_versions_of_their_entries_only():
    records = [make_record(f"Failure {n}.") for n in range(3)]
    import_records(*records)
    first, second, third = (ErrorEntry.objects.get(id=r["id"]) for r in records)
    scenario = link_scenario(first)
    scenario.entries.add(second, third)
    before = {entry.id: entry_token(entry.id) for entry in (first, second, third)}
    lists = content_token()
    now = timezone.now()
    runs = VerificationRun.objects.bulk_create(
        VerificationRun(
            task_id=f"bulk-{entry.id}-{n}", entry=entry, scenario=scenario,
            variant="failure", device="cpu", started_at=now,
        )
        for entry in (first, second)
        for n in range(500)
    )  # fmt: skip
    # A bulk insert sends no signal: its caller says which entries it wrote.
    entries_changed(run.entry_id for run in runs)
    assert entry_token(first.id) != before[first.id]
    assert entry_token(second.id) != before[second.id]
    assert entry_token(third.id) == before[third.id]
    assert content_token() != lists


def test_a_link_moves_both_of_its_ends():
    records = [make_record("Linking."), make_record("Linked."), make_record("Bystander.")]
    import_records(*records)
    source, target, bystander = (r["id"] for r in records)
    before = {pk: entry_token(pk) for pk in (source, target, bystander)}
    user = User.objects.create_superuser("editor", password="editor-password")
    entry = ErrorEntry.objects.get(id=source)
    with editing.change(entry, user):
        editing.set_related(entry, [target])
    assert entry_token(source) != before[source]
    assert entry_token(target) != before[target]
    assert entry_token(bystander) == before[bystander]
    with editing.change(entry, user):
        editing.set_related(entry, [])
    unlinked = entry_token(target)
    assert unlinked not in (before[target], entry_token(bystander))


def test_a_catalog_write_moves_every_entry_and_the_lists():
    records = [make_record("One."), make_record("Two.")]
    import_records(*records)
    before = {r["id"]: entry_token(r["id"]) for r in records}
    lists = content_token()
    catalog_changed()
    assert all(entry_token(pk) != token for pk, token in before.items())
    assert content_token() != lists


def test_a_tag_renamed_moves_every_entry_page():
    record = make_record(tags=["checkpoint"])
    import_records(record)
    before = entry_token(record["id"])
    tag = Tag.objects.get(name="checkpoint")
    tag.name = "checkpointing"
    tag.save()
    assert entry_token(record["id"]) != before


def test_bump_page_versions_moves_every_version():
    record = make_record()
    import_records(record)
    before, lists = entry_token(record["id"]), content_token()
    call_command("bump_page_versions", stdout=io.StringIO())
    assert entry_token(record["id"]) != before
    assert content_token() != lists


def test_it_resolves_a_slug_address_to_the_same_token_as_the_id():
    record = make_record()
    import_records(record)
    by_slug = entry_token(slug=("acme", "rocket", record["slug"]))
    assert by_slug == entry_token(record["id"])
    assert entry_token(slug=("acme", "rocket", "no-such-slug")) != by_slug
