"""The demo entries' mechanism claims: how many workers die, whether a strategy deletes, what
Rust does when a second Drop panics. Each test holds a claim that an audit of burn's source
found wrong once, so the false sentence cannot come back; the claims a run can show are tied
to the trainer's scenario that shows them."""

import json
import re

import pytest

from tests.builders import DEMO_DATASET
from trainer import burn
from trainer.scenarios import SCENARIOS, get

SAVE_FAILED = burn.ASYNC["save_failed"].text.format
SEND_END = burn.ASYNC["send_end"].text.format
RL_DELETES = {burn.RL["delete", name].text.format for name in burn.RL_COMPONENTS}
SCENARIO_NAMES = {s.name for s in SCENARIOS}
# The scenario the entries cite for "a volume fault kills every worker and the run aborts".
ALL_WORKERS_DIE = "rl-read-only-volume-last-evaluation"
NAMED_SCENARIO = r"trainer(?:'s)? scenarios? `?([a-z0-9]+(?:-[a-z0-9]+)+)(-\*)?"


@pytest.fixture(scope="module")
def records():
    return json.loads(DEMO_DATASET.read_text(encoding="utf-8"))["records"]


@pytest.fixture(scope="module")
def by_message(records):
    return {r["errorMessage"]: r for r in records}


def _texts(record: dict) -> list[str]:
    """Every string an entry shows a reader, rows included."""
    out: list[str] = []

    def walk(value):
        if isinstance(value, str):
            out.append(value)
        elif isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk({k: v for k, v in record.items() if k not in ("sourceCode", "related", "raisedIn")})
    return out


def _sentences(record: dict) -> list[str]:
    return [s for text in _texts(record) for s in re.split(r"(?<=[.;])\s+(?=[A-Z(])", text)]


def test_it_says_drop_ends_in_an_ordinary_panic_only_when_exactly_one_worker_died(records):
    for record in records:
        for sentence in _sentences(record):
            if "exit status 101" in sentence or "without the abort" in sentence:
                assert "exactly one" in sentence or "only one worker" in sentence, (
                    record["errorMessage"],
                    sentence,
                )


def test_the_scenario_cited_for_a_volume_fault_kills_every_worker_and_aborts(records):
    cited = [s for r in records for s in _sentences(r) if ALL_WORKERS_DIE in s]
    assert cited, "no entry links the scenario that shows the abort"
    scenario = get(ALL_WORKERS_DIE)
    components = burn.SETUPS[scenario.setup].components
    assert scenario.fault in ("read-only", "disk-full")
    assert scenario.expected_signal == burn.ABORT_SIGNAL
    # every worker's save fails, and the Drop of each dead worker panics: the second aborts
    # A panic is three texts (the hook's log line, its banner, the report): one for each
    # worker's save, and one for each dead worker's Drop, the last followed by the abort.
    shown = "\n".join(e.pattern.replace("\\", "") for e in scenario.expected)
    assert len(scenario.expected) >= 3 * (len(components) + 2)
    assert SAVE_FAILED.split(":")[0] in shown and SEND_END.split(".")[0] in shown
    assert SEND_END in scenario.proves


def test_every_trainer_scenario_an_entry_names_exists(records):
    for record in records:
        for text in _texts(record):
            for name, wildcard in re.findall(NAMED_SCENARIO, text):
                if wildcard:  # `hand-built-*`: the scenarios whose names start so
                    assert any(n.startswith(name + "-") for n in SCENARIO_NAMES), name
                else:
                    assert name in SCENARIO_NAMES, (record["errorMessage"], name)


def test_the_rl_rows_of_the_delete_failure_name_a_strategy_that_deletes(by_message):
    record = by_message["Error when deleting the state: {err}"]
    rl_rows = [row for row in record["appliesTo"] if row["setup"].startswith("RL paradigm")]
    assert rl_rows
    for row in rl_rows:
        if row["outcome"] == "raised":
            assert "with_checkpointing_strategy(" in row["setup"], row
    assert "deletes old policy and learning-agent checkpoints" not in record["documentation"]
    assert "never deletes a saved step" in record["documentation"]


def test_the_default_rl_strategy_scenario_sends_no_delete():
    scenario = get(ALL_WORKERS_DIE)
    assert burn.SETUPS[scenario.setup].strategy == "composed"
    assert scenario.epoch >= 3  # several evaluations ran before the fault
    assert RL_DELETES <= set(scenario.disproves)
    assert burn.ASYNC["delete_failed"].text.format in scenario.disproves


