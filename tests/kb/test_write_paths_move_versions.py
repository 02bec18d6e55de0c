"""Every write path that changes what a public page shows moves the versions it keys on.

Single-row saves and deletes are followed by each app's receivers; the bulk writes
below say what they changed themselves (errorkb.kb.changes).
"""

import pytest
from django.contrib.auth.models import User
from django.utils import timezone

from errorkb.kb.changes import content_token, entry_token
from errorkb.kb.models import ErrorEntry, Report, Repository
from errorkb.upstream.scan.kept_trees import record_scan, store_tree
from errorkb.upstream.scan.site_index import index_release_sites
from errorkb.upstream.sites.commit import Tree
from errorkb.verification import runs
from errorkb.verification.models import Sweep
from errorkb.verification.runs import claim_run
from errorkb.verification.state.stored import store_states
from errorkb.verification.sync import sync_scenarios
from tests.admin.admin_client import client_for
from tests.builders import import_records, make_record
from tests.verification.builders import link_scenario, registry_item

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def pair():
    mine, other = make_record("Mine failed."), make_record("Other failed.")
    return import_records(mine, other)


def moves(write, *, mine: ErrorEntry, other: ErrorEntry, catalog: bool = False) -> None:
    """Assert `write` moves mine's version and the lists', and other's only for `catalog`."""
    before_mine, before_other, lists = entry_token(mine.pk), entry_token(other.pk), content_token()
    write()
    assert entry_token(mine.pk) != before_mine
    assert (entry_token(other.pk) != before_other) is catalog
    assert content_token() != lists


def test_a_dataset_import_that_changes_an_entry(pair):
    mine, other = pair
    changed = make_record("Mine failed.", documentation="Imported again.")
    moves(lambda: import_records(changed), mine=mine, other=other)


def test_stored_states_written_in_bulk(pair):
    mine, other = pair
    link_scenario(mine)
    moves(lambda: store_states([mine.pk]), mine=mine, other=other)


def test_a_report_submitted_and_resolved_in_the_admin(pair):
    mine, other = pair
    moves(
        lambda: Report.objects.create(entry=mine, message="Wrong fix.", client="192.0.2.1"),
        mine=mine,
        other=other,
    )
    admin = client_for(User.objects.create_superuser("root", password="root-password"))
    report = Report.objects.get()

    def resolve():
        data = {"action": "resolve_selected", "_selected_action": [report.pk]}
        assert admin.post("/admin/kb/report/", data).status_code == 302

    moves(resolve, mine=mine, other=other)
    assert Report.objects.get().resolved_at is not None


def test_a_lost_run_sent_again(pair):
    mine, other = pair
    run, _ = claim_run("t-lost", mine, link_scenario(mine), "failure", "cpu")
    moves(lambda: runs.release(run), mine=mine, other=other)


def test_a_sync_that_links_an_entry_and_one_that_retires_its_scenario():
    mine, other = import_records(
        make_record("Mine failed.", repo="tracel-ai/burn"), make_record("Other failed.")
    )
    registry = [registry_item("mine-fails", "Mine failed.")]
    moves(lambda: sync_scenarios(registry), mine=mine, other=other, catalog=True)
    moves(lambda: sync_scenarios([]), mine=mine, other=other, catalog=True)


def test_a_sweep_moves_the_lists_only(pair):
    mine, _ = pair
    before, lists = entry_token(mine.pk), content_token()
    Sweep.objects.create(started_at=timezone.now(), source="sweep", task_prefix="test-sweep")
    assert entry_token(mine.pk) == before
    assert content_token() != lists


def test_upstream_scans_move_every_entry_page(pair):
    mine, other = pair
    repository = Repository.objects.get()
    tree = Tree("0" * 40, {})
    moves(lambda: store_tree(repository, tree, None), mine=mine, other=other, catalog=True)
    moves(
        lambda: record_scan(repository, tree, ref="v0.1.0", release="0.1.0"),
        mine=mine,
        other=other,
        catalog=True,
    )
    moves(lambda: index_release_sites(repository, []), mine=mine, other=other, catalog=True)
