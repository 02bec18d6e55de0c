"""Real panics of every demo entry, in a few hundred lines of log, find that entry first."""

import json
from io import StringIO

import pytest
from django.core.management import call_command

from tests.lookup.texts import (
    demo_panic,
    demo_records,
    fixed_lines,
    old_rust_panic,
    printed_message,
    rust_panic,
    wrapped,
)

RECORDS = demo_records()


def look_up(client, text: str):
    response = client.post("/api/lookup", {"text": text}, content_type="application/json")
    assert response.status_code == 200, response.content
    return response.json()


@pytest.mark.parametrize("record", RECORDS, ids=[r["slug"] for r in RECORDS])
def test_it_finds_each_demo_entry_first_in_a_log_with_its_panic(client, demo, record):
    text = wrapped(demo_panic(record), before=220, after=180)

    found = look_up(client, text)

    first = found["matches"][0]
    assert first["id"] == record["id"]
    assert first["url"] == f"http://testserver/repos/tracel-ai/burn/errors/{record['slug']}/"
    lines = text.split("\n")
    assert any(part in lines[first["line"] - 1] for part in fixed_lines(record))
    start, end = first["span"]
    assert lines[first["line"] - 1][start:end] == first["matched"]


@pytest.mark.parametrize(
    "record", [r for r in RECORDS if r["errorType"] == "panic"], ids=lambda r: r["slug"]
)
def test_it_reads_the_location_of_a_panic_at_the_entrys_pinned_line(client, demo, record):
    found = look_up(client, wrapped(demo_panic(record)))

    first = found["matches"][0]
    assert first["fits"] == "line"
    assert first["location"]["path"] == record["filePath"]
    assert first["location"]["line"] == record["lineNumber"]


def test_it_reads_a_panic_in_the_form_rust_printed_before_1_73(client, demo):
    record = next(r for r in RECORDS if r["errorMessage"] == "Can load model checkpoint.")
    panic = old_rust_panic(record["filePath"], record["lineNumber"], "Can load model checkpoint.")

    first = look_up(client, wrapped(panic))["matches"][0]

    assert (first["id"], first["fits"]) == (record["id"], "line")


def test_a_registry_path_narrows_the_release_to_the_one_it_names(client, demo):
    # burn-train 0.19.1 from crates.io raised this at learner/base.rs:61.
    path = (
        "/home/ci/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/"
        "burn-train-0.19.1/src/learner/base.rs"
    )
    text = wrapped(rust_panic(path, 61, "Can delete optimizer checkpoint.: " + "FileNotFound"))

    first = look_up(client, text)["matches"][0]

    assert first["message"] == "Can delete optimizer checkpoint."
    assert first["fits"] == "line"
    # The row says 0.13.0 – 0.20.0-pre.5; the path says which of them it is.
    assert first["releases"] == ["0.19.1"]
    assert first["location"]["version"] == "0.19.1"


def test_a_release_the_registry_path_does_not_name_is_not_claimed(client, demo):
    # Line 61 is the 0.13.0 – 0.20.0-pre.5 line; a 0.20.0 crate raises it at line 163.
    path = "/root/.cargo/registry/src/index.crates.io-x/burn-train-0.20.0/src/learner/base.rs"
    text = rust_panic(path, 61, "Can delete optimizer checkpoint.: FileNotFound")

    first = look_up(client, text)["matches"][0]

    assert first["releases"] == []
    assert first["fits"] == "file"


def test_several_panics_are_listed_in_the_order_they_happened(client, demo):
    by_message = {r["errorMessage"]: r for r in RECORDS}
    first_panic = demo_panic(by_message["Can save model checkpoint."])
    echo = demo_panic(by_message["Can send the end message to the checkpointer thread."], 3)
    text = wrapped(first_panic + "\n" + "\n".join(["step 9 loss 0.1"] * 40) + "\n" + echo)

    ids = [m["id"] for m in look_up(client, text)["matches"]]

    assert ids == [
        by_message["Can save model checkpoint."]["id"],
        by_message["Can send the end message to the checkpointer thread."]["id"],
    ]


def test_a_log_without_any_known_message_matches_nothing(client, demo):
    found = look_up(client, wrapped("everything went fine"))

    assert found == {
        "count": 0,
        "truncated": False,
        "matches": [],
        "story": [],
        "storyTruncated": False,
        "address": None,
    }


def test_the_command_prints_the_same_first_match_as_the_api(client, demo, tmp_path):
    record = next(r for r in RECORDS if r["errorMessage"] == "Can save optimizer checkpoint.")
    text = wrapped(demo_panic(record), seed=3)
    log = tmp_path / "train.log"
    log.write_text(text, encoding="utf-8")
    api_first = look_up(client, text)["matches"][0]

    printed = StringIO()
    call_command("lookup", str(log), stdout=printed)
    as_json = StringIO()
    call_command("lookup", str(log), "--json", stdout=as_json)

    lines = printed.getvalue().splitlines()
    assert lines[:2] == ["What happened:", lines[1]]
    assert lines[1].startswith("1. [LIKELY CAUSE] panic on thread 'main'")
    first_line = lines[lines.index("Entries in this text:") + 1]
    assert first_line.startswith("1. Can save optimizer checkpoint.")
    assert f"[{api_first['id']}," in first_line
    command_first = json.loads(as_json.getvalue())["matches"][0]
    assert command_first == {**api_first, "url": api_first["url"].removeprefix("http://testserver")}


def test_the_command_reads_standard_input(demo, monkeypatch):
    record = next(r for r in RECORDS if r["errorMessage"] == "Failed to load record")
    text = demo_panic(record)
    monkeypatch.setattr("sys.stdin", _Stdin(text.encode()))

    printed = StringIO()
    call_command("lookup", "-", stdout=printed)

    entries = printed.getvalue().split("Entries in this text:\n", 1)[1]
    assert entries.startswith(f"1. Failed to load record  [{record['id']},")


def test_the_printed_message_carries_the_debug_payload():
    record = next(r for r in RECORDS if r["errorMessage"] == "Can save the state.")
    assert printed_message(record, "SendError { .. }") == "Can save the state.: SendError { .. }"


class _Stdin:
    def __init__(self, data: bytes):
        from io import BytesIO

        self.buffer = BytesIO(data)


def test_it_clips_a_long_message_and_match_as_its_document_says(client, demo):
    record = next(r for r in RECORDS if r["slug"] == "error-when-saving-the-state")
    text = rust_panic(record["filePath"], record["lineNumber"], printed_message(record, "x" * 3000))
    documented = client.get("/api/schema/", HTTP_ACCEPT="application/json").json()
    schemas = documented["components"]["schemas"]

    found = look_up(client, text)

    matched = found["matches"][0]["matched"]
    message = found["story"][0]["message"]
    assert len(matched) == schemas["Match"]["properties"]["matched"]["maxLength"] == 500
    assert len(message) == schemas["Finding"]["properties"]["message"]["maxLength"] == 2000
    assert matched.startswith("Error when saving the state: xxx")
