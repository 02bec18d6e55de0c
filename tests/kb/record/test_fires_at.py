"""firesAt: checked on import and in the admin, written after raisedIn only when stated,
round-tripped byte for byte, and content like appliesTo (a revision, a diff, a revert)."""

import json

import pytest

from errorkb.kb import editing, revisions
from errorkb.kb.dataset.files import parse_dataset
from errorkb.kb.dataset.import_export import export_dataset, plan_import
from errorkb.kb.models import ErrorEntry
from errorkb.kb.record.schema import FIRES_AT_KEY, Refusal, clean_fires_at
from errorkb.kb.record.validation import InvalidRecord, validate_record
from tests.admin.admin_client import change_post, client_for, form_errors
from tests.builders import BURN_MAIN, import_records, make_record
from tests.kb.dataset.test_export_errors import assert_round_trip
from tests.kb.edits import edit
from tests.kb.people import curator

pytestmark = pytest.mark.django_db

MESSAGE = "attempt to subtract with overflow"


def fires_at_row(**overrides) -> dict:
    """One valid firesAt row, in the order records write it; override any key."""
    row = {
        "versions": "0.22.0-pre.1 – main",
        "filePath": "crates/burn-train/src/renderer/tui/progress.rs",
        "firstLine": 198,
        "lastLine": 226,
        "commit": BURN_MAIN,
    }
    row.update(overrides)
    return row


def raised_in_row() -> dict:
    return {
        "release": "0.22.0-pre.2",
        "commit": "89bcc85f75c55e3451442f5371de45b243865340",
        "filePath": "crates/burn-train/src/renderer/tui/progress.rs",
        "lineNumber": 199,
    }


def refusal(rows) -> str:
    record = make_record(MESSAGE, firesAt=rows)
    with pytest.raises(InvalidRecord) as caught:
        validate_record(record, index=0)
    assert record["id"] in str(caught.value)
    return str(caught.value)


def without(key: str) -> dict:
    row = fires_at_row()
    del row[key]
    return row


@pytest.mark.parametrize(
    ("rows", "where", "why"),
    [
        ("0.22.0-pre.1 – main", "'firesAt'", "must be an array of rows"),
        ([fires_at_row(), 199], "'firesAt[1]'", "must be a JSON object"),
        ([fires_at_row(line=199)], "'firesAt[0].line'", "unknown key"),
        ([fires_at_row(), without("commit")], "'firesAt[1].commit'", "missing"),
        ([without("lastLine")], "'firesAt[0].lastLine'", "missing"),
        ([fires_at_row(lastLine=197)], "'firesAt[0].lastLine'", "is before firstLine"),
        ([fires_at_row(firstLine=0)], "'firesAt[0].firstLine'", "positive integer"),
        ([fires_at_row(firstLine="198")], "'firesAt[0].firstLine'", "positive integer"),
        ([fires_at_row(lastLine=True)], "'firesAt[0].lastLine'", "positive integer"),
        ([fires_at_row(versions="")], "'firesAt[0].versions'", "non-empty string"),
        ([fires_at_row(versions="recent")], "'firesAt[0].versions'", "a release or a range"),
        ([fires_at_row(versions="main – 0.21.0")], "'firesAt[0].versions'", "starts at main"),
        ([fires_at_row(versions="0.21.0 – 0.10.0")], "'firesAt[0].versions'", "after 0.10.0"),
        ([fires_at_row(filePath=" ")], "'firesAt[0].filePath'", "non-empty string"),
        ([fires_at_row(commit="v0.21.0")], "'firesAt[0].commit'", "7 to 40"),
        ([fires_at_row()] * 101, "'firesAt'", "more than 100 items"),
    ],
)
def test_it_names_the_bad_row_and_key(rows, where, why):
    message = refusal(rows)
    assert where in message and why in message, message


def test_it_accepts_rows_a_single_release_and_an_empty_list():
    rows = [fires_at_row(), fires_at_row(versions="0.10.0", firstLine=108, lastLine=108)]
    cleaned = validate_record(make_record(MESSAGE, firesAt=rows), index=0)
    assert cleaned.values["fires_at"] == rows
    assert validate_record(make_record(MESSAGE, firesAt=[]), index=0).values["fires_at"] == []


def test_it_keeps_an_absent_key_apart_from_an_empty_list():
    assert validate_record(make_record(MESSAGE), index=0).values["fires_at"] is None


def test_it_puts_the_keys_of_a_row_in_the_record_order():
    shuffled = dict(reversed(list(fires_at_row().items())))
    cleaned = validate_record(make_record(MESSAGE, firesAt=[shuffled]), index=0)
    assert list(cleaned.values["fires_at"][0]) == list(fires_at_row())


def test_the_admins_cleaning_refuses_as_an_import_does():
    assert clean_fires_at(None) is None
    with pytest.raises(Refusal, match=r"firesAt\[0\]\.lastLine: is before firstLine"):
        clean_fires_at([fires_at_row(firstLine=300)])


