"""A log read as a story: every panic and error in order, the first the likely cause, what
follows from it marked, the release from the path, and the burn line where no entry
explains a panic yet. The logs are in story_corpus.py, each with its expected story."""

from io import StringIO

import pytest
from django.core.management import call_command

from tests.builders import import_records, load_site_index, make_record
from tests.lookup.story_corpus import CORPUS, LOAD_MODEL, NEGATIVES, Log
from tests.lookup.texts import demo_records, rust_panic

DEMO_IDS = {record["id"] for record in demo_records()}


def story_of(client, text: str) -> dict:
    response = client.post("/api/lookup", {"text": text}, content_type="application/json")
    assert response.status_code == 200, response.content
    return response.json()


def told(finding: dict) -> tuple[str, str, str | None]:
    """(role, what explains it, release), as the corpus writes its expected stories."""
    if finding["entry"]:
        what = finding["entry"]["message"]
    elif finding["upstream"]:
        what = f"site {finding['upstream']['filePath']}:{finding['upstream']['lineNumber']}"
    elif finding["where"] in ("rust", "user"):
        what = finding["where"]
    else:
        what = "none"
    return finding["role"], what, finding["release"]


def ids(logs: list[Log]) -> list[str]:
    return [log.name for log in logs]


def test_the_corpus_has_forty_logs_and_ten_negatives_each_named_once():
    assert len(CORPUS) >= 40 and len(NEGATIVES) >= 10
    assert len({log.name for log in CORPUS + NEGATIVES}) == len(CORPUS) + len(NEGATIVES)


@pytest.mark.parametrize("log", CORPUS, ids=ids(CORPUS))
def test_a_users_log_is_told_in_order_with_its_first_panic_as_the_cause(
    client, demo, burn_releases, log
):
    answer = story_of(client, log.text)

    story = [told(finding) for finding in answer["story"] if finding["role"] != "context"]
    assert story == log.story
    assert [finding["order"] for finding in answer["story"]] == list(
        range(1, len(answer["story"]) + 1)
    )


@pytest.mark.parametrize("log", NEGATIVES, ids=ids(NEGATIVES))
def test_a_log_of_another_failure_claims_no_checkpoint_entry(client, demo, burn_releases, log):
    answer = story_of(client, log.text)

    assert [match["id"] for match in answer["matches"] if match["id"] in DEMO_IDS] == []
    assert [told(finding) for finding in answer["story"]] == log.story


def test_an_entry_pinned_at_the_line_ranks_above_one_whose_rows_only_name_it(
    client, demo, burn_releases
):
    # The learner's entry lists rl/checkpointer.rs:65 among its raisedIn rows (the policy
    # is loaded with the learner's text there); a curated entry is pinned at that line.
    path = "crates/burn-train/src/learner/rl/checkpointer.rs"
    (pinned,) = import_records(
        make_record(
            LOAD_MODEL,
            repo="tracel-ai/burn",
            slug="can-load-model-checkpoint-rl-policy",
            filePath=path,
            lineNumber=65,
            sourceCode="\n".join(f"// line {n}" for n in range(63, 68)),
            sourceCodeStart=63,
            sourceCodeEnd=67,
            githubUrl=f"https://github.com/tracel-ai/burn/blob/{'a' * 40}/{path}#L60-L70",
            status="published",
        )
    )
    text = next(log.text for log in CORPUS if log.name == "rl-resume-policy-0.22.0-pre.2")

    answer = story_of(client, text)

    (finding,) = answer["story"]
    assert finding["entry"]["id"] == pinned.id and finding["entry"]["pinned"] is True
    learner = next(match for match in finding["also"] if match["message"] == LOAD_MODEL)
    assert (learner["fits"], learner["pinned"], learner["releases"]) == (
        "line",
        False,
        ["0.22.0-pre.2"],
    )
    assert answer["matches"][0]["id"] == pinned.id