def test_no_entry_calls_a_directory_that_denies_removal_a_delete_only_failure(records, by_message):
    for record in records:
        for text in _texts(record):
            assert "a directory that denies removal" not in text, record["errorMessage"]
    send = by_message["Can send message to checkpointer thread."]
    assert "write permission on the directory" not in " ".join(send["solutions"])
    # a directory the user cannot write fails the round's Save first
    assert "(EACCES) or a read-only volume (EROFS) does not do it" in send["triggerScenarios"]


@pytest.mark.parametrize(
    ("message", "first"),
    [
        ("Can delete optimizer checkpoint.", "Can delete model checkpoint."),
        ("Can delete learning rate scheduler checkpoint.", "Can delete model checkpoint."),
        # the policy's Save and Delete go before the learning agent's (rl/checkpointer.rs)
        ("Can delete learning agent checkpoint.", "Can delete policy checkpoint."),
    ],
)
def test_the_delete_texts_of_later_checkpointers_need_their_write_to_fail_alone(
    by_message, message, first
):
    record = by_message[message]
    triggers = record["triggerScenarios"]
    assert f"`{first}` instead" in triggers, message
    # the causes listed for this text fail its write alone: a fault of the whole directory
    # fails the first checkpointer's write too, and is named only as the cause of `first`
    causes = re.search(r"then fails (.*?) and with no interrupter", triggers)
    assert causes, message
    for fault in ("EROFS", "read-only", "EACCES", "permission", "ENOENT", "removed"):
        assert fault not in causes[1], (message, fault)
    assert "read-only" not in record["commonSituations"], message


def test_no_entry_says_the_scheduler_file_is_not_written_last(records):
    for record in records:
        for text in _texts(record):
            assert "not written last" not in text, record["errorMessage"]
            assert "none is written last" not in text, record["errorMessage"]


def test_the_end_message_entry_says_the_interrupter_saves_no_worker_from_a_backend_panic(
    by_message,
):
    doc = by_message["Can send the end message to the checkpointer thread."]["documentation"]
    assert "since its interrupter keeps the workers alive:" not in doc
    assert "a backend panic while the worker converts the record still kills it" in doc


def test_the_banner_count_holds_only_when_one_worker_died(records):
    for record in records:
        for sentence in _sentences(record):
            if "four banners" in sentence:
                assert "when one worker died" in sentence, record["errorMessage"]


def test_no_entry_says_the_learner_save_texts_never_appear(by_message):
    doc = by_message["Can send message to checkpointer thread."]["documentation"]
    assert "texts never appear" not in doc
    assert "0.20.0-pre.1 – 0.20.0-pre.5" in doc


def test_no_entry_says_a_failed_read_kills_the_worker(records):
    for record in records:
        for text in _texts(record):
            assert "failed save, delete or read" not in text, record["errorMessage"]


@pytest.mark.parametrize(
    "message",
    [
        "Can delete model checkpoint.",
        "Can delete optimizer checkpoint.",
        "Can delete learning rate scheduler checkpoint.",
        "Can delete learning agent checkpoint.",
        "Can delete policy checkpoint.",
        "Can send message to checkpointer thread.",
    ],
)
def test_save_before_delete_is_said_of_keep_last_n_and_composed_not_of_the_metric_strategy(
    by_message, message
):
    # metric.rs pushes Delete(previous best) before Save, so a metric strategy alone deletes
    # first: the round's Save is not what fails first on a read-only or unwritable directory
    triggers = by_message[message]["triggerScenarios"]
    assert "`MetricCheckpointingStrategy` alone" in triggers, message
    assert "metric.rs:49–56" in triggers, message
    assert "A checkpoint round runs its Save first and then any Delete (composed.rs" not in triggers
    assert "the policy's Save comes first, composed.rs" not in triggers


@pytest.mark.parametrize(
    "message",
    ["Can delete optimizer checkpoint.", "Can delete learning rate scheduler checkpoint."],
)
def test_the_delete_that_follows_in_the_round_is_told_before_the_whole_volume_case(
    by_message, message
):
    # "The Delete that follows in the same round" belongs to this text's own chain; the
    # read-only volume that panics at the model's Delete instead comes after that chain
    triggers = by_message[message]["triggerScenarios"]
    chain = triggers.index("The Delete that follows in the same round")
    volume = triggers.index("A read-only volume (EROFS)")
    assert chain < volume, message


def test_rl_rows_with_the_file_checkpointer_start_at_its_first_pre_release(records):
    # RLTraining::with_file_checkpointer and its AsyncCheckpointer::new without interrupter
    # are there from 0.21.0-pre.1 (rl/paradigm.rs:286, 298-299), the cited lines unchanged
    for record in records:
        for row in record["appliesTo"]:
            if "RLTraining::with_file_checkpointer" in row["setup"]:
                assert row["versions"] != "0.21.0", (record["errorMessage"], row)
