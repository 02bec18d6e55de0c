"""What users paste: burn's record and checkpoint texts inside their own `unwrap()`, inside a
Debug string (newlines and quotes escaped), inside the learner's panic, and as logged.

Each text below is written the way the program prints it, from burn's format strings
and Rust's: `Result::unwrap` prints ``called `Result::unwrap()` on an `Err` value: {:?}``,
and the Debug of a String escapes its newlines and quotes.
"""

import pytest

from tests.lookup.texts import demo_records, rust_panic, wrapped

RECORDS = {record["errorMessage"]: record for record in demo_records()}
USER_CODE = "src/main.rs"
REGISTRY = "/home/u/.cargo/registry/src/index.crates.io-6f17d22bba15001f"
BANNER = (
    "=== PANIC ===\nA fatal error happened, you can check the experiment logs here => '{}'"
    "\n============="
)


def unwrapped(debug: str) -> str:
    """The user's own `.unwrap()` on burn's error, at a line of their code."""
    return rust_panic(USER_CODE, 41, f"called `Result::unwrap()` on an `Err` value: {debug}")


def debug_str(text: str) -> str:
    """Rust's Debug of a String: quoted, newlines and quotes escaped."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def anyhow_error(text: str) -> str:
    """`main() -> anyhow::Result<()>` ending on an error whose Debug carries the text."""
    return f"Error: Custom {{ kind: Other, error: {debug_str(text)} }}"


RECORDER_MESSAGE = (
    "Unable to load record.\n"
    'Metadata has a different Burn version: Actual "0.8.0", Expected "0.13.0"\n'
    'Error: Unknown("missing field `weight`")'
)
OS_ENOENT = "No such file or directory (os error 2)"
CLOSED = 'Unknown("sending on a closed channel")'
TRUNCATED = "File truncated: expected at least 4096 bytes, got 100 bytes"
METADATA = 'Metadata deserialization error: Semantic(None, "invalid type: string")'
DELETING = "Error when deleting the state: I/O Error: `Operation not permitted (os error 1)`"
CALLBACK = "Error when sending response through callback channel: sending on a closed channel"
LOGGED = "PANIC => panicked at crates/burn-train/src/checkpoint/async_checkpoint.rs:46:32:"
PRINTED = {
    "Unable to load record.": [
        unwrapped(f"Unknown({debug_str(RECORDER_MESSAGE)})"),
        rust_panic(
            f"{REGISTRY}/burn-train-0.13.0/src/learner/base.rs",
            92,
            f"Can load model checkpoint.: RecorderError(Unknown({debug_str(RECORDER_MESSAGE)}))",
            column=14,
        ),
        anyhow_error(RECORDER_MESSAGE),
    ],
    "Invalid magic number": [
        unwrapped('Io("Invalid magic number")'),
        rust_panic(
            "crates/burn-core/src/module/base.rs",
            337,
            'Failed to load module from file: Io("Invalid magic number")',
            column=14,
        ),
        anyhow_error("Invalid magic number"),
    ],
    "Unsupported version": [
        unwrapped('Io("Unsupported version")'),
        anyhow_error("Unsupported version"),
    ],
    "File truncated: expected at least {min_size} bytes, got {available} bytes": [
        unwrapped(f'Io("Validation error: {TRUNCATED}")'),
        rust_panic(
            "crates/burn-train/src/learner/base.rs",
            200,
            f'Can load model checkpoint.: Record(Io("Validation error: {TRUNCATED}"))',
            column=14,
        ),
        anyhow_error(f"Validation error: {TRUNCATED}"),
    ],
    "Metadata deserialization error: {}": [
        unwrapped(f"Io({debug_str(METADATA)})"),
        anyhow_error(METADATA),
    ],
    "Error when deleting the state: {err}": [
        rust_panic(
            "crates/burn-train/src/checkpoint/async_checkpoint.rs",
            54,
            DELETING,
            column=32,
            thread="<unnamed>",
        ),
        anyhow_error(DELETING),
    ],
    "Error when sending response through callback channel: {err}": [
        rust_panic("crates/burn-train/src/checkpoint/async_checkpoint.rs", 35, CALLBACK, column=25),
        anyhow_error(CALLBACK),
    ],
    "The checkpointer thread should stop.": [
        rust_panic(
            "crates/burn-train/src/checkpoint/async_checkpoint.rs",
            155,
            "The checkpointer thread should stop.: Any { .. }",
            column=18,
        ),
        anyhow_error("The checkpointer thread should stop.: Any { .. }"),
    ],
    "Can delete learning agent checkpoint.": [
        rust_panic(
            "crates/burn-train/src/learner/rl/checkpointer.rs",
            42,
            f"Can delete learning agent checkpoint.: {CLOSED}",
            column=26,
        ),
        anyhow_error(f"Can delete learning agent checkpoint.: {CLOSED}"),
    ],
    "Can save policy checkpoint.": [
        rust_panic(
            "crates/burn-train/src/learner/rl/checkpointer.rs",
            47,
            f"Can save policy checkpoint.: {CLOSED}",
            column=26,
        ),
        anyhow_error(f"Can save policy checkpoint.: {CLOSED}"),
    ],
    "Can save learning agent checkpoint.": [
        rust_panic(
            "crates/burn-train/src/learner/rl/checkpointer.rs",
            50,
            f"Can save learning agent checkpoint.: {CLOSED}",
            column=26,
        ),
        anyhow_error(f"Can save learning agent checkpoint.: {CLOSED}"),
    ],
    "Can load learning agent checkpoint.": [
        rust_panic(
            "crates/burn-train/src/learner/rl/checkpointer.rs",
            71,
            f'Can load learning agent checkpoint.: Record(Io("I/O error: {OS_ENOENT}"))',
            column=14,
        ),
        anyhow_error(f'Can load learning agent checkpoint.: Record(Io("I/O error: {OS_ENOENT}"))'),
    ],
    "PANIC => {info}": [
        f"2026-12-03T07:00:01.000Z ERROR burn_train::learner::application_logger: {LOGGED}\n"
        "Error when saving the state: Record error: `x`",
        anyhow_error(f"{LOGGED}\nError when saving the state: Record error: `x`"),
    ],
    BANNER: [
        BANNER.replace("{}", "/runs/exp1/experiment.log"),
        anyhow_error(BANNER.replace("{}", "/runs/exp1/experiment.log")),
    ],
    "Cannot move between autodiff and non-autodiff instances.": [
        rust_panic(
            f"{REGISTRY}/burn-dispatch-0.21.0/src/ops/tensor.rs",
            39,
            "Cannot move between autodiff and non-autodiff instances.",
            column=9,
        ),
        anyhow_error("Cannot move between autodiff and non-autodiff instances."),
    ],
}


def look_up(client, text: str) -> list[dict]:
    response = client.post("/api/lookup", {"text": text}, content_type="application/json")
    assert response.status_code == 200, response.content
    return response.json()["matches"]


CASES = [
    (message, index, text) for message, texts in PRINTED.items() for index, text in enumerate(texts)
]


@pytest.mark.parametrize(
    "message,text", [(m, t) for m, _, t in CASES], ids=[f"{m[:40]}-{i}" for m, i, _ in CASES]
)
def test_it_finds_the_entry_of_burns_text_as_users_paste_it(client, demo, message, text):
    found = look_up(client, wrapped(text))

    assert RECORDS[message]["id"] in [match["id"] for match in found]


def test_every_entry_this_file_names_is_in_the_demo_dataset():
    assert set(PRINTED) <= set(RECORDS)
