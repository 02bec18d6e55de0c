"""burn's texts, each cited ``path:line@commit``: main at 2c06be35, then v0.19.1."""

from __future__ import annotations

from trainer.burn.sources import (
    APP_LOGGER_RS,
    ASYNC_RS,
    CHECKPOINT_RS,
    CHECKPOINT_RS_19,
    DISPATCH_MACROS_RS,
    DISPATCH_TENSOR_RS,
    LEARNER_RS,
    MAIN,
    MODULE_RS,
    PACK_SRC,
    RECORDER_RS_19,
    RL_RS,
    STORE_RS,
    TRAIN,
    V0_19_1,
    V0_21_0,
)
from trainer.burn.text import MacroPanic, Panic, Text, Variant
from trainer.burn.weights import all_texts as weight_texts
from trainer.burn.weights import all_variants as weight_variants


def _t(fmt: str, path: str, line: int, commit: str = MAIN) -> Text:
    return Text(fmt, path, line, commit)


# -- burn, main at 2c06be35 ----------------------------------------------------


def _expects(path: str, commit: str, rows: dict) -> dict:
    """Panics raised by `.expect("...")`: Rust reports the column of `expect`."""
    return {
        key: Panic(Text(text, path, line, commit), col) for key, (line, col, text) in rows.items()
    }


# The learner's checkpointer calls: (action, component) -> panic.
LEARNER = _expects(
    LEARNER_RS,
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
    RL_RS,
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
    "save_failed": Panic(_t("Error when saving the state: {err}", ASYNC_RS, 46), 32),
    "delete_failed": Panic(_t("Error when deleting the state: {err}", ASYNC_RS, 54), 32),
    "send": Panic(_t("Can send message to checkpointer thread.", ASYNC_RS, 118), 14),
    "send_end": Panic(
        _t("Can send the end message to the checkpointer thread.", ASYNC_RS, 149), 14
    ),
    # Unreachable: Drop sends End first, and a dead worker fails that send (149) before join.
    "join": Panic(_t("The checkpointer thread should stop.", ASYNC_RS, 155), 18),
}
# Unreachable: restore() waits in recv() while the worker answers on a channel of capacity 1.
CALLBACK_FAILED = _t("Error when sending response through callback channel: {err}", ASYNC_RS, 36)
TRAINING_INTERRUPTED = _t(
    "Training interrupted: {reason}",
    f"{TRAIN}/learner/supervised/strategies/single/strategy.rs",
    88,
)
REASON_UNKNOWN = _t(
    "Reason unknown", f"{TRAIN}/learner/supervised/strategies/single/strategy.rs", 87
)


def _panic_hook(commit: str) -> dict[str, Text]:
    """The panic hook of the file logger that the launchers install (`launch`, v0.19.1's
    `build`): for every panic it logs ``PANIC => {info}`` (PanicHookInfo's Display) to
    experiment.log, prints the banner on stderr, then calls the default hook."""
    banner = (
        "=== PANIC ===\nA fatal error happened, you can check the experiment logs here => "
        "'{}'\n============="
    )
    return {
        "log": _t("PANIC => {info}", APP_LOGGER_RS, 58, commit),
        "banner": Text(banner, APP_LOGGER_RS, 60, commit, end=61),
    }


PANIC_HOOK = _panic_hook(MAIN)
# The modules whose log records burn's texts are: tracing's fmt layer prints each record
# `LEVEL target: message` (after a timestamp), the target being the module's path.
LOG_TARGETS = {
    APP_LOGGER_RS: "burn_train::learner::application_logger",
    TRAINING_INTERRUPTED.path: "burn_train::learner::supervised::strategies::single::strategy",
}

