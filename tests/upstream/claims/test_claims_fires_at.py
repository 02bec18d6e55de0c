"""firesAt rows checked at every release they name: the lines are those of the row's commit.

The first tests read a small burn-like history built here, in which the estimate's code
moves down a line at 0.3.0; the last ones read the kept index of burn and the shipped entry.
"""

import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from errorkb.upstream.claims.check import check_claims
from errorkb.upstream.claims.release_facts import BurnIndex, read_index
from errorkb.upstream.claims.release_index import LINE_FILES, MAIN, index_releases, release_tags
from errorkb.upstream.git import Checkout
from tests.upstream.gitrepo import GitRepo

ROOT = Path(__file__).resolve().parents[3]
KEPT_INDEX = ROOT / "tests" / "upstream" / "burn" / "index.json"
DEMO = ROOT / "errorkb" / "kb" / "fixtures" / "demo.json"
ENTRY_ID = "395a33d9cd6d7002"  # the TUI estimate's underflow, in the demo
PROGRESS = "crates/burn-train/src/renderer/tui/progress.rs"
MESSAGE = "attempt to subtract with overflow"
ESTIMATE = (
    "fn calculate_progress(epoch: usize, starting_epoch: usize) -> usize {\n"
    "    let epoch = epoch - starting_epoch;\n"
    '    format!("{epoch} mins");\n'
    "    epoch\n"
    "}\n"
)
MOVED = "// a line above moves the estimate down\n" + ESTIMATE


@pytest.fixture(scope="module")
def history(tmp_path_factory) -> tuple[BurnIndex, dict[str, str], dict]:
    repo = GitRepo(tmp_path_factory.mktemp("burn"))
    commits = {}
    repo.write(PROGRESS, ESTIMATE)
    commits["0.1.0"] = repo.commit("one", tag="v0.1.0")
    commits["0.2.0"] = repo.commit("two", tag="v0.2.0")
    repo.write(PROGRESS, MOVED)
    commits["0.3.0"] = repo.commit("three", tag="v0.3.0")
    commits[MAIN] = repo.commit("main")
    checkout = Checkout(repo.path)
    releases = [*release_tags(checkout, "v0.1.0", "v0.3.0"), (MAIN, commits[MAIN])]
    index = index_releases(checkout, releases)
    return BurnIndex(index), commits, index


def row(commits: dict[str, str], **overrides) -> dict:
    found = {
        "versions": "0.1.0 – 0.2.0",
        "filePath": PROGRESS,
        "firstLine": 1,
        "lastLine": 5,
        "commit": commits["0.2.0"],
    }
    found.update(overrides)
    return found


def failures(index: BurnIndex, fires_at: list[dict], applies_to: list[dict] = ()) -> list[str]:
    record = {"id": "e", "errorMessage": MESSAGE, "firesAt": fires_at}
    if applies_to:
        record["appliesTo"] = list(applies_to)
    return [str(claim) for claim in check_claims([record], index)]


def test_it_keeps_the_lines_of_the_files_rows_cite_with_their_releases(history):
    _, _, index = history
    assert PROGRESS in LINE_FILES
    assert index["files"][PROGRESS]["lines"] == [
        {"in": "0-1", "text": ESTIMATE.splitlines()},
        {"in": "2-3", "text": MOVED.splitlines()},
    ]


def test_a_row_holds_where_its_lines_are_those_of_its_commit(history):
    index, commits, _ = history
    rows = [
        row(commits),
        row(commits, versions="0.3.0 – main", firstLine=2, lastLine=6, commit=commits[MAIN]),
    ]
    assert failures(index, rows) == []


def test_it_names_the_releases_where_the_code_moved(history):
    index, commits, _ = history
    assert failures(index, [row(commits, versions="0.1.0 – main")]) == [
        "e firesAt[0] @ 0.3.0 – main: lines 1-5 differ from 0.2.0's"
    ]


def test_one_changed_line_is_enough_to_fail(history):
    index, commits, _ = history
    moved_lines = row(commits, versions="0.2.0 – 0.3.0", firstLine=2, lastLine=2)
    assert failures(index, [moved_lines]) == ["e firesAt[0] @ 0.3.0: lines 2-2 differ from 0.2.0's"]


@pytest.mark.parametrize(
    ("overrides", "expected"),
    [
        (
            {"commit": "abcdef1"},
            "e firesAt[0].commit @ -: 'abcdef1' is no indexed release's commit",
        ),
        ({"lastLine": 9}, f"e firesAt[0].lastLine @ -: {PROGRESS} has 5 lines"),
        (
            {"filePath": "crates/burn-train/src/other.rs"},
            "e firesAt[0].filePath @ -: crates/burn-train/src/other.rs is no file whose lines "
            "the index keeps",
        ),
        ({"versions": "0.1.0 – 0.9.0"}, "e firesAt[0].versions @ -: '0.9.0' is no indexed release"),
    ],
)
def test_it_refuses_a_row_it_cannot_check(history, overrides, expected):
    index, commits, _ = history
    assert expected in failures(index, [row(commits, **overrides)])


def raised(commits: dict[str, str], **overrides) -> dict:
    found = {
        "versions": "0.1.0 – 0.2.0",
        "setup": "a resume",
        "outcome": "raised",
        "seen": MESSAGE,
        "filePath": PROGRESS,
        "lineNumber": 2,
        "commit": commits["0.2.0"],
    }
    found.update(overrides)
    return found


def test_a_row_raising_rusts_message_must_lie_within_a_fires_at_row(history):
    index, commits, _ = history
    assert failures(index, [row(commits)], [raised(commits)]) == []
    assert failures(index, [row(commits)], [raised(commits, lineNumber=7)]) == [
        f"e appliesTo[0].lineNumber @ 0.1.0 – 0.2.0: {PROGRESS}:7 is in no firesAt row"
    ]
    assert failures(index, [row(commits)], [raised(commits, versions="0.1.0 – main")]) == [
        f"e appliesTo[0].lineNumber @ 0.3.0 – main: {PROGRESS}:2 is in no firesAt row"
    ]


def test_a_row_showing_burns_text_instead_is_checked_as_any_row(history):
    index, commits, _ = history
    instead = raised(commits, outcome="not raised", seen="{epoch} mins", versions="0.1.0 – main")
    assert failures(index, [row(commits)], [instead]) == []
    wrong = {**instead, "seen": "{epoch} hours"}
    assert failures(index, [row(commits)], [wrong]) == [
        f"e appliesTo[0].seen @ 0.1.0 – main: '{{epoch}} hours' is in no literal of {PROGRESS}"
    ]


def shipped() -> dict:
    records = json.loads(DEMO.read_text(encoding="utf-8"))["records"]
    return next(record for record in records if record["id"] == ENTRY_ID)


def test_the_shipped_entry_holds_at_every_release_it_names():
    assert check_claims([shipped()], read_index(KEPT_INDEX)) == []
    out = StringIO()
    call_command("check_claims", str(DEMO), stdout=out)
    assert "records hold at every release they name" in out.getvalue()


def test_the_shipped_rows_would_fail_stretched_over_a_release_where_the_code_moved():
    record = shipped()
    record["firesAt"][3]["versions"] = "0.13.0 – 0.18.0"  # 0.13.x has it three lines lower
    assert [str(claim) for claim in check_claims([record], read_index(KEPT_INDEX))] == [
        "395a33d9cd6d7002 firesAt[3] @ 0.13.0 – 0.13.2: lines 154-179 differ from 0.18.0's"
    ]
