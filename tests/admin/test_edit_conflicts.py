"""Two curators on one entry: the second save is refused and shown what changed."""

import threading

import pytest
from django.db import connection
from reversion.models import Revision

from errorkb.kb import workflow
from errorkb.kb.models import ErrorEntry
from errorkb.kb.revisions import history, version_snapshot
from tests.admin.admin_client import change_post, client_for
from tests.builders import import_records, make_record
from tests.kb.edits import edit
from tests.kb.people import curator

EDITORS = 10


@pytest.fixture
def draft():
    return import_records(make_record("Can save model checkpoint.", status="draft"))[0]


@pytest.mark.django_db
def test_the_second_save_from_the_same_copy_gets_a_conflict_page(draft):
    alice, bob = client_for(curator("alice")), client_for(curator("bob"))
    alice_copy = change_post(draft, documentation="Alice's words.", change_note="Alice edits.")
    bob_copy = change_post(draft, documentation="Bob's words.", solutions=["Bob's fix."])

    assert alice.post(f"/admin/kb/errorentry/{draft.pk}/change/", alice_copy).status_code == 302
    revisions = Revision.objects.count()
    response = bob.post(f"/admin/kb/errorentry/{draft.pk}/change/", bob_copy)

    assert response.status_code == 409
    page = response.content.decode()
    assert "your changes were not saved" in page
    assert "Alice edits." in page and "alice" in page  # who saved meanwhile
    assert "Alice&#x27;s words." in page  # what changed meanwhile
    assert "Bob&#x27;s words." in page and "Bob&#x27;s fix." in page  # nothing of Bob's lost
    assert Revision.objects.count() == revisions
    assert ErrorEntry.objects.get(pk=draft.pk).documentation == "Alice's words."


@pytest.mark.django_db
def test_a_save_after_a_workflow_step_from_an_older_copy_conflicts(draft):
    client = client_for(curator())
    stale = change_post(draft, documentation="Late words.")
    workflow.transition(draft, "submit", curator("other"))
    response = client.post(f"/admin/kb/errorentry/{draft.pk}/change/", stale)
    # The entry is in review now: a curator may no longer edit it at all.
    assert response.status_code in (403, 409)
    assert ErrorEntry.objects.get(pk=draft.pk).documentation == "The engine gave up."


@pytest.mark.django_db
def test_an_import_landing_during_an_edit_makes_the_edit_conflict(draft):
    client = client_for(curator())
    stale = change_post(draft, documentation="Curator's words.")
    import_records(
        make_record("Can save model checkpoint.", status="draft", documentation="Imported.")
    )
    response = client.post(f"/admin/kb/errorentry/{draft.pk}/change/", stale)
    assert response.status_code == 409
    assert ErrorEntry.objects.get(pk=draft.pk).documentation == "Imported."


@pytest.mark.django_db
def test_a_revert_from_a_stale_history_page_conflicts(draft):
    user = curator()
    first = list(history(draft))[0]
    edit(draft, {"documentation": "Second."}, user)
    stale_version = draft.edit_version - 1
    response = client_for(user).post(
        f"/admin/kb/errorentry/{draft.pk}/history/{first.pk}/revert/",
        {"base_version": stale_version},
    )
    assert response.status_code == 409
    assert ErrorEntry.objects.get(pk=draft.pk).documentation == "Second."


@pytest.mark.django_db(transaction=True)
def test_ten_editors_saving_stale_copies_at_once_lose_nothing():
    entry = import_records(make_record("Can save model checkpoint.", status="draft"))[0]
    users = [curator(f"curator{i}") for i in range(EDITORS)]
    copies = [change_post(entry, documentation=f"Words of editor {i}.") for i in range(EDITORS)]
    revisions = Revision.objects.count()
    start = threading.Barrier(EDITORS)
    statuses: dict[int, int] = {}

    def save(i):
        client = client_for(users[i])
        start.wait()
        try:
            response = client.post(f"/admin/kb/errorentry/{entry.pk}/change/", copies[i])
            statuses[i] = response.status_code
        finally:
            connection.close()

    threads = [threading.Thread(target=save, args=(i,)) for i in range(EDITORS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    accepted = [i for i, status in statuses.items() if status == 302]
    refused = [i for i, status in statuses.items() if status == 409]
    assert len(accepted) == 1, statuses
    assert len(refused) == EDITORS - 1, statuses
    assert Revision.objects.count() == revisions + 1
    # The only accepted save is what the entry holds and what its newest revision holds.
    winner = accepted[0]
    assert ErrorEntry.objects.get(pk=entry.pk).documentation == f"Words of editor {winner}."
    newest = list(history(entry))[0]
    assert newest.revision.user.username == f"curator{winner}"
    assert version_snapshot(newest)["documentation"] == f"Words of editor {winner}."