# CheckpointerError: Display (thiserror) and Debug variant names.
CHECKPOINTER_DISPLAY = {
    "IOError": _t("I/O Error: `{0}`", CHECKPOINT_RS, 12),
    "Record": _t("Record error: `{0}`", CHECKPOINT_RS, 16),
    "Unknown": _t("Unknown error: `{0}`", CHECKPOINT_RS, 20),
}
CHECKPOINTER_VARIANTS = {
    "IOError": Variant("IOError", CHECKPOINT_RS, 13, MAIN),
    "Record": Variant("Record", CHECKPOINT_RS, 17, MAIN),
    "Unknown": Variant("Unknown", CHECKPOINT_RS, 21, MAIN),
}
# burn-core's RecordError.
RECORD_DISPLAY = {
    "Io": _t("Record I/O error: {msg}", STORE_RS, 51),
    "Validation": _t("Record validation error: {msg}", STORE_RS, 52),
}
RECORD_VARIANTS = {
    "Io": Variant("Io", STORE_RS, 42, MAIN),
    "Validation": Variant("Validation", STORE_RS, 45, MAIN),
}
APPLY_ERRORS = _t("Apply errors: {:?}", STORE_RS, 247)
MISSING_TENSORS = _t("Missing tensors: {:?}", STORE_RS, 253)
UNUSED_TENSORS = _t("Unused tensors: {:?}", STORE_RS, 259)
SHAPE_MISMATCH = _t("{path}: shape mismatch, expected {:?} but record has {:?}", STORE_RS, 388)
# burn-pack's reader and writer.
PACK = {
    "io": _t("I/O error: {}", f"{PACK_SRC}/base.rs", 340),
    "magic": _t("Invalid magic number", f"{PACK_SRC}/base.rs", 332),
    "version": _t("Unsupported version", f"{PACK_SRC}/base.rs", 333),
    "validation": _t("Validation error: {}", f"{PACK_SRC}/base.rs", 345),
    "metadata": _t("Metadata deserialization error: {}", f"{PACK_SRC}/base.rs", 338),
    "truncated": _t(
        "File truncated: expected at least {min_size} bytes, got {available} bytes",
        f"{PACK_SRC}/reader.rs",
        291,
    ),
    "file_size": _t(
        "File size {file_size} bytes exceeds maximum allowed size of {MAX_FILE_SIZE} bytes",
        f"{PACK_SRC}/reader.rs",
        74,
    ),
    "metadata_size": _t(
        "Metadata size {} exceeds maximum allowed size of {MAX_METADATA_SIZE} bytes "
        "(potential DoS attack)",
        f"{PACK_SRC}/reader.rs",
        247,
    ),
    "tensor_count": _t(
        "File contains {} tensors, exceeding maximum of {MAX_TENSOR_COUNT} (potential DoS attack)",
        f"{PACK_SRC}/reader.rs",
        261,
    ),
    "corrupted_offsets": _t(
        "Tensor '{name}' has corrupted offset data: end {end} < start {start}",
        f"{PACK_SRC}/reader.rs",
        224,
    ),
    "tensor_size": _t(
        "Tensor '{name}' size {} exceeds maximum allowed size of {MAX_TENSOR_SIZE} bytes "
        "(potential DoS attack)",
        f"{PACK_SRC}/reader.rs",
        229,
    ),
    "view": _t(
        "Tensor '{name}' data range {start}..{end} could not be viewed (source is {} bytes)",
        f"{PACK_SRC}/reader.rs",
        139,
    ),
    "duplicate": _t("Duplicate tensor name '{}'", f"{PACK_SRC}/writer.rs", 302),
    "create": _t("cannot create '{}': {e}", f"{PACK_SRC}/writer.rs", 153),
    "write": _t("cannot write to '{}': {e}", f"{PACK_SRC}/writer.rs", 694),
}
MODULE = {
    "load_record": Panic(_t("Failed to load record", MODULE_RS, 309), 38),
    "load_file": Panic(_t("Failed to load module from file", MODULE_RS, 337), 14),
}

# -- burn v0.19.1 -------------------------------------------------------------

LEARNER_19 = _expects(
    LEARNER_RS,
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
    "save_failed": Panic(_t("Can save the state.", ASYNC_RS, 40, V0_19_1), 22),
    "delete_failed": Panic(_t("Can delete the state.", ASYNC_RS, 44, V0_19_1), 22),
    "send": Panic(_t("Can send message to checkpointer thread.", ASYNC_RS, 94, V0_19_1), 14),
    "send_end": Panic(
        _t("Can send the end message to the checkpointer thread.", ASYNC_RS, 128, V0_19_1), 14
    ),
}
PANIC_HOOK_19 = _panic_hook(V0_19_1)
CHECKPOINTER_VARIANTS_19 = {
    "IOError": Variant("IOError", CHECKPOINT_RS_19, 10, V0_19_1),
    "RecorderError": Variant("RecorderError", CHECKPOINT_RS_19, 13, V0_19_1),
    "Unknown": Variant("Unknown", CHECKPOINT_RS_19, 16, V0_19_1),
}
RECORDER_VARIANTS_19 = {
    "FileNotFound": Variant("FileNotFound", RECORDER_RS_19, 159, V0_19_1),
    "DeserializeError": Variant("DeserializeError", RECORDER_RS_19, 162, V0_19_1),
    "Unknown": Variant("Unknown", RECORDER_RS_19, 165, V0_19_1),
}

