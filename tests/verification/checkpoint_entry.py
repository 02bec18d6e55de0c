"""An entry like the demo's "Can save model checkpoint.", built in code: raised with a
hand-made set-up in 0.20.0-pre.1 – pre.5 only; burn's own set-ups print something else."""

from tests.builders import import_records, make_record
from tests.verification.builders import link_scenario

MESSAGE = "Can save model checkpoint."
HAND_MADE = "a hand-made LearnerComponentTypes with a FileCheckpointer"
SUPERVISED = "standard supervised launcher (SupervisedTraining::launch)"
BUILDER = "LearnerBuilder::with_file_checkpointer"
INTERRUPTED = "Training interrupted: Record error: `Record I/O error: No space left on device`"
SHA = "a" * 40


def row(versions: str, setup: str, outcome: str, seen: str, **extra) -> dict:
    return {
        "versions": versions,
        "setup": setup,
        "outcome": outcome,
        "seen": seen,
        "filePath": "crates/burn-train/src/learner/base.rs",
        "lineNumber": 71,
        "commit": SHA,
        **extra,
    }


def raised_in(*releases: str) -> list[dict]:
    return [
        {
            "release": r,
            "commit": SHA,
            "filePath": "burn-train/src/learner/base.rs",
            "lineNumber": 65,
        }
        for r in releases
    ]


RELEASES = (
    "0.10.0",
    "0.12.1",
    "0.13.0",
    "0.19.1",
    "0.20.0-pre.1",
    "0.20.0-pre.3",
    "0.20.0-pre.5",
    "0.20.0-pre.6",
    "0.22.0-pre.2",
)


SUMMARY = (
    "burn's own set-ups never print this: a failed checkpoint write shows up as "
    "Training interrupted or Error when saving the state. Only a hand-made "
    "LearnerComponentTypes in 0.20.0-pre.1 – pre.5 prints it. Free space or fix the "
    "checkpoint directory's permissions, then resume."
)
SOLUTIONS = [
    "Search the log for `Training interrupted:` or `Error when saving the state:` and follow "
    "that entry.",
    "Check space and permissions of `<artifact dir>/checkpoint` (`df -h`, `df -i`).",
]
# As long as the demo's: the page must put the answer before it.
DOCUMENTATION = "\n\n".join(
    f"Paragraph {n}: `crates/burn-train/src/learner/base.rs:178` at v0.22.0-pre.2 calls "
    "`expect` on the model checkpointer's `save`, which " + "never fails there. " * 12
    for n in range(1, 6)
)


def checkpoint_entry(**overrides):
    """Like the demo's "Can save model checkpoint.": raised with a hand-made set-up in
    0.20.0-pre.1 – pre.5 only; burn's own set-ups print something else."""
    fields = {
        "repo": "tracel-ai/burn",
        "appliesTo": [
            row("0.20.0-pre.1 – 0.20.0-pre.5", HAND_MADE, "raised", MESSAGE),
            row(
                "main", SUPERVISED, "not raised", "Training interrupted: {reason}", note=INTERRUPTED
            ),
            row("0.13.0 – 0.19.1", BUILDER, "not raised", "Can save the state."),
        ],
        "raisedIn": raised_in(*RELEASES),
        "summary": SUMMARY,
        "solutions": SOLUTIONS,
        "documentation": DOCUMENTATION,
        "triggerScenarios": DOCUMENTATION,
    }
    record = make_record(MESSAGE, **{**fields, **overrides})
    return import_records(record)[0]


def learner_builder_absence(entry):
    """The v0.19.1 set-up, which prints "Can save the state." where the message would be."""
    return link_scenario(
        entry,
        "learner-builder-directory-at-model-path",
        message="Can save the state.",
        expected_pattern=r"Can save the state\.",
        proves=["Can save the state."],
        disproves=[MESSAGE],
        release="v0.19.1",
        setup="learner-builder",
        setup_summary="LearnerBuilder::with_file_checkpointer(CompactRecorder)",
    )
