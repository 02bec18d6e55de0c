"""Qualifications the demo entries carry after a line-by-line audit against burn.

Each test reads the shipped dataset and fails if an overstated or unsupported claim comes
back: lines are checked against the index of burn's release sites and the kept sources.
"""

import json
import re
from collections import defaultdict
from functools import cache

import pytest

from errorkb.kb.record.release_ranges import version_in
from errorkb.upstream.claims.release_index import places_of
from errorkb.upstream.scan.site_index import read_site_index
from tests.builders import BURN_SITE_INDEX, DEMO_DATASET
from tests.upstream.sources import COMMITS, UnknownSource, source_lines

TEXT_FIELDS = (
    "summary",
    "documentation",
    "triggerScenarios",
    "commonSituations",
    "solutions",
    "exampleFix",
    "preventionTips",
)


@cache
def _records() -> dict[str, dict]:
    data = json.loads(DEMO_DATASET.read_text(encoding="utf-8"))
    return {record["errorMessage"]: record for record in data["records"]}


def _entry(message: str) -> dict:
    return _records()[message]


def _prose(record: dict) -> str:
    """Every field a reader reads, as one text."""
    parts = []
    for field in TEXT_FIELDS:
        value = record.get(field) or ""
        parts += value if isinstance(value, list) else [value]
    parts += [row.get("note") or "" for row in record.get("appliesTo") or ()]
    return "\n".join(parts)


@cache
def _site_lines() -> dict[tuple[str, str, str], set[int]]:
    """(release, path, text) -> the lines where burn raises the text at that release."""
    index = read_site_index(BURN_SITE_INDEX)
    names = [release["release"] for release in index["releases"]]
    lines = defaultdict(set)
    for path, line, text, _pattern, _kind, runs in index["sites"]:
        for place in places_of(runs):
            lines[names[place], path, text].add(line)
    return lines


def test_the_panic_hook_entry_does_not_call_the_first_logged_panic_the_cause():
    record = _entry("PANIC => {info}")
    prose = _prose(record)
    assert not re.search(r"first[^.]*\bis the (first panic, the )?cause", prose)
    assert "fix the first one" not in prose.lower()
    # burn#3990's experiment.log: the first PANIC line is itself a consequence
    assert "tracel-ai/burn#3990" in record["documentation"]
    assert "not always the cause" in record["summary"]
    assert 'Can delete model checkpoint.: Unknown("sending on a closed channel")' in prose


def test_failed_to_load_module_from_file_sends_recorder_files_back_to_their_release():
    prose = _prose(_entry("Failed to load module from file"))
    # burn-store has no reader for recorder files at any release
    assert not re.search(r"recorder files with the burn-store tooling", prose)
    assert "burn-store has no reader for old recorder files" in prose
    assert "load those with burn 0.21.0" in prose
    assert "BurnpackStore::from_file" in prose


MISSING_SOURCE_VALUES = (
    "Missing source values for the '{}' field of type '{}'. "
    "Please verify the source data and ensure the field name is correct"
)

# (entry, row versions): rows whose line moves inside their range, as burn's sites show.
MOVING_ROWS = [
    ("Can delete model checkpoint.", "0.20.0 – 0.21.0"),
    ("Can delete learning rate scheduler checkpoint.", "0.20.0 – 0.21.0"),
    ("Can load model checkpoint.", "0.20.0 – 0.21.0"),
    ("Can delete optimizer checkpoint.", "0.20.0 – 0.21.0"),
    ("Can load optimizer checkpoint.", "0.20.0 – 0.21.0"),
    ("Can load learning rate scheduler checkpoint.", "0.20.0 – 0.21.0"),
    ("Failed to load record", "0.22.0-pre.1 – main"),
    ("Record file to exist.", "0.10.0 – 0.12.1"),
    ("Record file to exist.", "0.13.0 – 0.19.1"),
    ("Record file to exist.", "0.20.0-pre.1 – 0.20.0-pre.4"),
    ("Cannot move between autodiff and non-autodiff instances.", "0.22.0-pre.1 – main"),
]


# (entry, row versions, the text the row cites): rows citing another text than the entry's.
MOVING_ROWS_OF_OTHER_TEXTS = [
    ("Failed to load burnpack file", "0.13.0 – 0.20.0-pre.4", "Record file to exist."),
    ("No variant match", "0.20.0-pre.4 – main", "Tensor not found: {}"),
    (MISSING_SOURCE_VALUES, "0.20.0-pre.4 – main", "Tensor not found: {}"),
    ("I/O error: {}", "0.19.0 – main", "IO error: {}"),
]


