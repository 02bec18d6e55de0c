"""burn's texts, each with the line of burn's source it comes from.

The trainer prints only texts declared here.  Each ``Text`` is the string
literal exactly as it stands on its cited line (``path:line@commit``), and
renders the way Rust's ``format!`` fills it; ``tests/upstream`` keeps those
files at those commits, and the tests check every citation against them.

Two release lines are mirrored (see ``RELEASES``): burn's main branch as
fetched (0.22.0-pre.2, burnpack records) and v0.19.1 (the last release with
``LearnerBuilder``; its texts are the same from v0.13.0).  The texts of Rust's
standard library (``SendError``, ``io::Error``, ``Result::expect``) are not in
burn's repository; they are declared in ``STD`` without a citation.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MAIN = "2c06be351006851d42fdb6df16b976f4a82d9747"  # main as fetched, 2026-08-21
V0_19_1 = "a6da424feacf6d82d6a0e81db197310796267c2b"  # tag v0.19.1

_PLACEHOLDER = re.compile(r"\{[^{}]*\}")


def escape(text: str) -> str:
    """``re.escape``, leaving spaces as they are so that patterns stay readable."""
    return re.escape(text).replace("\\ ", " ")


TRAIN = "crates/burn-train/src"


@dataclass(frozen=True)
class Text:
    """A format string of burn's, as written on ``path:line`` at ``commit``."""

    format: str
    path: str
    line: int
    commit: str

    @property
    def citation(self) -> str:
        return f"{self.path}:{self.line}@{self.commit}"

    @property
    def literal(self) -> str:
        """The text before the first placeholder: what a reader can search for."""
        return _PLACEHOLDER.split(self.format, maxsplit=1)[0]

    def render(self, *values: object) -> str:
        """Fill the placeholders in order, as ``format!`` does with these arguments."""
        parts = _PLACEHOLDER.split(self.format)
        if len(values) != len(parts) - 1:
            raise TypeError(f"{self.format!r} takes {len(parts) - 1} values, got {len(values)}")
        out = [parts[0]]
        for value, part in zip(values, parts[1:], strict=True):
            out += [str(value), part]
        return "".join(out)

    def pattern(self, *fills: str) -> str:
        """A regex for the rendered text: literal parts escaped, each placeholder ``fills[i]``."""
        parts = _PLACEHOLDER.split(self.format)
        fills = fills or (".+",) * (len(parts) - 1)
        if len(fills) != len(parts) - 1:
            raise TypeError(f"{self.format!r} takes {len(parts) - 1} fills, got {len(fills)}")
        out = [escape(parts[0])]
        for fill, part in zip(fills, parts[1:], strict=True):
            out += [fill, escape(part)]
        return "".join(out)


@dataclass(frozen=True)
class Variant:
    """A tuple variant of an enum deriving ``Debug``: printed ``Name(<field's Debug>)``."""

    name: str
    path: str
    line: int
    commit: str

    @property
    def citation(self) -> str:
        return f"{self.path}:{self.line}@{self.commit}"

    def debug(self, field_debug: str) -> str:
        return f"{self.name}({field_debug})"


@dataclass(frozen=True)
class Panic:
    """Where a panic is raised: the text, and the column Rust reports for the call."""

    text: Text
    column: int  # of `expect` / `panic!` on the cited line, as Rust's Location reports it

    @property
    def location(self) -> str:
        return f"{self.text.path}:{self.text.line}:{self.column}"


def _t(fmt: str, path: str, line: int, commit: str = MAIN) -> Text:
    return Text(fmt, path, line, commit)


# -- Rust's standard library (not burn's; no citation) ------------------------

STD = {
    "expect": "{}: {:?}",  # Result::expect: the message, ": ", the error's Debug
    "os_error": "{} (os error {})",  # io::Error's Display for an OS error
    "send_error_display": "sending on a closed channel",  # SendError's Display
    "send_error_debug": "SendError { .. }",  # SendError's Debug
    "panic_header": "thread '{}' panicked at {}:",  # the default panic hook's first line
}
UNNAMED_THREAD = "<unnamed>"  # std::thread::spawn gives the worker no name
MAIN_THREAD = "main"


def expect(message: str, debug: str) -> str:
    """What ``Result::expect(message)`` prints for an error whose Debug is ``debug``."""
    return f"{message}: {debug}"


# -- burn, main as fetched ----------------------------------------------------

_LEARNER = f"{TRAIN}/learner/base.rs"
_ASYNC = f"{TRAIN}/checkpoint/async_checkpoint.rs"
_CHECKPOINT = f"{TRAIN}/checkpoint/base.rs"
_RL = f"{TRAIN}/learner/rl/checkpointer.rs"
_STORE = "crates/burn-core/src/store/mod.rs"
_MODULE = "crates/burn-core/src/module/base.rs"
_PACK = "crates/burn-pack/src"


