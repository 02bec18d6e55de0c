"""Every path that changes an entry records exactly one revision, with who and why."""

from io import StringIO

import pytest
import reversion
from django.core.management import call_command
from django.db.models.signals import post_delete, post_save
from reversion.models import Revision

from errorkb.kb import revisions, workflow
from errorkb.kb.models import EntryTag, ErrorEntry, RelatedLink
from tests.admin.admin_client import change_post, client_for, form_errors, inline_post
from tests.builders import import_records, make_record, write_json
from tests.kb.edits import edit
from tests.kb.people import curator, editor

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def no_write_outside_a_revision():
    """Fail any test here whose path writes part of an entry outside a revision block."""
    models = (ErrorEntry, EntryTag, RelatedLink)

    def check(sender, raw=False, **kwargs):
        assert raw or reversion.is_active(), f"{sender.__name__} written outside a revision"

    for model in models:
        post_save.connect(check, sender=model, dispatch_uid=f"guard-save-{model.__name__}")
        post_delete.connect(check, sender=model, dispatch_uid=f"guard-del-{model.__name__}")
    yield
    for model in models:
        post_save.disconnect(sender=model, dispatch_uid=f"guard-save-{model.__name__}")
        post_delete.disconnect(sender=model, dispatch_uid=f"guard-del-{model.__name__}")


def versions_of(entry):
    return list(revisions.history(entry))


@pytest.fixture
def draft():
    return import_records(make_record("Can save model checkpoint.", status="draft"))[0]


@pytest.fixture
def published():
    return import_records(make_record("Can load model checkpoint."))[0]


def test_an_import_records_one_revision_for_all_its_entries():
    before = Revision.objects.count()
    first, second = import_records(make_record("One."), make_record("Two."))
    assert Revision.objects.count() == before + 1
    revision = Revision.objects.latest("pk")
    assert "Imported dataset" in revision.comment
    assert len(versions_of(first)) == len(versions_of(second)) == 1


def test_an_import_that_changes_nothing_records_nothing(published):
    before = Revision.objects.count()
    import_records(make_record("Can load model checkpoint."))
    assert Revision.objects.count() == before


def test_the_import_command_records_one_revision_naming_its_file(tmp_path, published):
    path = write_json(
        tmp_path / "fix.json", [make_record("Can load model checkpoint.", documentation="New.")]
    )
    before = Revision.objects.count()
    call_command("import_errors", str(path), stdout=StringIO())
    assert Revision.objects.count() == before + 1
    assert Revision.objects.latest("pk").comment.endswith(
        "from fix.json: 0 created, 1 updated, 0 unchanged"
    )
    assert len(versions_of(published)) == 2