def exported(record_id: str) -> dict:
    return next(r for r in export_dataset()["records"] if r["id"] == record_id)


def test_it_writes_the_key_after_raised_in_only_when_stated():
    record = make_record(MESSAGE, raisedIn=[raised_in_row()], firesAt=[fires_at_row()])
    old = make_record("Old record.")
    import_records(record, old)
    assert list(exported(record["id"]))[-3:] == ["status", "raisedIn", FIRES_AT_KEY]
    assert exported(record["id"])[FIRES_AT_KEY] == [fires_at_row()]
    assert list(exported(old["id"])) == [*old, "related", "status"]


def test_it_round_trips_records_with_and_without_the_key(tmp_path):
    import_records(
        make_record(MESSAGE, firesAt=[fires_at_row(), fires_at_row(versions="0.10.0")]),
        make_record("Empty list.", firesAt=[]),
        make_record("No key."),
    )
    dump = json.loads(assert_round_trip(tmp_path).read_text())
    by_message = {r["errorMessage"]: r for r in dump["records"]}
    assert len(by_message[MESSAGE][FIRES_AT_KEY]) == 2
    assert by_message["Empty list."][FIRES_AT_KEY] == []
    assert FIRES_AT_KEY not in by_message["No key."]


def test_it_writes_a_row_in_the_record_order_whatever_the_stored_order():
    record = make_record(MESSAGE, firesAt=[fires_at_row()])
    import_records(record)
    # As PostgreSQL's jsonb could hand it back: keys in another order.
    ErrorEntry.objects.filter(pk=record["id"]).update(
        fires_at=[dict(sorted(fires_at_row().items()))]
    )
    assert list(exported(record["id"])[FIRES_AT_KEY][0]) == list(fires_at_row())


def test_an_identical_reimport_changes_nothing_and_a_changed_one_names_the_key():
    record = make_record(MESSAGE, firesAt=[fires_at_row()])
    import_records(record)
    assert [c.action for c in plan_import(parse_dataset([record]))] == ["unchanged"]
    changed = plan_import(parse_dataset([{**record, FIRES_AT_KEY: []}]))[0]
    assert (changed.action, changed.changed) == ("updated", [FIRES_AT_KEY])
    del record[FIRES_AT_KEY]
    import_records(record)
    assert ErrorEntry.objects.get(pk=record["id"]).fires_at is None


@pytest.fixture
def draft():
    record = make_record(MESSAGE, status="draft", firesAt=[fires_at_row()])
    return import_records(record)[0]


def post_rows(entry, text: str):
    return client_for(curator()).post(
        f"/admin/kb/errorentry/{entry.pk}/change/", change_post(entry, fires_at=text)
    )


def test_a_change_of_the_rows_is_content_and_shows_in_the_diff(draft):
    before = editing.snapshot(draft)
    entry = edit(draft, {"fires_at": [fires_at_row(), fires_at_row(versions="0.10.0")]}, curator())
    assert entry.content_changed_at > draft.content_changed_at
    changes = revisions.diff(
        editing.content_of(before), editing.content_of(editing.snapshot(entry))
    )
    assert [c.key for c in changes] == [FIRES_AT_KEY]
    assert 'class="diff-added"' in changes[0].html and "0.10.0" in changes[0].html


def test_a_revert_restores_the_rows(draft):
    user = curator()
    original = revisions.history(draft)[0]
    edit(draft, {"fires_at": None}, user)
    entry = revisions.revert(ErrorEntry.objects.get(pk=draft.pk), original, user)
    assert entry.fires_at == [fires_at_row()]
    assert revisions.version_snapshot(original)[FIRES_AT_KEY] == [fires_at_row()]


def test_a_curator_edits_the_rows_as_json_in_the_admin(draft):
    rows = [fires_at_row(), fires_at_row(versions="0.19.0 – 0.20.1", firstLine=197, lastLine=222)]
    response = post_rows(draft, json.dumps(rows, indent=2))
    assert response.status_code == 302, form_errors(response)
    assert ErrorEntry.objects.get(pk=draft.pk).fires_at == rows


def test_an_untouched_admin_save_keeps_the_rows(draft):
    response = client_for(curator()).post(
        f"/admin/kb/errorentry/{draft.pk}/change/", change_post(draft)
    )
    assert response.status_code == 302
    entry = ErrorEntry.objects.get(pk=draft.pk)
    assert entry.fires_at == [fires_at_row()]
    assert entry.content_changed_at == draft.content_changed_at


def test_an_invalid_row_is_a_form_error_naming_the_row(draft):
    response = post_rows(draft, json.dumps([fires_at_row(), fires_at_row(lastLine=1)]))
    assert response.status_code == 200
    errors, _ = form_errors(response)
    assert "firesAt[1].lastLine: is before firstLine" in errors["fires_at"][0]
    assert ErrorEntry.objects.get(pk=draft.pk).fires_at == [fires_at_row()]