@pytest.mark.parametrize(("message", "versions"), MOVING_ROWS)
def test_a_row_whose_line_moves_within_its_range_names_the_other_line(message, versions):
    _assert_the_row_names_each_other_line(message, versions, message)


@pytest.mark.parametrize(("message", "versions", "seen"), MOVING_ROWS_OF_OTHER_TEXTS)
def test_a_row_citing_another_text_whose_line_moves_names_the_other_line(message, versions, seen):
    _assert_the_row_names_each_other_line(message, versions, seen)


def _assert_the_row_names_each_other_line(message: str, versions: str, seen: str) -> None:
    rows = [
        row
        for row in _entry(message)["appliesTo"]
        if row["versions"] == versions and row["seen"] == seen
    ]
    assert rows, f"no row {versions} for {message!r}"
    moved = 0
    for row in rows:
        for (release, path, text), lines in _site_lines().items():
            if path != row["filePath"] or text != row["seen"]:
                continue
            if not version_in(release, versions) or row["lineNumber"] in lines:
                continue
            moved += 1
            named = [line for line in lines if re.search(rf"\b{line} at v", row.get("note") or "")]
            assert named, f"{message} {versions}: line {sorted(lines)} at {release} unnoted"
        for release, lines in _kept_lines(row["filePath"], seen, versions).items():
            if lines and row["lineNumber"] not in lines:
                moved += 1
                note = row.get("note") or ""
                named = [line for line in lines if re.search(rf"\b{line} at v", note)]
                assert named, f"{message} {versions}: line {lines} at {release} unnoted"
    assert moved, "burn's sites show no move: the row's note would be wrong"


def _kept_lines(path: str, text: str, versions: str) -> dict[str, list[int]]:
    """The lines holding the text's longest literal part, at each kept release in the range:
    the site index keeps panic sites only, not the texts of `write!` or `format!`."""
    literal = max(re.split(r"\{[^}]*\}", text), key=len)
    found = {}
    for release in COMMITS:
        name = release.removeprefix("v")
        if not (release == "main" or release.startswith("v")) or not version_in(name, versions):
            continue
        try:
            lines = source_lines(release, path)
        except UnknownSource:
            continue
        found[release] = [number for number, line in enumerate(lines, 1) if literal in line]
    return found


@pytest.mark.parametrize(
    ("message", "text"),
    [
        ("Invalid magic number", "Invalid magic number"),
        ("Unsupported version", "Unsupported version"),
        ("Metadata deserialization error: {}", "Metadata deserialization error: {}"),
    ],
)
def test_burnpack_reader_rows_note_the_line_of_the_two_pre_releases(message, text):
    main = source_lines("main", "crates/burn-pack/src/base.rs")
    for row in _entry(message)["appliesTo"]:
        if row["versions"] != "0.22.0-pre.1 – main":
            continue
        assert text in main[row["lineNumber"] - 1]
        # one line earlier in both pre-releases: burn-pack's base.rs grew a line after them
        note = row.get("note") or ""
        assert f"the line is {row['lineNumber'] - 1} at v0.22.0-pre.1 – v0.22.0-pre.2" in note


def test_raised_in_rows_cite_the_panic_site_and_the_entry_the_line_of_its_text():
    """A raisedIn row is a site of the scan: the line of the `panic!(` call, the location
    Rust reports; the entry's lineNumber is the line of the text itself, one below here."""
    message = "Error when sending response through callback channel: {err}"
    record = _entry(message)
    kept = {"0.21.0": "v0.21.0", "0.22.0-pre.2": "v0.22.0-pre.2"}
    checked = 0
    for row in record["raisedIn"]:
        if row["release"] in kept:
            lines = source_lines(kept[row["release"]], row["filePath"])
            assert lines[row["lineNumber"] - 1].strip() == "panic!(", row
            assert message.split("{")[0] in lines[row["lineNumber"]], row
            checked += 1
    assert checked == 2
    main = source_lines("main", record["filePath"])
    assert message.split("{")[0] in main[record["lineNumber"] - 1]


