"""The shipped demo dataset: burn's checkpoint texts, release by release, consistent and linked.

That each entry's snippet, line and address match burn's source is proven in
tests/upstream/scan/test_entry_pins.py; this file checks the dataset as data.
"""

import json
import re
from io import StringIO

import pytest
from django.core.management import call_command

from errorkb.kb.dataset.files import parse_dataset
from errorkb.kb.ids import derive_entry_id
from errorkb.kb.record.release_ranges import version_in
from errorkb.kb.record.schema import message_matches, summary_error
from tests.builders import DEMO_DATASET, load_demo

SEED_IDS = {  # the seed documents' ids (../shared/seeds), kept so their links keep working
    "Can save model checkpoint.": "27edcc848b620ecb",
    "Can save optimizer checkpoint.": "d46a3ac9838c7fb3",
}
PANIC_BANNER = (
    "=== PANIC ===\nA fatal error happened, you can check the experiment logs here => '{}'"
    "\n============="
)
KINDS = ("model", "optimizer", "learning rate scheduler")
LEARNER_MESSAGES = {
    f"Can {verb} {what} checkpoint." for verb in ("save", "delete", "load") for what in KINDS
}
MESSAGES = LEARNER_MESSAGES | {
    "Failed to load module from file",
    "Failed to load record",
    # what users see first (the trainer's registry links its scenarios by these exact texts)
    "Error when saving the state: {err}",
    "Can send message to checkpointer thread.",
    "Can send the end message to the checkpointer thread.",
    "Can delete policy checkpoint.",
    "Training interrupted: {reason}",
    "Can save the state.",
    # the rest of the checkpoint path: every site of the async checkpointer, the
    # RL checkpointer's, the launchers' panic hook, burn-core's recorder (<= 0.21), burnpack's
    # reader (0.22), and the Dispatch backend's wrong-device panic on resume (0.21)
    "Error when deleting the state: {err}",
    "Error when sending response through callback channel: {err}",
    "The checkpointer thread should stop.",
    "Can delete learning agent checkpoint.",
    "Can save policy checkpoint.",
    "Can save learning agent checkpoint.",
    "Can load learning agent checkpoint.",
    "PANIC => {info}",
    PANIC_BANNER,
    "Unable to load record.",
    "Invalid magic number",
    "Unsupported version",
    "File truncated: expected at least {min_size} bytes, got {available} bytes",
    "Metadata deserialization error: {}",
    "Cannot move between autodiff and non-autodiff instances.",
}
# Loading weights: burn-import's PyTorch and safetensors recorders (0.12 – 0.20),
# burn-store's PyTorch reader and its stores' missing tensors and shape checks (0.19 – main),
# burnpack's read errors, and the model code burn-import generates.
WEIGHT_ERRORS = {
    "Candle pickle error: {0}",
    "Candle Tensor error: {0}",
    "Missing source values for the '{}' field of type '{}'. Please verify the source data and "
    "ensure the field name is correct",
    "No variant match",
    "Pickle parsing error: {}. This may indicate an unsupported PyTorch file format or corrupted "
    "file.",
    "Expected a dictionary at the root of the PyTorch file, but found a different type. The file "
    "may be a full model save rather than a state_dict.",
    "Unsupported Python type '{}'. This may indicate a full model save rather than a state_dict.",
    "Tensor not found: {}",
    "Shape mismatch for '{}': expected {:?}, found {:?}",
    "I/O error: {}",
}
WEIGHT_PANICS = {"Record file to exist.", "Failed to load burnpack file"}
# Rust's own message, an entry only at burn's lines (firesAt): the TUI estimate's underflow.
SITE_KEYED = {"attempt to subtract with overflow"}
MESSAGES |= WEIGHT_ERRORS | WEIGHT_PANICS | SITE_KEYED
DEMO_ENTRIES = len(MESSAGES)
SAVES = [f"Can save {what} checkpoint." for what in KINDS]
DELETES = [f"Can delete {what} checkpoint." for what in KINDS]
LAUNCHER = "standard supervised launcher (SupervisedTraining::launch)"
HAND_BUILT = "hand-built LearningCheckpointer, no interrupter"
LEARNER_BUILDER = "LearnerBuilder::with_file_checkpointer"
PRE6_LAUNCHER = "SupervisedTraining::with_file_checkpointer(recorder)"
RELEASE_LINES = {
    "0.10.0 – 0.12.1",
    "0.13.0 – 0.20.0-pre.5",
    "0.20.0-pre.6",
    "0.20.0 – 0.21.0",
    "0.22.0-pre.1 – 0.22.0-pre.2",
    "main",
}
# The only way the save texts print: a hand-made LearnerComponentTypes of 0.20.0-pre.1 – pre.5.
HAND_MADE_RELEASES = "0.20.0-pre.1 – 0.20.0-pre.5"
SNIPPETS = ("exampleFix", "validationCode", "typeGuard", "tryCatchPattern")
VERSIONS = r"[0-9]+\.[0-9]+\.[0-9]+(?:-pre\.[0-9]+)?|main"
SECTION_RE = re.compile(rf"^// burn (?:{VERSIONS})(?: – (?:{VERSIONS}))?$")


