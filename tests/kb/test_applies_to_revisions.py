"""appliesTo is content: edited in the admin, shown in a compare, restored by a revert."""

import json

import pytest

from errorkb.kb import editing, revisions
from errorkb.kb.models import ErrorEntry
from tests.admin.admin_client import change_post, client_for, form_errors
from tests.builders import applies_to_row, import_records, make_record, raised_row
from tests.kb.edits import edit
from tests.kb.people import curator

pytestmark = pytest.mark.django_db


@pytest.fixture
def draft():
    record = make_record("Can save model checkpoint.", status="draft", appliesTo=[raised_row()])
    return import_records(record)[0]


def post_rows(entry, text: str):
    return client_for(curator()).post(
        f"/admin/kb/errorentry/{entry.pk}/change/", change_post(entry, applies_to=text)
    )


def test_a_change_of_the_rows_moves_content_changed_at_and_shows_in_the_diff(draft):
    stamp = draft.content_changed_at
    before = editing.snapshot(draft)
    rows = [raised_row(), applies_to_row()]
    entry = edit(draft, {"applies_to": rows}, curator())
    assert entry.content_changed_at > stamp
    after = editing.snapshot(entry)
    changes = revisions.diff(editing.content_of(before), editing.content_of(after))
    assert [c.key for c in changes] == ["appliesTo"]
    assert "Error when saving the state: {err}" in changes[0].html
    assert 'class="diff-added"' in changes[0].html


def test_removing_the_key_is_a_change_too(draft):
    entry = edit(draft, {"applies_to": None}, curator())
    assert entry.content_changed_at > draft.content_changed_at
    assert "appliesTo" not in editing.snapshot(entry)


def test_a_revert_restores_the_rows(draft):
    user = curator()
    original = revisions.history(draft)[0]
    edit(draft, {"applies_to": []}, user)
    entry = revisions.revert(ErrorEntry.objects.get(pk=draft.pk), original, user)
    assert entry.applies_to == [raised_row()]
    assert revisions.version_snapshot(original)["appliesTo"] == [raised_row()]


def test_the_compare_page_shows_the_rows_that_changed(draft):
    user = curator()
    edit(draft, {"applies_to": [applies_to_row()]}, user)
    first, second = reversed(list(revisions.history(draft)))
    diff = (
        client_for(user)
        .get(f"/admin/kb/errorentry/{draft.pk}/history/compare/", {"a": first.pk, "b": second.pk})
        .content.decode()
    )
    assert 'data-field="appliesTo"' in diff
    assert "hand-built LearningCheckpointer" in diff and "Error when saving the state" in diff


def test_a_curator_edits_the_rows_as_json_in_the_admin(draft):
    rows = [raised_row(), applies_to_row(note="Seen by supervised training.")]
    response = post_rows(draft, json.dumps(rows, indent=2))
    assert response.status_code == 302, form_errors(response)
    entry = ErrorEntry.objects.get(pk=draft.pk)
    assert entry.applies_to == rows
    assert "applies_to" in revisions.history(entry)[0].revision.comment


def test_the_admin_form_shows_the_rows_and_an_untouched_save_changes_nothing(draft):
    client = client_for(curator())
    page = client.get(f"/admin/kb/errorentry/{draft.pk}/change/").content.decode()
    assert "crates/burn-train/src/learner/base.rs" in page
    response = client.post(f"/admin/kb/errorentry/{draft.pk}/change/", change_post(draft))
    assert response.status_code == 302
    entry = ErrorEntry.objects.get(pk=draft.pk)
    assert entry.content_changed_at == draft.content_changed_at
    assert entry.applies_to == [raised_row()]


def test_an_empty_box_removes_the_key(draft):
    assert post_rows(draft, "").status_code == 302
    assert ErrorEntry.objects.get(pk=draft.pk).applies_to is None


def test_invalid_json_is_a_form_error_not_a_crash(draft):
    response = post_rows(draft, '[{"versions": ')
    assert response.status_code == 200
    errors, _ = form_errors(response)
    assert "applies_to" in errors
    assert ErrorEntry.objects.get(pk=draft.pk).applies_to == [raised_row()]


def test_an_invalid_row_is_a_form_error_naming_the_row(draft):
    rows = [raised_row(), applies_to_row(outcome="maybe")]
    response = post_rows(draft, json.dumps(rows))
    assert response.status_code == 200
    errors, _ = form_errors(response)
    assert "appliesTo[1].outcome" in errors["applies_to"][0]
    assert ErrorEntry.objects.get(pk=draft.pk).applies_to == [raised_row()]
