"""burn's texts, each with the line of burn's source it comes from.

The trainer prints only texts declared in this package, each in one place:
``texts`` (burn's, main, v0.19.1 and v0.21.0) and ``std`` (Rust's standard library);
``text`` has their forms, ``sources`` the commits and paths they cite, and
``setups`` the release lines and set-ups.  Each ``Text`` is the string
literal exactly as it stands on its cited line (``path:line@commit``), and
renders the way Rust's ``format!`` fills it; ``tests/upstream`` keeps those
files at those commits, and the tests check every citation against them.

Three release lines are mirrored (see ``RELEASES``): burn's main branch at
commit 2c06be35 (2026-08-21, 47 commits past v0.22.0-pre.2, which it is not:
its writer's ``cannot create`` / ``cannot write to`` texts are in no tag;
burnpack records), v0.19.1 (the last stable release with ``LearnerBuilder``,
which the pre-releases keep through v0.20.0-pre.5; its texts are the same from
v0.13.0); and, for one set-up, v0.21.0 (the Dispatch backend's
resume: ``supervised-dispatch``, its texts and ``DISPATCH``).  The texts of Rust's
standard library (``SendError``, ``io::Error``, ``Result::expect``) are not in
burn's repository; they are declared in ``STD`` (``std``) without a citation.
"""

from trainer.burn.setups import (
    RELEASES,
    RL_COMPONENTS,
    RL_EVAL_INTERVAL,
    SETUPS,
    Release,
    Setup,
    learner_panic,
    setup,
)
from trainer.burn.sources import MAIN, TRAIN, V0_19_1, V0_21_0
from trainer.burn.std import (
    ABORT_SIGNAL,
    CLEANUP_LOCATION,
    CLEANUP_LOCATION_PATTERN,
    MAIN_THREAD,
    NON_UNWINDING_ABORT,
    OVERFLOW,
    PANIC_IN_CLEANUP,
    SERDE_MISSING_FIELD,
    STD,
    UNNAMED_THREAD,
    expect,
    panic_info,
)
from trainer.burn.text import MacroPanic, Panic, Site, Text, Variant, escape
from trainer.burn.texts import (
    APPLY_ERRORS,
    ASYNC,
    ASYNC_19,
    ASYNC_21,
    CALLBACK_FAILED,
    CHECKPOINTER_DISPLAY,
    CHECKPOINTER_VARIANTS,
    CHECKPOINTER_VARIANTS_19,
    DISPATCH,
    LEARNER,
    LEARNER_19,
    LEARNER_21,
    LOG_TARGETS,
    MISSING_TENSORS,
    MODULE,
    PACK,
    PANIC_HOOK,
    PANIC_HOOK_19,
    PANIC_HOOK_21,
    REASON_UNKNOWN,
    RECORD_DISPLAY,
    RECORD_VARIANTS,
    RECORDER_LOAD_19,
    RECORDER_VARIANTS_19,
    RL,
    SHAPE_MISMATCH,
    TRAINING_INTERRUPTED,
    UNUSED_TENSORS,
    all_macro_panics,
    all_panics,
    all_texts,
    all_variants,
)

__all__ = [
    "ABORT_SIGNAL", "CLEANUP_LOCATION", "CLEANUP_LOCATION_PATTERN", "NON_UNWINDING_ABORT",
    "PANIC_IN_CLEANUP", "CALLBACK_FAILED", "SERDE_MISSING_FIELD",
    "APPLY_ERRORS", "ASYNC", "ASYNC_19", "CHECKPOINTER_DISPLAY", "CHECKPOINTER_VARIANTS",
    "CHECKPOINTER_VARIANTS_19", "LEARNER", "LEARNER_19", "LOG_TARGETS", "MAIN", "MAIN_THREAD",
    "MISSING_TENSORS", "MODULE", "PACK", "PANIC_HOOK", "PANIC_HOOK_19", "REASON_UNKNOWN",
    "RECORD_DISPLAY", "RECORD_VARIANTS", "RECORDER_LOAD_19", "RECORDER_VARIANTS_19", "RELEASES",
    "RL",
    "RL_COMPONENTS", "RL_EVAL_INTERVAL", "SETUPS", "SHAPE_MISMATCH", "STD", "TRAIN",
    "TRAINING_INTERRUPTED", "UNNAMED_THREAD", "UNUSED_TENSORS", "V0_19_1", "Panic", "Release",
    "Setup", "Text", "Variant", "all_panics", "all_texts", "all_variants", "escape", "expect",
    "learner_panic", "panic_info", "setup",
    # v0.21.0 and the Dispatch backend
    "ASYNC_21", "DISPATCH", "LEARNER_21", "PANIC_HOOK_21", "V0_21_0", "MacroPanic",
    "all_macro_panics",
    # Rust's own panics at burn's lines (the TUI's estimate: trainer.burn.tui)
    "OVERFLOW", "Site",
]  # fmt: skip
