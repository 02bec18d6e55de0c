"""An entry whose message or pattern changes is judged again at once and verified again.

After a text change through any of kb's write paths, no entry may be shown verified on a
text no run observed (the API, the verified list, the stored state), and
`recompute_states` agrees with what is shown. A write outside them (raw SQL, a bare
QuerySet.update()) is set right by `recompute_states --fix`, as docs/verification.md says.
"""

import json
import re
from io import StringIO

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection, transaction

from errorkb.kb import revisions
from errorkb.kb.dataset.import_export import export_dataset
from errorkb.kb.dataset.uploads import plan_digest, preview
from errorkb.kb.models import DatasetUpload, ErrorEntry
from errorkb.kb.signals import texts_changed
from errorkb.verification.models import EntryState, State
from errorkb.verification.state.stored import stored_state
from tests.admin.admin_client import change_post, client_for
from tests.builders import import_records, make_record
from tests.kb.edits import edit
from tests.kb.people import editor
from tests.verification.builders import link_absence, link_scenario, prove, record_run

pytestmark = pytest.mark.django_db

SAVE = "Can save model checkpoint."
RENAMED = "Can save the model checkpoint."  # a text no run has printed
RENAMED_PATTERN = r"Can save the model checkpoint\."
INTERRUPTED = "Training interrupted: Record error: `Record I/O error: No space left on device`"


@pytest.fixture(autouse=True)
def cpu_only(settings):
    settings.VERIFY_GPU = "never"  # no broadcast to look for a GPU worker


@pytest.fixture
def verified():
    """A published entry its scenario proves: its runs printed `SAVE: Io(..)`."""
    (entry,) = import_records(make_record(SAVE, repo="tracel-ai/burn"))
    prove(entry, link_scenario(entry, "disk-full"))
    assert stored_state(entry) == State.VERIFIED
    return entry


@pytest.fixture
def unreachable():
    """A published entry whose scenario shows that burn never prints it."""
    (entry,) = import_records(
        make_record("Can delete model checkpoint.", repo="tracel-ai/burn", filePath="src/d.rs")
    )
    record_run(entry, link_absence(entry, "supervised-disk-full"), "reproduced", INTERRUPTED)
    assert stored_state(entry) == State.UNREACHABLE
    return entry


STATES = re.compile(r'class="state state-(\w+)"')


def shown(client, entry) -> dict:
    """What a reader is shown of the entry's verification: the API's state and the verified
    list, the entry page's badge and panel, the home page's badges; and the stored state."""
    body = client.get(f"/api/errors/{entry.pk}").json()["verification"]
    listed = client.get("/api/errors/", {"verificationState": "verified"}).json()["results"]
    page = client.get(entry.get_absolute_url(), HTTP_CACHE_CONTROL="no-cache").content.decode()
    home = client.get("/", HTTP_CACHE_CONTROL="no-cache").content.decode()
    return {
        "state": body["state"],
        "observed": body["observedMessage"],
        "listed verified": entry.pk in [record["id"] for record in listed],
        "page": set(STATES.findall(page)),
        "home verified": "verified" in STATES.findall(home),
        "stored": stored_state(entry).value,
    }


def recompute(*args) -> str:
    out = StringIO()
    call_command("recompute_states", *args, stdout=out)
    return out.getvalue()


def assert_judged_again(client, entry, sent) -> None:
    assert shown(client, entry) == {
        "state": "drifted",
        "observed": f"{SAVE}: Io(..)",  # what the runs printed; the new pattern misses it
        "listed verified": False,
        "page": {"drifted"},
        "home verified": False,
        "stored": "drifted",
    }
    assert recompute() == "every stored state matches its runs\n"
    # Verified again once the change committed: its failure and fix runs, planned.
    assert sent["reverified"] == [[entry.pk]]
    planned = [(t["entry_id"], t["scenario_name"], t["variant"]) for t in sent["tasks"]]
    assert sorted(planned) == [
        (entry.pk, "disk-full", "failure"),
        (entry.pk, "disk-full", "fixed"),
    ]