def test_a_panic_no_entry_explains_names_the_burn_line_at_its_release(client, demo, burn_releases):
    text = next(log.text for log in NEGATIVES if log.name == "metric-logger-thread")

    (finding,) = story_of(client, text)["story"]

    releases = finding["upstream"].pop("releases")
    assert releases[0] == "0.13.0" and "0.20.0" in releases and "0.19.0-book" not in releases
    assert finding["upstream"] == {
        "repo": "tracel-ai/burn",
        "filePath": "crates/burn-train/src/logger/async_logger.rs",
        "lineNumber": 64,
        "release": "0.20.0",
        "commit": "3475ba82820f517e59f2da7fae2c56289b358de4",
        "message": "Can send message to logger thread.",
        "saysIt": True,
        "url": "https://github.com/tracel-ai/burn/blob/3475ba82820f517e59f2da7fae2c56289b358de4/"
        "crates/burn-train/src/logger/async_logger.rs#L64",
        "reviewed": False,
    }
    assert (finding["where"], finding["thread"], finding["kind"]) == ("upstream", "main", "panic")


def test_without_the_shipped_scan_a_panic_in_burns_crate_still_names_its_burn_line(client, demo):
    # No site index: the demo entries' files say which crates are burn's, and where their
    # folders are; the line holds no site the KB knows.
    text = next(log.text for log in NEGATIVES if log.name == "metric-logger-thread")

    (finding,) = story_of(client, text)["story"]

    assert (finding["role"], finding["entry"], finding["where"]) == ("cause", None, "upstream")
    upstream = finding["upstream"]
    assert (upstream["filePath"], upstream["lineNumber"], upstream["message"]) == (
        "crates/burn-train/src/logger/async_logger.rs",
        64,
        None,
    )
    assert finding["location"]["line"] == 64 and finding["location"]["version"] == "0.20.0"
    assert finding["message"] == "Can send message to logger thread.: SendError { .. }"


def test_a_panic_at_a_file_only_an_entrys_rows_name_is_told_as_that_burn_file(client, demo):
    # No site index: the demo entries' rows alone say which burn files the KB knows.
    path = "/home/ana/src/burn/crates/burn-train/src/learner/base.rs"
    text = rust_panic(path, 999, "attempt to subtract with overflow", column=9)

    (finding,) = story_of(client, text)["story"]

    upstream = finding["upstream"]
    assert (finding["role"], finding["where"], finding["entry"]) == ("cause", "upstream", None)
    assert (upstream["filePath"], upstream["lineNumber"], upstream["message"]) == (
        "crates/burn-train/src/learner/base.rs",
        999,
        None,
    )
    assert upstream["release"] == "0.22.0-pre.2" and upstream["reviewed"] is False


def test_the_command_tells_the_same_story_cause_first(demo, burn_releases, tmp_path):
    log = next(log for log in CORPUS if log.name == "cascade-0.20.0-backend-panic-on-the-worker")
    path = tmp_path / "train.log"
    path.write_text(log.text, encoding="utf-8")
    printed = StringIO()

    call_command("lookup", str(path), stdout=printed)

    lines = printed.getvalue().splitlines()
    assert lines[0] == "What happened:"
    assert lines[1].startswith("1. [LIKELY CAUSE] panic on thread '<unnamed>', text line 4, "
                               "release 0.20.0 (from the path)")  # fmt: skip
    assert (
        "   no reviewed entry yet: tracel-ai/burn crates/burn-fusion/src/stream/execution/"
        "ordering.rs:51 at 0.20.0: Ordering is bigger than operations"
    ) in lines
    roles = [line.split("]")[0] for line in lines if line[:1].isdigit() and "[" in line]
    assert roles[:4] == ["1. [LIKELY CAUSE"] + [
        f"{n}. [follows from an earlier panic" for n in (2, 3, 4)
    ]


def test_a_site_index_loaded_while_the_lookup_runs_is_read_by_the_next_lookup(client, demo):
    text = next(log.text for log in NEGATIVES if log.name == "metric-logger-thread")
    assert story_of(client, text)["story"][0]["upstream"]["message"] is None

    load_site_index()  # a write to a watched table: the lookup's index is rebuilt

    upstream = story_of(client, text)["story"][0]["upstream"]
    assert upstream["filePath"] == "crates/burn-train/src/logger/async_logger.rs"
