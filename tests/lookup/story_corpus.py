"""Logs as burn users paste them, each with the story a lookup must tell.

Every text below is burn's own, at the file, line and release that raises it there (the
shipped scan of burn's release tags, errorkb/upstream/fixtures/burn-releases.json.gz,
holds each site; the checkpoint lines are the demo entries' rows), printed the way Rust
and burn print it: Rust's panic message before and after 1.73 and with a thread id,
the `{:?}` of the error after an `expect()` text, burn's `PANIC => ` log line and its
`=== PANIC ===` banner, the user's own `unwrap()` and `expect()` around burn's error,
main's `Error: {:?}`; with registry, Windows and local-checkout paths, Markdown's
indents and quotes, a terminal's codes and frames, and cut off.

A log's expected story is its findings other than context, in order, each as
(role, what explains it, release): an entry's message, "site PATH:LINE" for the burn
line with no reviewed entry yet, "rust" for Rust's runtime, "none" for nothing.
"""

from dataclasses import dataclass

REGISTRY = "/home/ana/.cargo/registry/src/index.crates.io-6f17d22bba15001f"
OLD_REGISTRY = "/home/ana/.cargo/registry/src/github.com-1ecc6299db9ec823"
WINDOWS_REGISTRY = r"C:\Users\ana\.cargo\registry\src\index.crates.io-6f17d22bba15001f"
CHECKOUT = "/home/ana/src/burn"
NOTE = "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace"
ABORT = "thread caused non-unwinding panic. aborting."

SAVE = "Error when saving the state: {err}"
DELETE = "Error when deleting the state: {err}"
SEND = "Can send message to checkpointer thread."
END = "Can send the end message to the checkpointer thread."
LOAD_MODEL = "Can load model checkpoint."
UNABLE = "Unable to load record."

ENOSPC = "I/O Error: `No space left on device (os error 28)`"
EPERM = "I/O Error: `Operation not permitted (os error 1)`"
SEND_ERROR = "SendError { .. }"
CLOSED = 'Unknown("sending on a closed channel")'


def registry(crate: str, version: str, rest: str) -> str:
    return f"{REGISTRY}/{crate}-{version}/src/{rest}"


def panic(path: str, line: int, column: int, message: str, *, thread="main", tid=None) -> str:
    """Rust 1.73 and later: the location on the header line, the message below it."""
    thread_id = f" ({tid})" if tid else ""
    return f"thread '{thread}'{thread_id} panicked at {path}:{line}:{column}:\n{message}"


def old_panic(path: str, line: int, column: int, message: str, *, thread="main") -> str:
    """Rust before 1.73: the message quoted on the header line, then the location."""
    return f"thread '{thread}' panicked at '{message}', {path}:{line}:{column}"


def logged(path: str, line: int, column: int, message: str, *, at="10:02:11.481") -> str:
    """burn's panic hook in experiment.log: `log::error!("PANIC => {info}")`."""
    return (
        f"2026-11-28T{at}Z ERROR burn_train::learner::application_logger: "
        f"PANIC => panicked at {path}:{line}:{column}:\n{message}"
    )


def banner(log: str = "/runs/exp1/experiment.log") -> str:
    return (
        "=== PANIC ===\nA fatal error happened, you can check the experiment logs here => "
        f"'{log}'\n============="
    )


def abort() -> str:
    """Rust's runtime when a destructor panics while the thread unwinds."""
    return panic(
        "library/core/src/panicking.rs", 226, 5, "panic in a destructor during cleanup"
    ) + (f"\n{ABORT}")