def _expects(path: str, commit: str, rows: dict) -> dict:
    """Panics raised by `.expect("...")`: Rust reports the column of `expect`."""
    return {
        key: Panic(Text(text, path, line, commit), col) for key, (line, col, text) in rows.items()
    }


# The learner's checkpointer calls: (action, component) -> panic.
LEARNER = _expects(
    _LEARNER,
    MAIN,
    {
        ("delete", "model"): (167, 26, "Can delete model checkpoint."),
        ("delete", "optim"): (170, 26, "Can delete optimizer checkpoint."),
        ("delete", "scheduler"): (173, 26, "Can delete learning rate scheduler checkpoint."),
        ("save", "model"): (178, 26, "Can save model checkpoint."),
        ("save", "optim"): (181, 26, "Can save optimizer checkpoint."),
        ("save", "scheduler"): (184, 26, "Can save learning rate scheduler checkpoint."),
        ("load", "model"): (200, 14, "Can load model checkpoint."),
        ("load", "optim"): (206, 14, "Can load optimizer checkpoint."),
        ("load", "scheduler"): (212, 14, "Can load learning rate scheduler checkpoint."),
    },
)
# RLCheckpointer: a policy and a learning agent; the policy's restore reuses the model text.
RL = _expects(
    _RL,
    MAIN,
    {
        ("delete", "policy"): (39, 26, "Can delete policy checkpoint."),
        ("delete", "learning-agent"): (42, 26, "Can delete learning agent checkpoint."),
        ("save", "policy"): (47, 26, "Can save policy checkpoint."),
        ("save", "learning-agent"): (50, 26, "Can save learning agent checkpoint."),
        ("load", "policy"): (65, 14, "Can load model checkpoint."),
        ("load", "learning-agent"): (71, 14, "Can load learning agent checkpoint."),
    },
)
ASYNC = {
    "save_failed": Panic(_t("Error when saving the state: {err}", _ASYNC, 46), 32),
    "delete_failed": Panic(_t("Error when deleting the state: {err}", _ASYNC, 54), 32),
    "send": Panic(_t("Can send message to checkpointer thread.", _ASYNC, 118), 14),
    "send_end": Panic(_t("Can send the end message to the checkpointer thread.", _ASYNC, 149), 14),
}
TRAINING_INTERRUPTED = _t(
    "Training interrupted: {reason}",
    f"{TRAIN}/learner/supervised/strategies/single/strategy.rs",
    88,
)
REASON_UNKNOWN = _t(
    "Reason unknown", f"{TRAIN}/learner/supervised/strategies/single/strategy.rs", 87
)

# CheckpointerError: Display (thiserror) and Debug variant names.
CHECKPOINTER_DISPLAY = {
    "IOError": _t("I/O Error: `{0}`", _CHECKPOINT, 12),
    "Record": _t("Record error: `{0}`", _CHECKPOINT, 16),
    "Unknown": _t("Unknown error: `{0}`", _CHECKPOINT, 20),
}
CHECKPOINTER_VARIANTS = {
    "IOError": Variant("IOError", _CHECKPOINT, 13, MAIN),
    "Record": Variant("Record", _CHECKPOINT, 17, MAIN),
    "Unknown": Variant("Unknown", _CHECKPOINT, 21, MAIN),
}
# burn-core's RecordError.
RECORD_DISPLAY = {
    "Io": _t("Record I/O error: {msg}", _STORE, 51),
    "Validation": _t("Record validation error: {msg}", _STORE, 52),
}
RECORD_VARIANTS = {
    "Io": Variant("Io", _STORE, 42, MAIN),
    "Validation": Variant("Validation", _STORE, 45, MAIN),
}
APPLY_ERRORS = _t("Apply errors: {:?}", _STORE, 247)
MISSING_TENSORS = _t("Missing tensors: {:?}", _STORE, 253)
UNUSED_TENSORS = _t("Unused tensors: {:?}", _STORE, 259)
SHAPE_MISMATCH = _t("{path}: shape mismatch, expected {:?} but record has {:?}", _STORE, 388)
# burn-pack's reader and writer.
PACK = {
    "io": _t("I/O error: {}", f"{_PACK}/base.rs", 340),
    "magic": _t("Invalid magic number", f"{_PACK}/base.rs", 332),
    "version": _t("Unsupported version", f"{_PACK}/base.rs", 333),
    "validation": _t("Validation error: {}", f"{_PACK}/base.rs", 345),
    "truncated": _t(
        "File truncated: expected at least {min_size} bytes, got {available} bytes",
        f"{_PACK}/reader.rs",
        291,
    ),
    "create": _t("cannot create '{}': {e}", f"{_PACK}/writer.rs", 153),
    "write": _t("cannot write to '{}': {e}", f"{_PACK}/writer.rs", 694),
}
MODULE = {
    "load_record": Panic(_t("Failed to load record", _MODULE, 309), 38),
    "load_file": Panic(_t("Failed to load module from file", _MODULE, 337), 14),
}