# --- each path ------------------------------------------------------------------------


def test_an_import_errors_of_an_exported_file_with_changed_texts_judges_them_again(
    client, verified, unreachable, sent, tmp_path, django_capture_on_commit_callbacks
):
    path = tmp_path / "export.json"
    call_command("export_errors", str(path), stdout=StringIO())
    data = json.loads(path.read_text())
    for record in data["records"]:
        if record["id"] == verified.pk:
            record["errorMessage"], record["messagePattern"] = RENAMED, RENAMED_PATTERN
        else:  # the pattern of the unreachable entry now matches what its set-up printed
            record["messagePattern"] = "Training interrupted"
    path.write_text(json.dumps(data))
    with django_capture_on_commit_callbacks(execute=True):
        call_command("import_errors", str(path), stdout=StringIO())
    assert shown(client, unreachable)["state"] == "drifted"  # printed after all
    assert shown(client, unreachable)["stored"] == "drifted"
    assert shown(client, verified) == {
        "state": "drifted",
        "observed": f"{SAVE}: Io(..)",
        "listed verified": False,
        "page": {"drifted"},
        "home verified": False,
        "stored": "drifted",
    }
    assert recompute() == "every stored state matches its runs\n"
    assert sent["reverified"] == [sorted([verified.pk, unreachable.pk])]
    assert {t["entry_id"] for t in sent["tasks"]} == {verified.pk, unreachable.pk}


def test_an_import_that_leaves_the_texts_alone_verifies_nothing_again(
    verified, sent, django_capture_on_commit_callbacks
):
    record = export_dataset(ErrorEntry.objects.filter(pk=verified.pk))["records"][0]
    with django_capture_on_commit_callbacks(execute=True):
        import_records({**record, "documentation": "Rewritten."})
    assert stored_state(verified) == State.VERIFIED
    assert sent["reverified"] == [] and sent["tasks"] == []


def test_the_admin_dataset_upload_of_changed_texts_judges_them_again(
    client, verified, sent, django_capture_on_commit_callbacks
):
    record = export_dataset(ErrorEntry.objects.filter(pk=verified.pk))["records"][0]
    changed = {**record, "messagePattern": RENAMED_PATTERN}
    admin = client_for(User.objects.create_superuser("root", password="root-password"))
    file = SimpleUploadedFile("changed.json", json.dumps([changed]).encode())
    assert admin.post("/admin/kb/errorentry/upload/", {"file": file}).status_code == 303
    upload = DatasetUpload.objects.get()
    digest = plan_digest(preview(upload)[1])
    with django_capture_on_commit_callbacks(execute=True):
        response = admin.post(f"/admin/kb/errorentry/upload/{upload.pk}/", {"digest": digest})
    assert response.status_code == 303
    assert_judged_again(client, verified, sent)


def test_the_admin_change_form_changing_the_pattern_judges_it_again(
    client, verified, sent, django_capture_on_commit_callbacks
):
    form = change_post(verified, error_message=RENAMED, message_pattern=RENAMED_PATTERN)
    with django_capture_on_commit_callbacks(execute=True):
        response = client_for(editor()).post(f"/admin/kb/errorentry/{verified.pk}/change/", form)
    assert response.status_code == 302
    assert ErrorEntry.objects.get(pk=verified.pk).message_pattern == RENAMED_PATTERN
    assert_judged_again(client, verified, sent)