def debug_str(text: str) -> str:
    """Rust's Debug of a String: quoted, newlines and quotes escaped."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def unwrap(debug: str) -> str:
    return f"called `Result::unwrap()` on an `Err` value: {debug}"


def training_log(lines: int = 3) -> str:
    return "\n".join(
        f"2026-11-28T10:0{i}:00.000Z  INFO burn_train::learner::epoch: Epoch {i + 1}/10 "
        f"loss {0.9 - i * 0.1:.3f}"
        for i in range(lines)
    )


RECORDER_TEXT = (
    "Unable to load record.\n"
    'Metadata has a different Burn version: Actual "0.8.0", Expected "0.13.0"\n'
    'Error: Unknown("missing field `weight`")'
)
RECORDER_DEBUG = f"Unknown({debug_str(RECORDER_TEXT)})"
RECORDER_DEBUG_0_19_1 = "Unknown({})".format(
    debug_str(
        "Unable to load record.\n"
        'Metadata has a different Burn version: Actual "0.18.0", Expected "0.19.1"\n'
        'Error: Unknown("invalid length 2, expected a sequence of 3 elements")'
    )
)


@dataclass(frozen=True)
class Log:
    name: str
    text: str
    story: list[tuple[str, str, str | None]]


def cascade_0_20_0(cause_path: str, cause_line: int, cause: str) -> str:
    return "\n".join(
        [
            training_log(),
            panic(cause_path, cause_line, 32, cause, thread="<unnamed>"),
            NOTE,
            panic(
                registry("burn-train", "0.20.0", "checkpoint/async_checkpoint.rs"),
                123,
                14,
                f"{SEND}: {SEND_ERROR}",
            ),  # fmt: skip
            panic(
                registry("burn-train", "0.20.0", "checkpoint/async_checkpoint.rs"),
                162,
                14,
                f"{END}: {SEND_ERROR}",
            ),  # fmt: skip
            abort(),
        ]
    )


CASCADES = [
    Log(
        "cascade-0.20.0-save-failed",
        cascade_0_20_0(
            registry("burn-train", "0.20.0", "checkpoint/async_checkpoint.rs"),
            49,
            f"Error when saving the state: {ENOSPC}",
        ),
        [
            ("cause", SAVE, "0.20.0"),
            ("consequence", SEND, "0.20.0"),
            ("consequence", END, "0.20.0"),
            ("consequence", "rust", "0.20.0"),
        ],
    ),
    Log(
        "cascade-0.20.0-backend-panic-on-the-worker",
        cascade_0_20_0(
            registry("burn-fusion", "0.20.0", "stream/execution/ordering.rs"),
            51,
            "Ordering is bigger than operations",
        ),
        [
            ("cause", "site crates/burn-fusion/src/stream/execution/ordering.rs:51", "0.20.0"),
            ("consequence", SEND, "0.20.0"),
            ("consequence", END, "0.20.0"),
            ("consequence", "rust", "0.20.0"),
        ],
    ),
    Log(
        "cascade-0.21.0-thread-ids-autodiff-panic-first",
        "\n".join(
            [
                panic(
                    registry("burn-autodiff", "0.21.0", "checkpoint/builder.rs"),
                    223,
                    17,
                    "Node NodeId { value: 41 } is needed but never checkpointed",
                    thread="<unnamed>",
                    tid=141491,
                ),  # fmt: skip
                NOTE,
                panic(
                    registry("burn-train", "0.21.0", "checkpoint/async_checkpoint.rs"),
                    123,
                    14,
                    f"{SEND}: {SEND_ERROR}",
                    tid=141484,
                ),  # fmt: skip
                panic(
                    registry("burn-train", "0.21.0", "checkpoint/async_checkpoint.rs"),
                    162,
                    14,
                    f"{END}: {SEND_ERROR}",
                    tid=141484,
                ),  # fmt: skip
                abort(),
            ]
        ),
        [
            ("cause", "site crates/burn-autodiff/src/checkpoint/builder.rs:223", "0.21.0"),
            ("consequence", SEND, "0.21.0"),
            ("consequence", END, "0.21.0"),
            ("consequence", "rust", "0.21.0"),
        ],
    ),
    Log(
        "cascade-0.22.0-pre.2-delete-failed",
        "\n".join(
            [
                panic(
                    registry("burn-train", "0.22.0-pre.2", "checkpoint/async_checkpoint.rs"),
                    54,
                    32,
                    f"Error when deleting the state: {EPERM}",
                    thread="<unnamed>",
                ),  # fmt: skip
                NOTE,
                panic(
                    registry("burn-train", "0.22.0-pre.2", "checkpoint/async_checkpoint.rs"),
                    118,
                    14,
                    f"{SEND}: {SEND_ERROR}",
                ),  # fmt: skip
                panic(
                    registry("burn-train", "0.22.0-pre.2", "checkpoint/async_checkpoint.rs"),
                    149,
                    14,
                    f"{END}: {SEND_ERROR}",
                ),  # fmt: skip
                abort(),
            ]
        ),
        [
            ("cause", DELETE, "0.22.0-pre.2"),
            ("consequence", SEND, "0.22.0-pre.2"),
            ("consequence", END, "0.22.0-pre.2"),
            ("consequence", "rust", "0.22.0-pre.2"),
        ],
    ),
    Log(
        "cascade-0.19.1-can-save-the-state",
        "\n".join(
            [
                panic(
                    registry("burn-train", "0.19.1", "checkpoint/async_checkpoint.rs"),
                    40,
                    18,
                    'Can save the state.: Io("No space left on device (os error 28)")',
                    thread="<unnamed>",
                ),  # fmt: skip
                NOTE,
                panic(
                    registry("burn-train", "0.19.1", "checkpoint/async_checkpoint.rs"),
                    94,
                    14,
                    f"{SEND}: {SEND_ERROR}",
                ),  # fmt: skip
                panic(
                    registry("burn-train", "0.19.1", "checkpoint/async_checkpoint.rs"),
                    128,
                    14,
                    f"{END}: {SEND_ERROR}",
                ),  # fmt: skip
            ]
        ),
        [
            ("cause", "Can save the state.", "0.19.1"),
            ("consequence", SEND, "0.19.1"),
            ("consequence", END, "0.19.1"),
        ],
    ),
    Log(
        "cascade-0.19.1-delete-failed-no-entry-yet",
        "\n".join(
            [
                panic(
                    registry("burn-train", "0.19.1", "checkpoint/async_checkpoint.rs"),
                    44,
                    18,
                    'Can delete the state.: Io("Permission denied (os error 13)")',
                    thread="<unnamed>",
                ),  # fmt: skip
                NOTE,
                panic(
                    registry("burn-train", "0.19.1", "checkpoint/async_checkpoint.rs"),
                    94,
                    14,
                    f"{SEND}: {SEND_ERROR}",
                ),  # fmt: skip
            ]
        ),
        [
            ("cause", "site crates/burn-train/src/checkpoint/async_checkpoint.rs:44", "0.19.1"),
            ("consequence", SEND, "0.19.1"),
        ],
    ),
    Log(
        "cascade-whose-first-panic-was-not-pasted",
        "\n".join(
            [
                panic(
                    registry("burn-train", "0.21.0", "checkpoint/async_checkpoint.rs"),
                    123,
                    14,
                    f"{SEND}: {SEND_ERROR}",
                ),  # fmt: skip
                panic(
                    registry("burn-train", "0.21.0", "checkpoint/async_checkpoint.rs"),
                    162,
                    14,
                    f"{END}: {SEND_ERROR}",
                ),  # fmt: skip
                abort(),
            ]
        ),
        [
            ("consequence", SEND, "0.21.0"),
            ("consequence", END, "0.21.0"),
            ("consequence", "rust", "0.21.0"),
        ],
    ),
    Log(
        "cascade-0.21.0-learner-delete-after-a-failed-save",
        "\n".join(
            [
                panic(
                    registry("burn-train", "0.21.0", "checkpoint/async_checkpoint.rs"),
                    49,
                    32,
                    f"Error when saving the state: {ENOSPC}",
                    thread="<unnamed>",
                ),  # fmt: skip
                NOTE,
                panic(
                    registry("burn-train", "0.21.0", "learner/base.rs"),
                    160,
                    14,
                    f"Can delete model checkpoint.: {CLOSED}",
                ),  # fmt: skip
            ]
        ),
        [("cause", SAVE, "0.21.0"), ("consequence", "Can delete model checkpoint.", "0.21.0")],
    ),
    Log(
        "cascade-0.22.0-pre.2-rl-delete-after-a-failed-save",
        "\n".join(
            [
                panic(
                    registry("burn-train", "0.22.0-pre.2", "checkpoint/async_checkpoint.rs"),
                    46,
                    32,
                    f"Error when saving the state: {ENOSPC}",
                    thread="<unnamed>",
                ),  # fmt: skip
                NOTE,
                panic(
                    registry("burn-train", "0.22.0-pre.2", "learner/rl/checkpointer.rs"),
                    42,
                    26,
                    f"Can delete learning agent checkpoint.: {CLOSED}",
                ),  # fmt: skip
            ]
        ),
        [
            ("cause", SAVE, "0.22.0-pre.2"),
            ("consequence", "Can delete learning agent checkpoint.", "0.22.0-pre.2"),
        ],
    ),
    Log(
        "cascade-0.21.0-rl-policy-delete-after-a-failed-save",
        "\n".join(
            [
                panic(
                    registry("burn-train", "0.21.0", "checkpoint/async_checkpoint.rs"),
                    49,
                    32,
                    f"Error when saving the state: {ENOSPC}",
                    thread="<unnamed>",
                ),  # fmt: skip
                NOTE,
                panic(
                    registry("burn-train", "0.21.0", "learner/rl/checkpointer.rs"),
                    36,
                    26,
                    f"Can delete policy checkpoint.: {CLOSED}",
                ),  # fmt: skip
            ]
        ),
        [("cause", SAVE, "0.21.0"), ("consequence", "Can delete policy checkpoint.", "0.21.0")],
    ),
    Log(
        "cascade-0.22.0-pre.1-optimizer-delete-after-a-failed-save",
        "\n".join(
            [
                training_log(),
                panic(
                    registry("burn-train", "0.22.0-pre.1", "checkpoint/async_checkpoint.rs"),
                    46,
                    32,
                    f"Error when saving the state: {ENOSPC}",
                    thread="<unnamed>",
                ),  # fmt: skip
                NOTE,
                panic(
                    registry("burn-train", "0.22.0-pre.1", "learner/base.rs"),
                    170,
                    14,
                    f"Can delete optimizer checkpoint.: {CLOSED}",
                ),  # fmt: skip
            ]
        ),
        [
            ("cause", SAVE, "0.22.0-pre.1"),
            ("consequence", "Can delete optimizer checkpoint.", "0.22.0-pre.1"),
        ],
    ),
]

RECORDS = [
    Log(
        "learner-resume-0.20.0-pre.6",
        panic(
            registry("burn-train", "0.20.0-pre.6", "learner/base.rs"),
            148,
            14,
            'Can load model checkpoint.: Record(Io("I/O error: No such file or directory '
            '(os error 2)"))',
        ),  # fmt: skip
        [("cause", LOAD_MODEL, "0.20.0-pre.6")],
    ),
    Log(
        "learner-resume-0.10.0-before-rust-1.73-top-level-crates",
        old_panic(
            f"{OLD_REGISTRY}/burn-train-0.10.0/src/learner/base.rs",
            87,
            14,
            f"Can load model checkpoint.: RecorderError({RECORDER_DEBUG})",
        ),  # fmt: skip
        [("cause", LOAD_MODEL, "0.10.0")],
    ),
    Log(
        "user-unwrap-0.19.1-from-compiling-burn",
        "\n".join(
            [
                "   Compiling burn v0.19.1",
                "   Compiling my-classifier v0.3.0 (/home/ana/my-classifier)",
                "     Running `target/debug/my-classifier infer --model artifacts/model`",
                panic("src/infer.rs", 19, 14, unwrap(RECORDER_DEBUG_0_19_1)),
            ]
        ),
        [("cause", UNABLE, "0.19.1")],
    ),
    Log(
        "user-unwrap-around-load-file-0.13.0-from-compiling-lines",
        "\n".join(
            [
                "   Compiling burn-core v0.13.0",
                "   Compiling burn-train v0.13.0",
                "   Compiling mnist-infer v0.1.0 (/home/ana/mnist-infer)",
                "    Finished `release` profile [optimized] target(s) in 1m 02s",
                "     Running `target/release/mnist-infer`",
                panic("src/main.rs", 41, 10, unwrap(RECORDER_DEBUG)),
                NOTE,
            ]
        ),
        [("cause", UNABLE, "0.13.0")],
    ),
    Log(
        "learner-resume-0.13.0-registry",
        panic(
            registry("burn-train", "0.13.0", "learner/base.rs"),
            91,
            14,
            f"Can load model checkpoint.: RecorderError({RECORDER_DEBUG})",
        ),  # fmt: skip
        [("cause", LOAD_MODEL, "0.13.0")],
    ),
    Log(
        "learner-resume-0.19.1-windows-registry",
        panic(
            WINDOWS_REGISTRY + r"\burn-train-0.19.1\src\learner\base.rs",
            92,
            14,
            'Can load model checkpoint.: Io("I/O error: The system cannot find the file '
            'specified. (os error 2)")',
        ),  # fmt: skip
        [("cause", LOAD_MODEL, "0.19.1")],
    ),
    Log(
        "learner-resume-0.12.1-before-rust-1.73",
        old_panic(
            f"{OLD_REGISTRY}/burn-train-0.12.1/src/learner/base.rs",
            89,
            14,
            f"Can load model checkpoint.: RecorderError({RECORDER_DEBUG})",
        ),  # fmt: skip
        [("cause", LOAD_MODEL, "0.12.1")],
    ),
    Log(
        "user-unwrap-before-rust-1.73-windows",
        old_panic(r"src\main.rs", 113, 70, unwrap(RECORDER_DEBUG)),
        [("cause", UNABLE, None)],
    ),
    Log(
        "user-expect-around-the-recorder",
        panic(
            "src/train.rs", 88, 10, f"Failed to resume from the last checkpoint: {RECORDER_DEBUG}"
        ),  # fmt: skip
        [("cause", UNABLE, None)],
    ),
    Log(
        "anyhow-main-returns-the-recorder-error",
        f"{training_log(1)}\nError: {RECORDER_DEBUG}",
        [("cause", UNABLE, None)],
    ),
    Log(
        "burnpack-magic-number-local-checkout-0.22.0-pre.2",
        panic(
            f"{CHECKOUT}/crates/burn-core/src/module/base.rs",
            337,
            14,
            'Failed to load module from file: Io("Invalid magic number")',
        ),  # fmt: skip
        [("cause", "Failed to load module from file", None)],
    ),
    Log(
        "burnpack-magic-number-registry-0.22.0-pre.1",
        panic(
            registry("burn-core", "0.22.0-pre.1", "module/base.rs"),
            304,
            14,
            'Failed to load module from file: Io("Invalid magic number")',
        ),  # fmt: skip
        [("cause", "Failed to load module from file", "0.22.0-pre.1")],
    ),
    Log(
        "burnpack-load-record-truncated-0.22.0-pre.2",
        panic(
            registry("burn-core", "0.22.0-pre.2", "module/base.rs"),
            309,
            14,
            'Failed to load record: Io("Validation error: File truncated: expected at least '
            '4096 bytes, got 100 bytes")',
        ),  # fmt: skip
        [("cause", "Failed to load record", "0.22.0-pre.2")],
    ),
    Log(
        "resume-on-the-default-device-0.21.0",
        panic(
            registry("burn-dispatch", "0.21.0", "ops/tensor.rs"),
            39,
            9,
            "Cannot move between autodiff and non-autodiff instances.",
        ),  # fmt: skip
        [("cause", "Cannot move between autodiff and non-autodiff instances.", "0.21.0")],
    ),
    Log(
        "rl-resume-missing-agent-0.21.0",
        panic(
            registry("burn-train", "0.21.0", "learner/rl/checkpointer.rs"),
            69,
            14,
            'Can load learning agent checkpoint.: Record(Io("I/O error: No such file or '
            'directory (os error 2)"))',
        ),  # fmt: skip
        [("cause", "Can load learning agent checkpoint.", "0.21.0")],
    ),
    Log(
        "rl-resume-policy-0.22.0-pre.2",
        panic(
            registry("burn-train", "0.22.0-pre.2", "learner/rl/checkpointer.rs"),
            65,
            14,
            'Can load model checkpoint.: Record(Io("I/O error: No such file or directory '
            '(os error 2)"))',
        ),  # fmt: skip
        [("cause", LOAD_MODEL, "0.22.0-pre.2")],
    ),
    Log(
        "learner-resume-optimizer-0.20.0",
        panic(
            registry("burn-train", "0.20.0", "learner/base.rs"),
            200,
            14,
            'Can load optimizer checkpoint.: Record(Io("I/O error: No such file or directory '
            '(os error 2)"))',
        ),  # fmt: skip
        [("cause", "Can load optimizer checkpoint.", "0.20.0")],
    ),
    Log(
        "learner-resume-scheduler-0.21.0",
        panic(
            registry("burn-train", "0.21.0", "learner/base.rs"),
            205,
            14,
            'Can load learning rate scheduler checkpoint.: Record(Io("I/O error: No such '
            'file or directory (os error 2)"))',
        ),  # fmt: skip
        [("cause", "Can load learning rate scheduler checkpoint.", "0.21.0")],
    ),
    Log(
        "learner-resume-truncated-burnpack-0.22.0-pre.1",
        panic(
            registry("burn-train", "0.22.0-pre.1", "learner/base.rs"),
            200,
            14,
            'Can load model checkpoint.: Record(Io("Validation error: File truncated: '
            'expected at least 4096 bytes, got 100 bytes"))',
        ),  # fmt: skip
        [("cause", LOAD_MODEL, "0.22.0-pre.1")],
    ),
    Log(
        "user-unwrap-burnpack-metadata",
        panic(
            "src/bin/infer.rs",
            27,
            61,
            unwrap(
                'Io("Metadata deserialization error: Semantic(None, \\"invalid type: '
                'string \\\\\\"x\\\\\\", expected u64\\")")'
            ),
        ),  # fmt: skip
        [("cause", "Metadata deserialization error: {}", None)],
    ),
    Log(
        "anyhow-unsupported-burnpack-version",
        'Error: Io("Unsupported version")\n\nCaused by:\n    while loading /models/net.bpk',
        [("cause", "Unsupported version", None)],
    ),
    Log(
        "learner-resume-0.21.0-behind-the-banner",
        "\n".join(
            [
                training_log(2),
                banner(),
                panic(
                    registry("burn-train", "0.21.0", "learner/base.rs"),
                    193,
                    14,
                    'Can load model checkpoint.: Record(Io("I/O error: No such file or '
                    'directory (os error 2)"))',
                ),  # fmt: skip
                NOTE,
            ]
        ),
        [("cause", LOAD_MODEL, "0.21.0")],
    ),
    Log(
        "cut-before-the-header",
        "ked at " + registry("burn-train", "0.19.1", "learner/base.rs") + ":92:14:\n"
        'Can load model checkpoint.: Io("I/O error: No such file or directory (os error 2)")',
        [("cause", LOAD_MODEL, None)],
    ),
]

SHAPES = [
    Log(
        "experiment-log-only",
        "\n".join(
            [
                "2026-11-28T10:02:10.001Z  INFO burn_train::learner::epoch: Epoch 3/10",
                logged(
                    registry("burn-train", "0.20.0", "checkpoint/async_checkpoint.rs"),
                    49,
                    32,
                    f"Error when saving the state: {ENOSPC}",
                ),  # fmt: skip
                logged(
                    registry("burn-train", "0.20.0", "checkpoint/async_checkpoint.rs"),
                    123,
                    14,
                    f"{SEND}: {SEND_ERROR}",
                    at="10:02:11.502",
                ),  # fmt: skip
            ]
        ),
        [("cause", SAVE, "0.20.0"), ("consequence", SEND, "0.20.0")],
    ),
    Log(
        "terminal-and-experiment-log-pasted-together",
        "\n".join(
            [
                banner(),
                panic(
                    registry("burn-train", "0.21.0", "checkpoint/async_checkpoint.rs"),
                    49,
                    32,
                    f"Error when saving the state: {ENOSPC}",
                    thread="<unnamed>",
                ),  # fmt: skip
                NOTE,
                "",
                "experiment.log:",
                logged(
                    registry("burn-train", "0.21.0", "checkpoint/async_checkpoint.rs"),
                    49,
                    32,
                    f"Error when saving the state: {ENOSPC}",
                ),  # fmt: skip
            ]
        ),
        [("cause", SAVE, "0.21.0")],
    ),
    Log(
        "markdown-indented-cascade",
        "\n".join(
            "    " + line
            for line in cascade_0_20_0(
                registry("burn-train", "0.20.0", "checkpoint/async_checkpoint.rs"),
                49,
                f"Error when saving the state: {ENOSPC}",
            ).split("\n")
        ),
        [
            ("cause", SAVE, "0.20.0"),
            ("consequence", SEND, "0.20.0"),
            ("consequence", END, "0.20.0"),
            ("consequence", "rust", "0.20.0"),
        ],
    ),
    Log(
        "markdown-quoted-resume",
        "\n".join(
            "> " + line
            for line in panic(
                registry("burn-train", "0.21.0", "learner/base.rs"),
                193,
                14,
                f"Can load model checkpoint.: RecorderError({RECORDER_DEBUG})",
            ).split("\n")
        ),  # fmt: skip
        [("cause", LOAD_MODEL, "0.21.0")],
    ),
    Log(
        "terminal-ui-debris",
        "\x1b[?1049l\x1b[?25h\x1b[0m"
        "│ Epoch 3/10 ━━━━━━━━━━━━━━━━ 34% │ loss 0.412 │\r\n"
        + panic(
            registry("burn-train", "0.22.0-pre.2", "checkpoint/async_checkpoint.rs"),
            46,
            32,
            f"\x1b[31mError when saving the state: {ENOSPC}\x1b[0m",
            thread="<unnamed>",
        ).replace("\n", "\r\n")
        + "\r\n"
        + panic(
            registry("burn-train", "0.22.0-pre.2", "checkpoint/async_checkpoint.rs"),
            118,
            14,
            f"{SEND}: {SEND_ERROR}",
        )
        + " │",  # fmt: skip
        [("cause", SAVE, "0.22.0-pre.2"), ("consequence", SEND, "0.22.0-pre.2")],
    ),
    Log(
        "cut-in-the-middle-of-the-message",
        panic(
            registry("burn-train", "0.21.0", "checkpoint/async_checkpoint.rs"),
            123,
            14,
            "Can send message to checkpoi",
        ),  # fmt: skip
        [("consequence", SEND, "0.21.0")],
    ),
    Log(
        "windows-local-checkout",
        panic(
            r"C:\dev\burn\crates\burn-train\src\checkpoint\async_checkpoint.rs",
            46,
            32,
            f"Error when saving the state: {ENOSPC}",
            thread="<unnamed>",
        ),  # fmt: skip
        [("cause", SAVE, None)],
    ),
    Log(
        "thread-id-registry-resume",
        panic(
            registry("burn-train", "0.20.0", "learner/base.rs"),
            194,
            14,
            f"Can load model checkpoint.: RecorderError({RECORDER_DEBUG})",
            tid=7723,
        ),  # fmt: skip
        [("cause", LOAD_MODEL, "0.20.0")],
    ),
    Log(
        "interrupted-by-a-full-disk",
        "2026-11-28T10:02:11.502Z  WARN burn_train::learner::supervised::strategies::single:"
        f" Training interrupted: Error when saving the state: {ENOSPC}",
        [("cause", "Training interrupted: {reason}", None)],
    ),
    Log(
        "a-backtrace-names-the-release",
        "\n".join(
            [
                panic("src/main.rs", 64, 42, unwrap(RECORDER_DEBUG)),
                "stack backtrace:",
                "   0: rust_begin_unwind",
                "             at /rustc/90b35a6239c3d8bdabc530a6a0816f7ff89a0aaf/library/std/src/"
                "panicking.rs:665:5",
                "   1: burn_core::module::base::Module::load_file",
                "             at " + registry("burn-core", "0.14.0", "module/base.rs") + ":220:9",
                "   2: mnist_infer::main",
                "             at ./src/main.rs:64:42",
                "note: Some details are omitted, run with `RUST_BACKTRACE=full` for a verbose "
                "backtrace.",
            ]
        ),
        [("cause", UNABLE, "0.14.0")],
    ),
    Log(
        "a-long-path-wrapped-by-the-terminal",
        (
            "thread 'main' panicked at "
            + registry("burn-train", "0.21.0", "learner/bas")
            + '\ne.rs:193:14:\nCan load model checkpoint.: Record(Io("I/O error: No such file '
            'or directory (os error 2)"))\n' + NOTE
        ),  # fmt: skip
        [("cause", LOAD_MODEL, "0.21.0")],
    ),
    Log(
        "github-actions-log-every-line-stamped",
        "\n".join(
            f"2026-11-28T10:02:{11 + i // 3:02d}.{4817390 + i}Z {line}"
            for i, line in enumerate(
                cascade_0_20_0(
                    registry("burn-train", "0.20.0", "checkpoint/async_checkpoint.rs"),
                    49,
                    f"Error when saving the state: {ENOSPC}",
                ).split("\n")
                + ["error: test failed, to rerun pass `--test resume`"]
            )
        ),
        [
            ("cause", SAVE, "0.20.0"),
            ("consequence", SEND, "0.20.0"),
            ("consequence", END, "0.20.0"),
            ("consequence", "rust", "0.20.0"),
        ],
    ),
    Log(
        "container-log-stamped-anyhow-error",
        "[2026-11-28 10:02:11] Loading the model from /models/net\n"
        f"[2026-11-28 10:02:12] Error: {RECORDER_DEBUG}",
        [("cause", UNABLE, None)],
    ),
    Log(
        "a-join-unwrapped-after-the-worker-died",
        "\n".join(
            [
                panic(
                    registry("burn-fusion", "0.20.0", "stream/execution/ordering.rs"),
                    51,
                    13,
                    "Ordering is bigger than operations",
                    thread="<unnamed>",
                ),  # fmt: skip
                NOTE,
                panic("src/main.rs", 97, 31, unwrap("Any { .. }")),
            ]
        ),
        [
            ("cause", "site crates/burn-fusion/src/stream/execution/ordering.rs:51", "0.20.0"),
            ("consequence", "user", "0.20.0"),
        ],
    ),
    Log(
        "quoted-without-its-thread",
        "It fails when resuming:\n\n"
        "panicked at " + registry("burn-train", "0.21.0", "learner/base.rs") + ":199:14:\n"
        'Can load optimizer checkpoint.: Record(Io("I/O error: No such file or directory '
        '(os error 2)"))',
        [("cause", "Can load optimizer checkpoint.", "0.21.0")],
    ),
    Log(
        "color-eyre-panic-report",
        "\x1b[31mThe application panicked (crashed).\x1b[0m\n"
        "Message:  \x1b[36mCan load model checkpoint.: RecorderError("
        + RECORDER_DEBUG
        + ")\x1b[0m\n"
        "Location: \x1b[35m"
        + registry("burn-train", "0.20.0", "learner/base.rs")
        + "\x1b[0m:\x1b[35m194\x1b[0m\n\n"
        "Backtrace omitted. Run with RUST_BACKTRACE=1 environment variable to display it.",
        [("cause", LOAD_MODEL, "0.20.0")],
    ),
]

CORPUS = CASCADES + RECORDS + SHAPES

# Panics of burn that are not about checkpoints or records, and logs that only name a
# checkpoint directory: none may claim a checkpoint or record entry. Where the panic is
# at a burn line the scans know, the story names that line.
NEGATIVES = [
    Log(
        "shape-reshape",
        panic(
            registry("burn-tensor", "0.19.1", "tensor/api/base.rs"),
            3895,
            9,
            "Cannot reshape tensor of shape [2, 3] to shape [4, 4]",
        ),  # fmt: skip
        [("cause", "site crates/burn-tensor/src/tensor/api/base.rs:3895", "0.19.1")],
    ),
    Log(
        "backend-broadcast",
        panic(
            registry("burn-ndarray", "0.19.1", "ops/base.rs"),
            429,
            17,
            "Incompatible shapes for broadcasting: [2, 3] and [4, 3]",
        ),  # fmt: skip
        [("cause", "site crates/burn-ndarray/src/ops/base.rs:429", "0.19.1")],
    ),
    Log(
        "autodiff-gradient-checkpointing",
        panic(
            f"{CHECKOUT}/crates/burn-autodiff/src/checkpoint/state.rs",
            30,
            21,
            "Can't get state content of recompute state. A child has likely been accessed "
            "before its parents.",
        ),  # fmt: skip
        [("cause", "site crates/burn-autodiff/src/checkpoint/state.rs:30", None)],
    ),
    Log(
        "autodiff-never-checkpointed",
        panic(
            registry("burn-autodiff", "0.20.0", "checkpoint/builder.rs"),
            223,
            17,
            "Node NodeId { value: 7 } is needed but never checkpointed",
        ),  # fmt: skip
        [("cause", "site crates/burn-autodiff/src/checkpoint/builder.rs:223", "0.20.0")],
    ),
    Log(
        "dataset-dataframe",
        panic(
            registry("burn-dataset", "0.20.0", "dataset/dataframe.rs"),
            61,
            14,
            "Corresponding column should exist in the DataFrame",
        ),  # fmt: skip
        [("cause", "site crates/burn-dataset/src/dataset/dataframe.rs:61", "0.20.0")],
    ),
    Log(
        "metric-logger-thread",
        panic(
            registry("burn-train", "0.20.0", "logger/async_logger.rs"),
            64,
            14,
            f"Can send message to logger thread.: {SEND_ERROR}",
        ),  # fmt: skip
        [("cause", "site crates/burn-train/src/logger/async_logger.rs:64", "0.20.0")],
    ),
    Log(
        "metric-event-store-thread",
        panic(
            registry("burn-train", "0.20.0", "metric/store/client.rs"),
            33,
            14,
            f"Can send event to event store thread.: {SEND_ERROR}",
        ),  # fmt: skip
        [("cause", "site crates/burn-train/src/metric/store/client.rs:33", "0.20.0")],
    ),
    Log(
        "cubecl-kernel",
        panic(
            registry("burn-cubecl", "0.20.0", "kernel/binary.rs"),
            270,
            10,
            'Kernel to never fail: Unknown("Out of memory")',
        ),  # fmt: skip
        [("cause", "site crates/burn-cubecl/src/kernel/binary.rs:270", "0.20.0")],
    ),
    Log(
        "a-checkpoints-directory-in-the-log",
        "\n".join(
            [
                "2026-11-28T10:02:10Z  INFO burn_train::learner: Saving checkpoint 3 to "
                "/runs/exp1/checkpoint/model-3.mpk",
                "2026-11-28T10:02:10Z  INFO my_app: writing checkpoints/ to s3://bucket/run1",
                panic(
                    "src/main.rs",
                    80,
                    33,
                    unwrap('Os { code: 2, kind: NotFound, message: "No such file or directory" }'),
                ),  # fmt: skip
            ]
        ),
        [("cause", "user", None)],
    ),
    Log(
        "user-model-panics-inside-the-learner",
        "\n".join(
            [
                panic(
                    "src/model.rs", 55, 18, "index out of bounds: the len is 3 but the index is 3"
                ),  # fmt: skip
                "stack backtrace:",
                "   3: my_app::model::Model<B>::forward",
                "             at ./src/model.rs:55:18",
                "   4: burn_train::learner::epoch::TrainEpoch<TI>::run",
                "             at "
                + registry("burn-train", "0.20.0", "learner/epoch.rs")
                + ":98:24",
            ]
        ),
        [("cause", "user", "0.20.0")],
    ),
    Log(
        "python-checkpoint-error",
        "Traceback (most recent call last):\n"
        '  File "/home/ana/train.py", line 12, in <module>\n'
        '    model.load_state_dict(torch.load("checkpoints/last.pt"))\n'
        "RuntimeError: Error(s) in loading state_dict for Net:\n"
        '\tMissing key(s) in state_dict: "fc.weight".',
        [],
    ),
    Log(
        "anyhow-error-about-a-checkpoint-directory",
        'Error: Dataset not found: "/data/checkpoints"',
        [("cause", "none", None)],
    ),
]