# -- burn v0.19.1 -------------------------------------------------------------

_CHECKPOINT_19 = f"{TRAIN}/checkpoint/base.rs"
_RECORDER_19 = "crates/burn-core/src/record/recorder.rs"
LEARNER_19 = _expects(
    _LEARNER,
    V0_19_1,
    {
        ("delete", "model"): (58, 26, "Can delete model checkpoint."),
        ("delete", "optim"): (61, 26, "Can delete optimizer checkpoint."),
        ("delete", "scheduler"): (64, 26, "Can delete learning rate scheduler checkpoint."),
        ("save", "model"): (69, 26, "Can save model checkpoint."),
        ("save", "optim"): (72, 26, "Can save optimizer checkpoint."),
        ("save", "scheduler"): (75, 26, "Can save learning rate scheduler checkpoint."),
        ("load", "model"): (92, 14, "Can load model checkpoint."),
        ("load", "optim"): (98, 14, "Can load optimizer checkpoint."),
        ("load", "scheduler"): (104, 14, "Can load learning rate scheduler checkpoint."),
    },
)
ASYNC_19 = {
    "save_failed": Panic(_t("Can save the state.", _ASYNC, 40, V0_19_1), 22),
    "delete_failed": Panic(_t("Can delete the state.", _ASYNC, 44, V0_19_1), 22),
    "send": Panic(_t("Can send message to checkpointer thread.", _ASYNC, 94, V0_19_1), 14),
    "send_end": Panic(
        _t("Can send the end message to the checkpointer thread.", _ASYNC, 128, V0_19_1), 14
    ),
}
CHECKPOINTER_VARIANTS_19 = {
    "IOError": Variant("IOError", _CHECKPOINT_19, 10, V0_19_1),
    "RecorderError": Variant("RecorderError", _CHECKPOINT_19, 13, V0_19_1),
    "Unknown": Variant("Unknown", _CHECKPOINT_19, 16, V0_19_1),
}
RECORDER_VARIANTS_19 = {
    "FileNotFound": Variant("FileNotFound", _RECORDER_19, 159, V0_19_1),
    "DeserializeError": Variant("DeserializeError", _RECORDER_19, 162, V0_19_1),
    "Unknown": Variant("Unknown", _RECORDER_19, 165, V0_19_1),
}


# -- release lines and set-ups ------------------------------------------------


@dataclass(frozen=True)
class Release:
    """One release line of burn, as far as checkpointing goes."""

    name: str
    commit: str
    versions: str  # the releases whose texts are these (checked at each tag named)
    extension: str  # the checkpoint file's extension
    learner: dict
    rl: dict
    worker: dict  # the async checkpointer's panics
    worker_shows_display: bool  # main: panic!("...{err}") (Display); v0.19.1: expect (Debug)


RELEASES = {
    "main": Release(
        "main",
        MAIN,
        "main (0.22.0-pre)",
        "bpk",
        LEARNER,
        RL,
        ASYNC,
        worker_shows_display=True,
    ),
    "v0.19.1": Release(
        "v0.19.1",
        V0_19_1,
        "0.13.0 – 0.19.1",
        "mpk",  # CompactRecorder's extension: see the learner-builder set-up's citations
        LEARNER_19,
        {},
        ASYNC_19,
        worker_shows_display=False,
    ),
}


@dataclass(frozen=True)
class Setup:
    """How a user wires checkpointing through burn's public API, with the lines that allow it."""

    name: str
    release: str
    interrupter: bool  # whether the async checkpointers get the training interrupter
    components: tuple[str, ...]  # the checkpointers, in the order burn calls them
    summary: str
    citations: tuple[str, ...]
    strategy: str = "composed"  # keep-last-2 + metric (burn's default), or "keep-last" alone
    interval: int = 1  # checkpoint number per epoch: 1, or the RL loop's eval_interval steps


def _cite(path: str, lines: str, commit: str = MAIN) -> str:
    return f"{path}:{lines}@{commit}"


# The RL loop checkpoints at step counts: eval_interval (default 10 000) apart.
RL_EVAL_INTERVAL = 10_000
_RL_STEPS = (
    _cite(f"{TRAIN}/learner/rl/off_policy.rs", "31-33"),
    _cite(f"{TRAIN}/learner/rl/off_policy.rs", "104"),
    _cite(f"{TRAIN}/learner/rl/off_policy.rs", "173-182"),
)