# Recorder::load (v0.19.1): when the item does not decode but the metadata alone does, the
# error becomes Unknown: this first line, one line per metadata field that differs from the
# loading recorder's, then the item's error (recorder.rs:58-105).
RECORDER_LOAD_19 = {
    "unable": _t("Unable to load record.", RECORDER_RS_19, 65, V0_19_1),
    "float": _t(
        "\nMetadata has a different float type: Actual {:?}, Expected {:?}",
        RECORDER_RS_19,
        69,
        V0_19_1,
    ),
    "int": _t(
        "\nMetadata has a different int type: Actual {:?}, Expected {:?}",
        RECORDER_RS_19,
        76,
        V0_19_1,
    ),
    "format": _t(
        "\nMetadata has a different format: Actual {:?}, Expected {:?}",
        RECORDER_RS_19,
        83,
        V0_19_1,
    ),
    "version": _t(
        "\nMetadata has a different Burn version: Actual {:?}, Expected {:?}",
        RECORDER_RS_19,
        90,
        V0_19_1,
    ),
    "error": _t("\nError: {err:?}", RECORDER_RS_19, 96, V0_19_1),
}

# -- burn v0.21.0 -------------------------------------------------------------

LEARNER_21 = _expects(
    LEARNER_RS,
    V0_21_0,
    {
        ("delete", "model"): (160, 26, "Can delete model checkpoint."),
        ("delete", "optim"): (163, 26, "Can delete optimizer checkpoint."),
        ("delete", "scheduler"): (166, 26, "Can delete learning rate scheduler checkpoint."),
        ("save", "model"): (171, 26, "Can save model checkpoint."),
        ("save", "optim"): (174, 26, "Can save optimizer checkpoint."),
        ("save", "scheduler"): (177, 26, "Can save learning rate scheduler checkpoint."),
        ("load", "model"): (193, 14, "Can load model checkpoint."),
        ("load", "optim"): (199, 14, "Can load optimizer checkpoint."),
        ("load", "scheduler"): (205, 14, "Can load learning rate scheduler checkpoint."),
    },
)
ASYNC_21 = {
    "save_failed": Panic(_t("Error when saving the state: {err}", ASYNC_RS, 49, V0_21_0), 32),
    "delete_failed": Panic(_t("Error when deleting the state: {err}", ASYNC_RS, 57, V0_21_0), 32),
    "send": Panic(_t("Can send message to checkpointer thread.", ASYNC_RS, 123, V0_21_0), 14),
    "send_end": Panic(
        _t("Can send the end message to the checkpointer thread.", ASYNC_RS, 162, V0_21_0), 14
    ),
}
PANIC_HOOK_21 = _panic_hook(V0_21_0)  # the same lines (58, 60-61) as main's and v0.19.1's
# Dispatch's float_to_device between an autodiff and a non-autodiff device: the catch-all arm
# of float_to_device_arms! (macros.rs:187-231), reported at the float_to_device! call.
DISPATCH = {
    "to_device": MacroPanic(
        _t(
            "Cannot move between autodiff and non-autodiff instances.",
            DISPATCH_MACROS_RS,
            231,
            V0_21_0,
        ),
        _t("float_to_device!(", DISPATCH_TENSOR_RS, 39, V0_21_0),
        9,
    ),
}


def all_texts() -> list[Text]:
    """Every text of burn's this module declares, for the fidelity tests."""
    texts = [p.text for p in all_panics()]
    texts += [TRAINING_INTERRUPTED, REASON_UNKNOWN, APPLY_ERRORS, MISSING_TENSORS, UNUSED_TENSORS]
    texts += [CALLBACK_FAILED]
    texts += [SHAPE_MISMATCH, *CHECKPOINTER_DISPLAY.values(), *RECORD_DISPLAY.values()]
    texts += list(RECORDER_LOAD_19.values())
    texts += [*PANIC_HOOK_21.values(), *(p.text for p in all_macro_panics())]
    texts += weight_texts()
    return texts + list(PACK.values()) + [*PANIC_HOOK.values(), *PANIC_HOOK_19.values()]


def all_panics() -> list[Panic]:
    return [
        *LEARNER.values(),
        *RL.values(),
        *ASYNC.values(),
        *MODULE.values(),
        *LEARNER_19.values(),
        *ASYNC_19.values(),
        *LEARNER_21.values(),
        *ASYNC_21.values(),
    ]


def all_macro_panics() -> list[MacroPanic]:
    return list(DISPATCH.values())


def all_variants() -> list[Variant]:
    return [
        *CHECKPOINTER_VARIANTS.values(),
        *RECORD_VARIANTS.values(),
        *CHECKPOINTER_VARIANTS_19.values(),
        *RECORDER_VARIANTS_19.values(),
        *weight_variants(),
    ]
