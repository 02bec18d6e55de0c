"""An entry's summary: at most 60 plain words, required to publish, carried everywhere."""

import json
from io import StringIO

import pytest
from django.core.management import call_command

from errorkb.kb import workflow
from errorkb.kb.dataset.files import parse_dataset
from errorkb.kb.dataset.import_export import export_dataset, plan_import
from errorkb.kb.models import ErrorEntry
from errorkb.kb.record.validation import InvalidRecord, validate_record
from tests.admin.admin_client import change_post, client_for, form_errors
from tests.builders import import_records, make_record, write_json
from tests.kb.people import editor

pytestmark = pytest.mark.django_db

PLAIN = 'The checkpoint could not be written: look for "Can save the state." and free space.'


def refusal(**overrides) -> str:
    with pytest.raises(InvalidRecord) as caught:
        validate_record(make_record(**overrides), index=0)
    return str(caught.value)


def test_it_accepts_plain_words_quotes_and_releases():
    record = make_record(summary=PLAIN + " Upgrade to 0.20.0-pre.6 – 0.21.0.")
    assert validate_record(record, index=0).values["summary"] == record["summary"]


def test_it_accepts_exactly_60_words():
    summary = " ".join(["word"] * 60)
    assert validate_record(make_record(summary=summary), index=0).values["summary"] == summary


@pytest.mark.parametrize(
    ("summary", "why"),
    [
        (" ".join(["word"] * 61), "has 61 words; at most 60"),
        ("See learner/base.rs:71 for the line.", "cites a source line (file.rs:NN)"),
        ("Call `try_load_file` instead.", "holds a backtick"),
        ("See [the issue](https://github.com/tracel-ai/burn/issues/3990).", "holds a link"),
        ("See https://burn.dev for more.", "holds a link"),
        ("This is **not** an error.", "holds Markdown"),
        ("- free space", "holds Markdown"),
        ("First line.\nSecond line.", "holds a line break"),
        ("   ", "holds only white space"),
        (["a list"], "must be a string"),
    ],
)
def test_it_refuses_what_is_not_1_to_60_plain_words_naming_the_field(summary, why):
    message = refusal(summary=summary)
    assert "field 'summary'" in message and why in message, message


def test_it_refuses_a_published_record_of_errorkb_without_a_summary():
    message = refusal(summary="", status="published")
    assert "field 'summary': is required for a published entry" in message


def test_it_imports_a_draft_and_a_plain_seed_record_without_a_summary():
    draft = make_record("A draft.", status="draft")
    seed = make_record("A seed record.")  # no status: the seed schema, which has no summary
    del draft["summary"], seed["summary"]
    entries = import_records(draft, seed)
    assert [entry.summary for entry in entries] == ["", ""]
    assert entries[1].status == ErrorEntry.Status.PUBLISHED


def test_the_import_and_export_commands_round_trip_the_summary(tmp_path):
    source = write_json(
        tmp_path / "in.json",
        {"datasetVersion": "2026-10-01T00:00:00.000Z", "records": [make_record(summary=PLAIN)]},
    )
    call_command("import_errors", str(source), stdout=StringIO())
    call_command("export_errors", str(tmp_path / "out.json"), stdout=StringIO())
    exported = json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))["records"][0]
    assert exported["summary"] == PLAIN
    keys = list(exported)
    assert keys.index("summary") == keys.index("related") - 1
    # What the export wrote imports again as unchanged.
    again = parse_dataset({"datasetVersion": "2026-10-02T00:00:00.000Z", "records": [exported]})
    assert [change.action for change in plan_import(again)] == ["unchanged"]


def test_an_import_that_changes_only_the_summary_names_that_key():
    record = make_record(summary=PLAIN)
    import_records(record)
    changed = parse_dataset(
        {"datasetVersion": "2026-10-02T00:00:00.000Z", "records": [{**record, "summary": "New."}]}
    )
    assert [change.changed for change in plan_import(changed)] == [["summary"]]


def test_a_draft_without_a_summary_exports_without_the_key():
    record = make_record("A draft.", status="draft")
    del record["summary"]
    import_records(record)
    assert "summary" not in export_dataset()["records"][0]


def test_the_api_serves_the_summary_and_its_schema_declares_it(client):
    (entry,) = import_records(make_record(summary=PLAIN))
    body = client.get(f"/api/errors/{entry.id}").json()
    record = body.get("record", body)
    assert record["summary"] == PLAIN
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/json").json()
    summary = schema["components"]["schemas"]["ErrorRecord"]["properties"]["summary"]
    assert summary["type"] == "string" and "60 plain words" in summary["description"]


def test_the_admin_saves_an_edited_summary():
    (entry,) = import_records(make_record(summary=PLAIN))
    response = client_for(editor()).post(
        f"/admin/kb/errorentry/{entry.pk}/change/", change_post(entry, summary="Free space.")
    )
    assert response.status_code == 302
    entry.refresh_from_db()
    assert entry.summary == "Free space."


@pytest.mark.parametrize(
    ("summary", "why"),
    [
        ("", "A published entry needs a summary."),
        ("See `base.rs:71`.", "The summary cites a source line (file.rs:NN)"),
    ],
)
def test_the_admin_refuses_a_summary_a_published_entry_cannot_have(summary, why):
    (entry,) = import_records(make_record(summary=PLAIN))
    response = client_for(editor()).post(
        f"/admin/kb/errorentry/{entry.pk}/change/", change_post(entry, summary=summary)
    )
    assert response.status_code == 200
    errors, _ = form_errors(response)
    assert why in str(errors["summary"])
    entry.refresh_from_db()
    assert entry.summary == PLAIN


def test_publishing_an_entry_without_a_summary_is_refused():
    record = make_record("In review.", status="in_review")
    del record["summary"]
    (entry,) = import_records(record)
    with pytest.raises(workflow.NotPublishable, match="no summary"):
        workflow.transition(entry, "publish", editor(), confirmed=True)
    entry.refresh_from_db()
    assert entry.status == ErrorEntry.Status.IN_REVIEW


def test_the_admin_publish_button_says_why_it_did_not_publish():
    record = make_record("In review.", status="in_review")
    del record["summary"]
    (entry,) = import_records(record)
    response = client_for(editor()).post(
        f"/admin/kb/errorentry/{entry.pk}/transition/publish/",
        {"base_version": entry.edit_version, "confirmed": "1"},
        follow=True,
    )
    assert "Not published. It has no summary" in response.content.decode()
    entry.refresh_from_db()
    assert entry.status == ErrorEntry.Status.IN_REVIEW