PANIC_AT_LOCATION = "`PANIC => panicked at <location>:` and, on the next line, the panic message"
FIXED_HOOK_PARAGRAPH = [
    "Can load learning rate scheduler checkpoint.",
    "Error when saving the state: {err}",
    "Can save the state.",
    "Can load optimizer checkpoint.",
    "Can load model checkpoint.",
    "Can load learning agent checkpoint.",
    "Failed to load record",
    "Error when deleting the state: {err}",
    "Can delete model checkpoint.",
    "Can delete optimizer checkpoint.",
    "Can delete learning rate scheduler checkpoint.",
    "Can delete learning agent checkpoint.",
    "Can delete policy checkpoint.",
    "Can send message to checkpointer thread.",
    "Can send the end message to the checkpointer thread.",
]


@pytest.mark.parametrize("message", FIXED_HOOK_PARAGRAPH)
def test_the_logged_panic_reads_panicked_at_its_location_then_the_message(message):
    documentation = _entry(message)["documentation"]
    assert "PANIC => <panic message>" not in documentation
    assert PANIC_AT_LOCATION in documentation


def test_the_panic_hook_entry_says_burn_imports_onnx_logger_prints_to_stdout():
    documentation = _entry("PANIC => {info}")["documentation"]
    assert "burn-import's ONNX code generator (`ModelGen`, 0.8.0 – 0.20.1)" in documentation
    assert "writes to stdout, not to experiment.log" in documentation


@pytest.mark.parametrize(
    "message",
    [
        "Can save learning agent checkpoint.",
        "Can save policy checkpoint.",
        "Can load learning agent checkpoint.",
        "Can delete learning agent checkpoint.",
        "Can delete policy checkpoint.",
    ],
)
def test_rl_entries_date_with_file_checkpointer_from_its_first_pre_release(message):
    prose = _prose(_entry(message))
    # RLTraining::with_file_checkpointer is there from 0.21.0-pre.1 (rl/paradigm.rs:286)
    assert not re.search(r"with_file_checkpointer\(recorder\)`(\)| in|,)? \(?0\.21\.0\)", prose)
    assert not re.search(r"`\.mpk`, in 0\.21\.0\)", prose)
    assert "in 0.21.0 the recorder's extension" not in prose


def test_no_entry_dates_the_rl_paradigm_from_0_21_0_itself():
    # RLTraining is there from 0.21.0-pre.1 (rl/paradigm.rs at v0.21.0-pre.1)
    for record in _records().values():
        assert "RL paradigm (0.21.0 – main" not in _prose(record), record["errorMessage"]


def test_validate_false_is_said_to_keep_the_shape_check_and_drop_its_error():
    lines = source_lines("main", "crates/burn-core/src/store/mod.rs")
    assert "if validate && !mapper.errors.is_empty()" in lines[245 - 1]
    for message in ("Failed to load module from file", "Failed to load record"):
        prose = _prose(_entry(message))
        assert "`validate(false)` skips" not in prose
        assert "`validate(false)` does not skip the shape check" in prose
        assert "store/mod.rs:245 at main" in prose


THREAD_HEADER = re.compile(r"thread '[^']*' (?:\((?P<id>[^)]*)\) )?panicked at")


@pytest.mark.parametrize(
    "message",
    [
        "Error when saving the state: {err}",
        "Can save the state.",
        "Can save learning agent checkpoint.",
        "Can save policy checkpoint.",
        "Cannot move between autodiff and non-autodiff instances.",
        "Error when deleting the state: {err}",
        "Can delete learning agent checkpoint.",
        "Can delete policy checkpoint.",
        "=== PANIC ===\nA fatal error happened, you can check the experiment logs here => '{}'"
        "\n=====",
    ],
)
def test_panic_headers_in_entries_show_the_thread_id_rust_prints_since_1_91(message):
    record = next(r for m, r in _records().items() if m.startswith(message[:40]))
    text = _prose(record)
    headers = list(THREAD_HEADER.finditer(text))
    assert headers and all(header["id"] for header in headers), message


def test_the_5082_report_is_dated_by_the_issue_not_by_a_guessed_checkout():
    prose = _prose(_entry("Cannot move between autodiff and non-autodiff instances."))
    assert "git checkout of 2026-06-16" not in prose
    assert "main checkout of June 2026" not in prose
    assert "tracel-ai/burn#5082, opened 2026-06-16" in prose