SETUPS = {
    "supervised": Setup(
        "supervised",
        "main",
        interrupter=True,
        components=("model", "optim", "scheduler"),
        summary="SupervisedTraining::launch with its default checkpointers",
        citations=(
            _cite(f"{TRAIN}/learner/supervised/paradigm.rs", "306-319"),
            _cite(f"{TRAIN}/learner/supervised/paradigm.rs", "378-385"),
            _cite(f"{TRAIN}/learner/supervised/strategies/single/strategy.rs", "83-90"),
        ),
    ),
    "rl": Setup(
        "rl",
        "main",
        interrupter=False,
        components=("policy", "learning-agent"),
        summary="the RL paradigm's with_checkpointer (no interrupter, default strategy)",
        citations=(
            _cite(f"{TRAIN}/learner/rl/paradigm.rs", "288-303"),
            _cite(f"{TRAIN}/learner/rl/paradigm.rs", "346-348"),
            _cite(_RL, "25-54"),
            *_RL_STEPS,
            _cite(f"{TRAIN}/learner/rl/paradigm.rs", "95-105"),
        ),
        interval=RL_EVAL_INTERVAL,
    ),
    "rl-keep-last": Setup(
        "rl-keep-last",
        "main",
        interrupter=False,
        components=("policy", "learning-agent"),
        summary="the RL paradigm's with_checkpointer and "
        "with_checkpointing_strategy(KeepLastNCheckpoints::new(2))",
        citations=(
            _cite(f"{TRAIN}/learner/rl/paradigm.rs", "288-303"),
            _cite(f"{TRAIN}/learner/rl/paradigm.rs", "346-348"),
            _cite(_RL, "25-54"),
            *_RL_STEPS,
            _cite(f"{TRAIN}/learner/rl/paradigm.rs", "140-146"),
            _cite(f"{TRAIN}/checkpoint/strategy/lastn.rs", "13-28"),
        ),
        strategy="keep-last",
        interval=RL_EVAL_INTERVAL,
    ),
    "hand-built": Setup(
        "hand-built",
        "main",
        interrupter=False,
        components=("model", "optim", "scheduler"),
        summary="a hand-built LearningCheckpointer of AsyncCheckpointers, no interrupter",
        citations=(
            _cite(_LEARNER, "133-156"),
            _cite(_ASYNC, "88-102"),
            _cite(f"{TRAIN}/checkpoint/file.rs", "20-28"),
        ),
    ),
    "learner-builder": Setup(
        "learner-builder",
        "v0.19.1",
        interrupter=False,
        components=("model", "optim", "scheduler"),
        summary="LearnerBuilder::with_file_checkpointer(CompactRecorder)",
        citations=(
            _cite(f"{TRAIN}/learner/builder.rs", "289-307", V0_19_1),
            _cite(_ASYNC, "73-83", V0_19_1),
            _cite(_LEARNER, "51-78", V0_19_1),
            # CompactRecorder writes `.mpk` files; the recorder's file handling and errors.
            _cite(_RECORDER_19, "251", V0_19_1),
            _cite("crates/burn-core/src/record/file.rs", "18", V0_19_1),
            _cite("crates/burn-core/src/record/file.rs", "83-87", V0_19_1),
            _cite("crates/burn-core/src/record/file.rs", "89-131", V0_19_1),
        ),
    ),
}


RL_COMPONENTS = ("policy", "learning-agent")


def setup(name: str) -> Setup:
    try:
        return SETUPS[name]
    except KeyError:
        raise ValueError(f"unknown set-up {name!r}; known: {', '.join(SETUPS)}") from None


def learner_panic(release: Release, action: str, component: str) -> Panic:
    """The learner's (or RL checkpointer's) panic for one checkpointer call."""
    table = release.rl if component in RL_COMPONENTS else release.learner
    return table[action, component]


def all_texts() -> list[Text]:
    """Every text of burn's this module declares, for the fidelity tests."""
    texts = [p.text for p in all_panics()]
    texts += [TRAINING_INTERRUPTED, REASON_UNKNOWN, APPLY_ERRORS, MISSING_TENSORS, UNUSED_TENSORS]
    texts += [SHAPE_MISMATCH, *CHECKPOINTER_DISPLAY.values(), *RECORD_DISPLAY.values()]
    return texts + list(PACK.values())


def all_panics() -> list[Panic]:
    return [
        *LEARNER.values(),
        *RL.values(),
        *ASYNC.values(),
        *MODULE.values(),
        *LEARNER_19.values(),
        *ASYNC_19.values(),
    ]


def all_variants() -> list[Variant]:
    return [
        *CHECKPOINTER_VARIANTS.values(),
        *RECORD_VARIANTS.values(),
        *CHECKPOINTER_VARIANTS_19.values(),
        *RECORDER_VARIANTS_19.values(),
    ]
