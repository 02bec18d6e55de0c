"""Texts as programs print them: Rust panics, Python tracebacks, and the log around them."""

import json
import random
import re

from tests.builders import DEMO_DATASET

# What burn's expect() sees in an Err, printed with {:?} after the message.
DEBUG_PAYLOADS = [
    'Os { code: 28, kind: StorageFull, message: "No space left on device" }',
    'Os { code: 13, kind: PermissionDenied, message: "Permission denied" }',
    'FileNotFound("/tmp/artifacts/checkpoint/model-3.mpk")',
    "SendError { .. }",
]


def rust_panic(path: str, line: int, message: str, *, column: int = 22, thread="main") -> str:
    """A panic as Rust 1.73 and later prints it: the location, then the message."""
    return (
        f"thread '{thread}' panicked at {path}:{line}:{column}:\n{message}\n"
        "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace"
    )


def old_rust_panic(path: str, line: int, message: str, *, column: int = 22) -> str:
    """A panic as Rust before 1.73 printed it: the message quoted, then the location."""
    return f"thread 'main' panicked at '{message}', {path}:{line}:{column}"


def python_traceback(frames: list[tuple[str, int, str]], exception: str) -> str:
    lines = ["Traceback (most recent call last):"]
    for path, line, function in frames:
        lines += [f'  File "{path}", line {line}, in {function}', "    do_the_thing()"]
    return "\n".join([*lines, exception])


def unrelated_log(lines: int, *, seed: int = 0) -> list[str]:
    """Lines of a training log that no entry's message is in."""
    rng = random.Random(seed)
    words = "epoch loss accuracy batch step lr warmup device cuda cpu train valid".split()
    return [
        f"2026-11-30T12:{rng.randrange(60):02d}:{rng.randrange(60):02d}Z INFO burn_train::"
        f"learner: {' '.join(rng.choice(words) for _ in range(6))} {rng.random():.5f}"
        for _ in range(lines)
    ]


def wrapped(text: str, *, before: int = 200, after: int = 150, seed: int = 0) -> str:
    log = unrelated_log(before + after, seed=seed)
    return "\n".join([*log[:before], text, *log[before:]])


def demo_records() -> list[dict]:
    return json.loads(DEMO_DATASET.read_text(encoding="utf-8"))["records"]


def printed_message(record: dict, payload: str) -> str:
    """The message as burn prints it: an expect() text then `: {:?}`, or format! filled in
    (each placeholder with the payload)."""
    message = record["errorMessage"]
    if "{" in message:
        return re.sub(r"\{[^{}]*\}", lambda _: payload, message)
    return f"{message}: {payload}"


def fixed_lines(record: dict) -> list[str]:
    """The lines of the message's fixed text (before its first placeholder) that a printed
    message shows whatever fills it."""
    return [line for line in record["errorMessage"].split("{", 1)[0].split("\n") if line]


def demo_panic(record: dict, index: int = 0) -> str:
    """What a terminal shows when the demo record's message is raised at its pinned line."""
    payload = DEBUG_PAYLOADS[index % len(DEBUG_PAYLOADS)]
    message = printed_message(record, payload)
    if record["errorType"] == "log":
        # burn logs this one (log::error!) rather than panicking.
        return f"2026-11-30T12:00:01Z ERROR burn_train::learner::supervised: {message}"
    return rust_panic(record["filePath"], record["lineNumber"], message)