@pytest.fixture(scope="module")
def demo():
    return json.loads(DEMO_DATASET.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def by_message(demo):
    return {r["errorMessage"]: r for r in demo["records"]}


def rows(record, outcome=None):
    return [r for r in record["appliesTo"] if outcome in (None, r["outcome"])]


def test_it_holds_burns_checkpoint_texts(demo):
    assert {r["errorMessage"] for r in demo["records"]} == MESSAGES
    assert len(demo["records"]) == DEMO_ENTRIES == 45
    assert all(r["repo"] == "tracel-ai/burn" for r in demo["records"])
    assert all(r["status"] == "published" for r in demo["records"])


def test_every_entry_has_a_plain_summary_of_at_most_60_words(demo):
    for r in demo["records"]:
        assert 1 <= len(r["summary"].split()) <= 60, r["id"]
        assert summary_error(r["summary"]) is None, r["id"]


def test_it_validates_against_the_schema(demo):
    assert len(parse_dataset(demo).records) == DEMO_ENTRIES


def test_it_lists_records_in_id_order_as_the_export_writes_them(demo):
    ids = [r["id"] for r in demo["records"]]
    assert ids == sorted(ids)


def test_its_ids_are_derived_except_the_two_that_keep_the_seed_ids(demo):
    for r in demo["records"]:
        expected = SEED_IDS.get(r["errorMessage"]) or derive_entry_id(
            r["repo"], r["errorMessage"], r["filePath"]
        )
        assert r["id"] == expected, r["errorMessage"]


def test_its_related_ids_name_other_demo_entries(demo):
    ids = {r["id"] for r in demo["records"]}
    for r in demo["records"]:
        assert r["related"], r["id"]
        assert set(r["related"]) <= ids - {r["id"]}, r["id"]


def test_its_patterns_match_what_burn_prints_where_the_text_is_raised(demo):
    for r in demo["records"]:
        assert message_matches(r["messagePattern"], r["errorMessage"]), r["id"]
        for row in rows(r, "raised"):
            if "note" in row:
                assert message_matches(r["messagePattern"], row["note"]), (r["id"], row)


def test_its_patterns_do_not_match_what_is_printed_instead(demo):
    for r in demo["records"]:
        for row in rows(r, "not raised"):
            assert not message_matches(r["messagePattern"], row["seen"]), (r["id"], row)
            if "note" in row:
                assert not message_matches(r["messagePattern"], row["note"]), (r["id"], row)


def test_its_format_patterns_fill_the_placeholder_with_a_bounded_wildcard(by_message):
    observed = {
        "Error when saving the state: {err}": "Error when saving the state: Record error: `x`",
        "Training interrupted: {reason}": "Training interrupted: Reason unknown",
    }
    for message, text in observed.items():
        pattern = by_message[message]["messagePattern"]
        assert ".{1,1000}" in pattern
        assert message_matches(pattern, text)
        assert not message_matches(pattern, message.split("{")[0])


def test_its_patterns_match_the_panic_with_its_payload(by_message):
    closed = 'Can delete model checkpoint.: Unknown("sending on a closed channel")'
    assert message_matches(by_message["Can delete model checkpoint."]["messagePattern"], closed)


def test_it_says_burn_never_prints_the_save_texts_and_what_it_prints_instead(by_message):
    for message in SAVES:
        record = by_message[message]
        raised = rows(record, "raised")
        assert [(row["versions"], row["seen"]) for row in raised] == [(HAND_MADE_RELEASES, message)]
        assert "hand-made LearnerComponentTypes" in raised[0]["setup"]
        assert "never prints this text through its public API" in record["documentation"]
        assert "standard set-ups never print" in record["summary"]
        seen = {row["seen"] for row in rows(record, "not raised")}
        assert seen == {
            "Training interrupted: {reason}",
            "Error when saving the state: {err}",
            "Can save the state.",
        }
        assert {row["versions"] for row in rows(record, "not raised")} == RELEASE_LINES


def test_its_worker_texts_have_a_row_for_every_release_that_has_the_line(by_message):
    """Each release whose source has a checkpointer text is in some row of its entry."""
    for message in [
        *SAVES,
        *DELETES,
        "Can send message to checkpointer thread.",
        "Can send the end message to the checkpointer thread.",
        "The checkpointer thread should stop.",
        *(f"Can load {what} checkpoint." for what in KINDS),
    ]:
        record = by_message[message]
        assert record["raisedIn"][0]["release"] == "0.10.0", message
        for release in (row["release"] for row in record["raisedIn"]):
            assert any(version_in(release, row["versions"]) for row in rows(record)), (
                message,
                release,
            )


def test_its_delete_entries_name_the_dead_worker_as_the_deciding_condition(by_message):
    for message in DELETES:
        record = by_message[message]
        raised = {(row["setup"], row["versions"]) for row in rows(record, "raised")}
        assert raised == {
            (LEARNER_BUILDER, "0.10.0 – 0.12.1"),
            (LEARNER_BUILDER, "0.13.0 – 0.20.0-pre.5"),
            (PRE6_LAUNCHER, "0.20.0-pre.6"),  # still no interrupter in the worker
            (HAND_BUILT, "0.20.0 – 0.21.0"),
            (HAND_BUILT, "0.22.0-pre.1 – main"),
        }
        instead = {(row["setup"], row["seen"]) for row in rows(record, "not raised")}
        assert (LAUNCHER, "Training interrupted: {reason}") in instead
        assert any(seen == "Can send message to checkpointer thread." for _, seen in instead)
        assert 'Unknown(\\"sending on a closed channel\\")' in json.dumps(record)


def test_its_texts_are_burns_own(demo):
    text = json.dumps(demo)
    assert "Io(Os" not in text  # the variant is IOError(…), burn's checkpoint/base.rs
    assert "IOError(Os { code: 1, kind: PermissionDenied" in text
    assert "'<unnamed>'" in text
    assert "Validation error: File truncated: expected at least" in text
    assert 'Failed to load module from file: Validation(\\"Apply errors: [' in text


def test_its_advice_for_burn_0_20_and_later_does_not_use_learner_builder(demo):
    for r in demo["records"]:
        if r["errorMessage"] == "Can save the state.":
            continue  # burn <= 0.19.1 only, where LearnerBuilder is the API
        code = [r["exampleFix"], r["validationCode"], r["typeGuard"], r["tryCatchPattern"]]
        assert not any("LearnerBuilder" in (c or "") for c in code), r["id"]


def test_its_log_entries_are_marked_as_log_lines(by_message):
    record = by_message["Training interrupted: {reason}"]
    assert (record["errorType"], record["severity"]) == ("log", "info")
    assert by_message["PANIC => {info}"]["errorType"] == "log"
    # the recorder's and burnpack's texts are errors carried inside another message, not panics
    errors = {
        "Unable to load record.",
        "Invalid magic number",
        "Unsupported version",
        "Metadata deserialization error: {}",
        "File truncated: expected at least {min_size} bytes, got {available} bytes",
    } | WEIGHT_ERRORS
    assert all(by_message[message]["errorType"] == "error" for message in errors)
    others = set(by_message) - errors - {"Training interrupted: {reason}", "PANIC => {info}"}
    assert all(by_message[m]["errorType"] in ("panic", "log") for m in others)


def test_its_save_the_state_entry_is_pinned_to_burn_0_19_1(by_message):
    record = by_message["Can save the state."]
    assert record["analyzedSha"] == "a6da424feacf6d82d6a0e81db197310796267c2b"


@pytest.mark.django_db
def test_it_loads_and_serves_every_entry(client):
    load_demo()
    listing = client.get("/api/errors/?pageSize=100").json()
    assert listing["count"] == DEMO_ENTRIES
    for record in listing["results"]:
        assert client.get(f"/errors/{record['id']}/").status_code == 200
        assert record["related"], record["id"]


@pytest.mark.django_db
def test_it_is_exactly_what_an_export_of_it_writes(tmp_path):
    load_demo()
    dump = tmp_path / "dump.json"
    call_command("export_errors", str(dump), stdout=StringIO())
    assert dump.read_bytes() == DEMO_DATASET.read_bytes()


def test_every_snippet_states_its_releases_in_sections(demo):
    for r in demo["records"]:
        for field in SNIPPETS:
            code = r[field]
            if code is None:
                continue
            lines = [line for line in code.splitlines() if line.strip()]
            assert SECTION_RE.match(lines[0]), (r["id"], field, lines[0])
            headers = [line for line in lines if line.startswith("// burn ")]
            assert all(SECTION_RE.match(line) for line in headers), (r["id"], field, headers)
            assert ">= 0." not in code and "<= 0." not in code, (r["id"], field)


def test_no_row_shows_a_writer_text_of_main_for_a_tagged_release(demo):
    """`cannot create` and `cannot write to` are burn-pack texts newer than every tag."""
    for r in demo["records"]:
        for row in r["appliesTo"]:
            note = row.get("note", "")
            if "cannot create '" in note or "cannot write to '" in note:
                assert row["versions"] == "main", (r["id"], row)
            if row["versions"] == "0.22.0-pre.1 – 0.22.0-pre.2" and "Record I/O error" in note:
                # the pre-releases' writer reports the OS error alone, without the path
                assert re.search(r"Record I/O error: I/O error: [^`'/]+ \(os error \d+\)", note)


def test_it_claims_no_unused_tensors_check_for_0_22_0_pre_1(by_message):
    for message in ("Failed to load module from file", "Failed to load record"):
        record = by_message[message]
        text = json.dumps(record, ensure_ascii=False)
        assert "from 0.22.0-pre.2" in text and "allow_unused(true)` (0.22.0-pre.2 – main" in text
        assert all("Unused tensors" not in row.get("note", "") for row in record["appliesTo"])


def test_a_file_size_limit_is_never_given_as_a_cause_of_a_text(demo):
    for r in demo["records"]:
        text = " ".join(
            v if isinstance(v, str) else json.dumps(v, ensure_ascii=False) for v in r.values()
        )
        if "file-size limit" in text.lower() or "EFBIG" in text:
            assert "burn prints nothing at all" in text, r["id"]
            assert "`File size limit exceeded`" in text, r["id"]
            assert "(EFBIG)" not in text, r["id"]


def test_the_save_the_state_entry_covers_every_release_that_has_the_text(by_message):
    record = by_message["Can save the state."]
    raised = {row["versions"] for row in rows(record, "raised")}
    assert raised == {"0.10.0 – 0.12.1", "0.13.0 – 0.20.0-pre.5", "0.20.0-pre.6"}
    assert "only" not in record["documentation"].split(".")[0]


def test_its_rl_rows_for_0_21_0_name_the_0_21_0_builder(demo):
    for r in demo["records"]:
        for row in r["appliesTo"]:
            if "RLTraining" in row["setup"] and row["versions"] == "0.21.0":
                assert "RLTraining::with_file_checkpointer(recorder)" in row["setup"], r["id"]


def test_its_hand_built_advice_takes_the_store_from_the_training_components(demo):
    for r in demo["records"]:
        for field in SNIPPETS:
            code = r[field] or ""
            assert "&event_store)" not in code, (
                r["id"],
                field,
            )  # EventStoreClient::new is pub(crate)
            if "LearningCheckpointer::new(" in code:
                assert "components.event_store" in code, (r["id"], field)


def test_its_dead_worker_texts_have_a_row_for_every_release_before_0_20_0(by_message):
    """0.20.0-pre.1 – 0.20.0-pre.6 still panic in the worker (no interrupter there)."""
    for message in DELETES + [
        "Can send message to checkpointer thread.",
        "Can send the end message to the checkpointer thread.",
    ]:
        raised = {(row["setup"], row["versions"]) for row in rows(by_message[message], "raised")}
        assert (LEARNER_BUILDER, "0.10.0 – 0.12.1") in raised, message
        assert (LEARNER_BUILDER, "0.13.0 – 0.20.0-pre.5") in raised, message
        assert (PRE6_LAUNCHER, "0.20.0-pre.6") in raised, message


def test_it_never_says_the_launchers_stop_line_reaches_the_terminal_or_every_round(demo):
    """`Training interrupted:` is an info record of the file logger (experiment.log), and a
    failed round that is the last one (or the early-stopping one) logs nothing at all."""
    for r in demo["records"]:
        prose = " ".join(
            v if isinstance(v, str) else " ".join(v)
            for v in (r["documentation"], r["triggerScenarios"], r["solutions"])
        )
        assert "may never reach your terminal" not in prose, r["id"]
        assert "If the terminal shows nothing" not in prose, r["id"]
        if "`Training interrupted:" in prose and "standard" in prose:
            assert "nothing" in prose and "should_stop()" in " ".join(
                [prose, " ".join(r["preventionTips"])]
            ), r["id"]


def test_its_launcher_rows_at_main_do_not_pin_which_workers_reason_is_kept(demo):
    for r in demo["records"]:
        for row in r["appliesTo"]:
            if row["setup"] == LAUNCHER and "cannot create '" in row.get("note", ""):
                assert "<model|optim|scheduler>-3.bpk" in row["note"], (r["id"], row)


def test_its_pre_0_20_0_snippets_do_not_format_a_checkpointer_error_with_display(demo):
    """CheckpointerError has no Display before 0.20.0 (only #[derive(Debug)])."""
    for r in demo["records"]:
        for field in SNIPPETS:
            code = r[field] or ""
            for section in re.split(r"(?m)^(?=// burn )", code):
                if section.startswith("// burn 0.13.0 – 0.20.0-pre.6") or section.startswith(
                    "// burn 0.13.0 – main"
                ):
                    assert "{err}" not in section, (r["id"], field)