def test_editing_change_of_the_message_and_pattern_judges_them_again(
    client, verified, sent, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        edit(verified, {"error_message": RENAMED, "message_pattern": RENAMED_PATTERN}, editor())
    assert_judged_again(client, verified, sent)


def test_a_bulk_write_that_says_its_texts_changed_judges_them_again(
    client, verified, sent, django_capture_on_commit_callbacks
):
    # What a write path of many entries does (the dataset import): it writes, then says so.
    before = shown(client, verified)
    assert (before["page"], before["home verified"], before["listed verified"]) == (
        {"verified"},
        True,
        True,
    )
    with django_capture_on_commit_callbacks(execute=True), transaction.atomic():
        ErrorEntry.objects.filter(pk=verified.pk).update(message_pattern=RENAMED_PATTERN)
        texts_changed(ErrorEntry, [verified.pk])
    assert_judged_again(client, verified, sent)


def test_a_revert_to_older_texts_judges_them_again(
    client, sent, django_capture_on_commit_callbacks
):
    (entry,) = import_records(make_record(RENAMED, repo="tracel-ai/burn"))
    user = editor()
    entry = edit(
        entry, {"error_message": SAVE, "message_pattern": r"Can save model checkpoint\."}, user
    )
    prove(entry, link_scenario(entry, "disk-full"))
    assert stored_state(entry) == State.VERIFIED
    first = revisions.history(entry).last()  # the import's revision: the older texts
    with django_capture_on_commit_callbacks(execute=True):
        entry = revisions.revert(entry, first, user)
    assert (entry.error_message, entry.message_pattern) == (RENAMED, RENAMED_PATTERN)
    assert_judged_again(client, entry, sent)


def test_a_pattern_that_still_matches_what_the_runs_printed_stays_verified(
    client, verified, sent, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        edit(verified, {"message_pattern": r"Can save model"}, editor())
    assert shown(client, verified)["state"] == "verified"
    assert sent["reverified"] == [[verified.pk]]  # and verified again all the same


def _raw_sql(entry) -> None:
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {ErrorEntry._meta.db_table} SET message_pattern = %s WHERE id = %s",
            [RENAMED_PATTERN, entry.pk],
        )


def _bare_update(entry) -> None:
    ErrorEntry.objects.filter(pk=entry.pk).update(message_pattern=RENAMED_PATTERN)


@pytest.mark.parametrize("write", [_raw_sql, _bare_update], ids=["raw SQL", "QuerySet.update"])
def test_a_change_of_the_texts_outside_kbs_write_paths_is_set_right_by_recompute_states_fix(
    client, verified, write
):
    write(verified)
    # Nothing said it: the stored state stays as it was, until --fix stores what the runs
    # give with the new pattern (docs/verification.md).
    assert stored_state(verified) == State.VERIFIED
    with pytest.raises(CommandError, match="1 entry differs"):
        recompute()
    assert recompute("--fix") == f"{verified.pk}: stored verified, derived drifted\nfixed 1 entry\n"
    assert shown(client, verified) == {
        "state": "drifted",
        "observed": f"{SAVE}: Io(..)",
        "listed verified": False,
        "page": {"drifted"},
        "home verified": False,
        "stored": "drifted",
    }
    assert recompute() == "every stored state matches its runs\n"


def test_a_raw_sql_write_that_leaves_the_texts_alone_leaves_nothing_to_fix(verified):
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {ErrorEntry._meta.db_table} SET documentation = %s,"
            " message_pattern = message_pattern WHERE id = %s",
            ["Rewritten by hand.", verified.pk],
        )
    assert stored_state(verified) == State.VERIFIED
    assert recompute() == "every stored state matches its runs\n"


def test_a_change_of_an_entry_without_scenarios_stores_and_enqueues_nothing(
    sent, django_capture_on_commit_callbacks
):
    (entry,) = import_records(make_record(SAVE))
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        edit(entry, {"message_pattern": RENAMED_PATTERN}, editor())
    assert not EntryState.objects.filter(entry=entry).exists()
    assert callbacks == [] and sent["reverified"] == []


def test_a_change_rolled_back_enqueues_nothing(verified, sent, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True), pytest.raises(RuntimeError):
        with transaction.atomic():
            edit(verified, {"message_pattern": RENAMED_PATTERN}, editor())
            raise RuntimeError("the write failed later")
    assert stored_state(verified) == State.VERIFIED
    assert sent["reverified"] == []