def test_saving_the_admin_form_records_one_revision_by_the_curator(draft):
    user = curator()
    before = Revision.objects.count()
    response = client_for(user).post(
        f"/admin/kb/errorentry/{draft.pk}/change/",
        change_post(draft, documentation="Clearer words.", change_note="Reworded."),
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    assert Revision.objects.count() == before + 1
    newest = versions_of(draft)[0]
    assert newest.revision.user == user
    assert newest.revision.comment == "Reworded."
    assert revisions.version_snapshot(newest)["documentation"] == "Clearer words."


def test_adding_an_entry_in_the_admin_records_one_revision_and_makes_the_curator_its_owner(draft):
    user = curator()
    data = change_post(
        draft, error_message="A new message.", slug="a-new-message", message_pattern="new"
    )
    del data["base_version"]
    data["repository"] = draft.repository_id
    data.update(inline_post("entry_tags", [], "tag"))
    data.update(inline_post("outgoing_links", [], "target"))
    before = Revision.objects.count()
    response = client_for(user).post("/admin/kb/errorentry/add/", data)
    assert response.status_code == 302, form_errors(response)
    assert Revision.objects.count() == before + 1
    entry = ErrorEntry.objects.get(slug="a-new-message")
    assert entry.owner == user
    assert entry.content_changed_at is not None
    assert versions_of(entry)[0].revision.comment == "Created"


def test_adding_an_entry_that_exists_already_is_refused_not_overwritten(draft):
    data = change_post(draft, slug="another-slug", documentation="Overwritten?")
    del data["base_version"]
    data["repository"] = draft.repository_id
    data.update(inline_post("entry_tags", [], "tag"))
    data.update(inline_post("outgoing_links", [], "target"))
    before = Revision.objects.count()
    response = client_for(curator()).post("/admin/kb/errorentry/add/", data)
    assert response.status_code == 200
    assert "already explains this message" in response.content.decode()
    assert ErrorEntry.objects.get(pk=draft.pk).documentation == "The engine gave up."
    assert Revision.objects.count() == before


def test_editing_tags_and_lists_in_the_admin_lands_in_the_same_single_revision(draft):
    before = Revision.objects.count()
    tags = list(draft.entry_tags.all())
    data = change_post(draft, solutions=["Free disk space.", "Retry."])
    data["entry_tags-0-position"] = 1
    data["entry_tags-1-position"] = 0
    response = client_for(curator()).post(f"/admin/kb/errorentry/{draft.pk}/change/", data)
    assert response.status_code == 302
    assert Revision.objects.count() == before + 1
    snapshot = revisions.version_snapshot(versions_of(draft)[0])
    assert snapshot["solutions"] == ["Free disk space.", "Retry."]
    assert snapshot["tags"] == [tags[1].tag.name, tags[0].tag.name]


@pytest.mark.parametrize(
    "name, start", [("submit", "draft"), ("publish", "in_review"), ("retire", "published")]
)
def test_each_workflow_button_records_one_revision(name, start):
    entry = import_records(make_record("Can save model checkpoint.", status=start))[0]
    before = Revision.objects.count()
    response = client_for(editor()).post(
        f"/admin/kb/errorentry/{entry.pk}/transition/{name}/", {"confirmed": "1"}
    )
    assert response.status_code == 302
    assert Revision.objects.count() == before + 1
    assert versions_of(entry)[0].revision.comment == workflow.TRANSITIONS[name].label


@pytest.mark.parametrize(
    "action, start",
    [
        ("submit_selected", "draft"),
        ("publish_selected", "in_review"),
        ("retire_selected", "published"),
    ],
)
def test_each_bulk_action_records_one_revision_per_entry(action, start):
    entries = import_records(make_record("One.", status=start), make_record("Two.", status=start))
    before = Revision.objects.count()
    response = client_for(editor()).post(
        "/admin/kb/errorentry/",
        {"action": action, "_selected_action": [e.pk for e in entries], "confirmed": "1"},
    )
    assert response.status_code == 302
    assert Revision.objects.count() == before + 2
    assert all(len(versions_of(e)) == 2 for e in entries)


def test_a_revert_records_one_revision_and_restores_the_content(draft):
    user = curator()
    original = versions_of(draft)[0]
    edit(draft, {"documentation": "Changed."}, user)
    before = Revision.objects.count()
    response = client_for(user).post(
        f"/admin/kb/errorentry/{draft.pk}/history/{original.pk}/revert/"
    )
    assert response.status_code == 302
    assert Revision.objects.count() == before + 1
    assert ErrorEntry.objects.get(pk=draft.pk).documentation == "The engine gave up."
    assert versions_of(draft)[0].revision.comment.startswith("Reverted to the revision of")


def test_non_changes_record_nothing(draft):
    before = Revision.objects.count()
    client = client_for(curator())
    client.post(f"/admin/kb/errorentry/{draft.pk}/change/", change_post(draft, severity="bogus"))
    client.get(f"/admin/kb/errorentry/{draft.pk}/change/")
    client.post(
        "/admin/kb/errorentry/", {"action": "export_selected", "_selected_action": [draft.pk]}
    )
    assert Revision.objects.count() == before


def test_content_changed_at_moves_on_an_edit_but_not_on_a_status_change(draft):
    stamp = draft.content_changed_at
    user = editor()
    entry = workflow.transition(draft, "submit", user)
    assert ErrorEntry.objects.get(pk=draft.pk).content_changed_at == stamp
    entry = workflow.transition(entry, "publish", user, confirmed=True)
    assert ErrorEntry.objects.get(pk=draft.pk).content_changed_at == stamp
    edit(entry, {"documentation": "New words."}, user)
    assert ErrorEntry.objects.get(pk=draft.pk).content_changed_at > stamp


def test_saving_the_form_unchanged_keeps_content_changed_at(draft):
    stamp = draft.content_changed_at
    response = client_for(curator()).post(
        f"/admin/kb/errorentry/{draft.pk}/change/", change_post(draft)
    )
    assert response.status_code == 302
    assert ErrorEntry.objects.get(pk=draft.pk).content_changed_at == stamp


def test_the_history_page_lists_revisions_and_compares_any_two(draft):
    user = curator()
    edit(draft, {"documentation": "Second words."}, user, comment="Second.")
    first, second = reversed(versions_of(draft))
    client = client_for(user)
    page = client.get(f"/admin/kb/errorentry/{draft.pk}/history/").content.decode()
    assert "Second." in page and "Imported dataset" in page
    diff = client.get(
        f"/admin/kb/errorentry/{draft.pk}/history/compare/", {"a": first.pk, "b": second.pk}
    ).content.decode()
    assert 'data-field="documentation"' in diff
    assert "Second words." in diff and "The engine gave up." in diff
    assert 'data-field="severity"' not in diff
