"""The registry of reproduction scenarios: real faults under burn's own set-ups.

Each scenario wires the checkpointers as one of burn's public set-ups
(``burn.SETUPS``: the supervised launcher, the RL paradigm, a hand-built
``LearningCheckpointer``, v0.19.1's ``LearnerBuilder``), strikes a real OS
fault, and names every text burn prints in that set-up, in order
(``expected``: regexes built from ``trainer.burn``'s cited texts).  A scenario
*proves* the messages those texts show, and *disproves* messages that entries
document but that the run shows burn does not print: never in this set-up,
whatever the fault, or not under this fault (past a file-size limit the kernel
ends the process with SIGXFSZ before any text, ``expected_signal``): the proof
of absence.  Names are stable slugs: the knowledge base stores them.

Phases:

- ``train``: the fault strikes just before epoch ``epoch``'s checkpointing;
- ``resume``: a clean run stops after epoch 3 of 4, the fault strikes the
  checkpoint files of ``epoch``, and a new run (with ``overrides``) resumes from ``resume``;
- ``init``: the fault produces the weights file the model is initialised from;
- ``import``: the fault writes a PyTorch or safetensors file with the real torch, and the
  user's program imports it into burn through the set-up's API, read by burn's readers as
  ``trainer.weights`` mirrors them (the fixed variant then trains the imported weights).

This module imports nothing heavy, so ``python -m trainer scenarios`` is fast.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from trainer import burn
from trainer.burn import weights as wt
from trainer.burn.tui import ESTIMATE
from trainer.errors import os_error_display, rust_str_debug, shape_debug
from trainer.faults import FAULTS
from trainer.weights.rust import debug_str

STOP_AFTER = 3  # a resume scenario's first run stops after this epoch of 4
ENOSPC, EROFS, EACCES, ENOENT, EPERM, EISDIR = 28, 30, 13, 2, 1, 21


@dataclass(frozen=True)
class Expect:
    """One text a scenario must print: a regex, and the burn lines it is built from."""

    pattern: str
    cites: tuple[str, ...]
    location: str | None = None  # a panic's path:line:column, as Rust reports it
    # A regex for a panic's location that is no line of burn's (Rust's own, a backend's).
    location_pattern: str | None = None

    @property
    def where(self) -> str | None:
        """A regex for the panic's location; None: the text is no panic."""
        if self.location_pattern is not None:
            return self.location_pattern
        return None if self.location is None else burn.escape(self.location)


@dataclass(frozen=True)
class Scenario:
    name: str  # stable slug
    description: str
    fault: str  # a kind from trainer.faults.FAULTS
    expected: tuple[Expect, ...]  # every text printed, in order
    fix: str  # the documented fix, as the fixed variant applies it
    proves: tuple[str, ...] = ()  # messages (entries' errorMessage) these texts show
    disproves: tuple[str, ...] = ()  # messages it shows burn not to print (see above)
    setup: str = "supervised"  # a key of burn.SETUPS
    phase: str = "train"
    target: str = "model"  # the checkpointer whose file the fault hits
    epoch: int = 3  # the epoch the fault strikes
    expected_errno: int | None = None
    expected_signal: str | None = None  # the signal that ends the process (SIGXFSZ), by name
    resume: int | None = None  # resume phase: the epoch the failing run resumes from
    overrides: dict[str, Any] = field(default_factory=dict)  # config of the failing run
    fixed_overrides: dict[str, Any] = field(default_factory=dict)  # config in the fixed variant
    remedy: bool = True  # whether the fixed variant applies the fault's remedy

    @property
    def release(self) -> str:
        return burn.SETUPS[self.setup].release

    @property
    def citations(self) -> list[str]:
        """The lines that make the set-up reachable, then those of every expected text."""
        cites = list(burn.SETUPS[self.setup].citations)
        for expect in self.expected:
            cites += [c for c in expect.cites if c not in cites]
        return cites

    def to_dict(self) -> dict[str, Any]:
        """The registry entry, JSON-ready."""
        return {
            "name": self.name,
            "description": self.description,
            "release": self.release,
            "versions": burn.RELEASES[self.release].versions,
            "setup": self.setup,
            "setup_summary": burn.SETUPS[self.setup].summary,
            "phase": self.phase,
            "fault": self.fault,
            "fault_description": FAULTS[self.fault].description,
            "target": self.target,
            "epoch": self.epoch,
            "resume": self.resume,
            "expected": [e.pattern for e in self.expected],
            "expected_errno": self.expected_errno,
            "expected_signal": self.expected_signal,
            "proves": list(self.proves),
            "disproves": list(self.disproves),
            "citations": self.citations,
            "fix": self.fix,
            "overrides": self.overrides,
            "fixed_overrides": self.fixed_overrides,
            "remedy": self.remedy,
        }

    def matches(self, texts: list[str], errno: int | None, signal: str | None = None) -> bool:
        """Whether the texts are exactly the expected ones, in order, with the errno and the
        signal that ended the process (None: it was not killed)."""
        if len(texts) != len(self.expected) or errno != self.expected_errno:
            return False
        if signal != self.expected_signal:
            return False
        return all(re.fullmatch(e.pattern, t) for e, t in zip(self.expected, texts, strict=True))


# -- the texts, as regexes built from burn's ------------------------------------


ANY = "(?:model|optim|scheduler)"  # a fault on the whole volume: whichever worker failed last
RL_ANY = "(?:policy|learning-agent)"  # the RL paradigm's two workers, in either order


def _file(name: str, epoch: int, release: str = "main") -> str:
    extension = burn.escape(burn.RELEASES[release].extension)
    name = name if name in (ANY, RL_ANY) else burn.escape(name)
    return rf"/\S+/checkpoint/{name}-{epoch}\.{extension}"


def _os(code: int) -> str:
    return burn.escape(os_error_display(OSError(code, "")))


def _writer(step: str, name: str, epoch: int, code: int) -> tuple[str, list[burn.Text]]:
    """The burnpack writer's error, wrapped as a record error and a checkpointer error."""
    texts = [
        burn.CHECKPOINTER_DISPLAY["Record"],
        burn.RECORD_DISPLAY["Io"],
        burn.PACK["io"],
        burn.PACK[step],
    ]
    inner = burn.PACK[step].pattern(_file(name, epoch), _os(code))
    for text in reversed(texts[:-1]):
        inner = text.pattern(inner)
    return inner, texts


def interrupted(step: str, name: str, epoch: int, code: int) -> Expect:
    """Supervised launcher: the worker stops training; the loop logs the reason."""
    reason, texts = _writer(step, name, epoch, code)
    text = burn.TRAINING_INTERRUPTED
    return Expect(text.pattern(reason), _cites(text, *texts))


def worker_save_failed(step: str, name: str, epoch: int, code: int) -> Expect:
    """No interrupter (main): the worker panics with the error's Display."""
    err, texts = _writer(step, name, epoch, code)
    site = burn.ASYNC["save_failed"]
    return Expect(site.text.pattern(err), _cites(site.text, *texts), site.location)


def worker_delete_failed(code: int) -> Expect:
    site = burn.ASYNC["delete_failed"]
    display = burn.CHECKPOINTER_DISPLAY["IOError"]
    err = display.render(os_error_display(OSError(code, "")))
    return Expect(burn.escape(site.text.render(err)), _cites(site.text, display), site.location)


def closed_channel(release: str, action: str, name: str) -> Expect:
    """The learner's next call to a dead worker: ``Unknown("sending on a closed channel")``."""
    site = burn.learner_panic(burn.RELEASES[release], action, name)
    variants = burn.CHECKPOINTER_VARIANTS if release == "main" else burn.CHECKPOINTER_VARIANTS_19
    debug = variants["Unknown"].debug(rust_str_debug(burn.STD["send_error_display"]))
    return Expect(
        burn.escape(burn.expect(site.text.format, debug)),
        _cites(site.text, variants["Unknown"]),
        site.location,
    )


def send_failed(release: str, key: str) -> Expect:
    """``AsyncCheckpointer::save`` or ``Drop`` on a dead worker: ``SendError { .. }``."""
    site = burn.RELEASES[release].worker[key]
    text = burn.expect(site.text.format, burn.STD["send_error_debug"])
    return Expect(burn.escape(text), _cites(site.text), site.location)


def aborted() -> tuple[Expect, ...]:
    """Drop panicked while the thread unwound from an earlier panic: core's non-unwinding
    panic (the launcher's hook reports it too), then std's last line; then SIGABRT (Rust's
    own texts, not burn's: no citation; see ``burn.std``)."""
    cleanup = Expect(
        burn.escape(burn.PANIC_IN_CLEANUP), (), location_pattern=burn.CLEANUP_LOCATION_PATTERN
    )
    return cleanup, Expect(burn.escape(burn.NON_UNWINDING_ABORT), ())


def interleaved(*sequences: tuple[Expect, ...]) -> tuple[Expect, ...]:
    """Threads that panic at once: each thread's texts in its order, but their texts may
    interleave (a panic's log line, banner and report are separate writes, in burn's hook as
    in the mirror), so each position takes any text of the threads', as many as they print."""
    kinds: dict[str, Expect] = {e.pattern: e for sequence in sequences for e in sequence}
    pattern = "|".join(f"(?:{p})" for p in kinds)
    cites = tuple(dict.fromkeys(c for e in kinds.values() for c in e.cites))
    return tuple(Expect(f"(?:{pattern})", cites) for sequence in sequences for _ in sequence)


def recorder_save_failed(code: int) -> Expect:
    """v0.19.1: the worker's expect prints the error's Debug."""
    site = burn.ASYNC_19["save_failed"]
    recorder = burn.RECORDER_VARIANTS_19["Unknown"]
    wrapper = burn.CHECKPOINTER_VARIANTS_19["RecorderError"]
    debug = wrapper.debug(recorder.debug(rust_str_debug(os_error_display(OSError(code, "")))))
    return Expect(
        burn.escape(burn.expect(site.text.format, debug)),
        _cites(site.text, wrapper, recorder),
        site.location,
    )


def load_failed(name: str, inner: str, inner_texts: tuple = ()) -> Expect:
    """``Can load … checkpoint.: Record(Io("<inner>"))`` (``inner`` a regex)."""
    site = burn.learner_panic(burn.RELEASES["main"], "load", name)
    record, io = burn.CHECKPOINTER_VARIANTS["Record"], burn.RECORD_VARIANTS["Io"]
    prefix = burn.expect(site.text.format, f'{record.name}({io.name}("')
    return Expect(
        burn.escape(prefix) + inner + burn.escape('"))'),
        _cites(site.text, record, io, *inner_texts),
        site.location,
    )


def recorder_load_failed(name: str, inner: str, inner_texts: tuple = ()) -> Expect:
    """v0.19.1: ``Can load … checkpoint.: RecorderError(<inner>)`` (``inner`` a regex for
    the RecorderError's Debug)."""
    site = burn.learner_panic(burn.RELEASES["v0.19.1"], "load", name)
    wrapper = burn.CHECKPOINTER_VARIANTS_19["RecorderError"]
    prefix = burn.expect(site.text.format, f"{wrapper.name}(")
    return Expect(
        burn.escape(prefix) + inner + burn.escape(")"),
        _cites(site.text, wrapper, *inner_texts),
        site.location,
    )


def file_not_found(code: int) -> tuple[str, tuple]:
    """v0.19.1's recorder opening a missing file: ``FileNotFound("<io::Error>")``."""
    variant = burn.RECORDER_VARIANTS_19["FileNotFound"]
    return burn.escape(variant.debug(rust_str_debug(os_error_display(OSError(code, ""))))), (
        variant,
    )


def unable_to_load_record(missing_field: str) -> tuple[str, tuple]:
    """v0.19.1's ``Recorder::load`` when the item lacks a field and the metadata, the same
    as the loading recorder's, reads: no metadata line, then the item's error."""
    texts, unknown = burn.RECORDER_LOAD_19, burn.RECORDER_VARIANTS_19["Unknown"]
    item_error = unknown.debug(rust_str_debug(burn.SERDE_MISSING_FIELD.format(missing_field)))
    message = texts["unable"].render() + texts["error"].render(item_error)
    return burn.escape(unknown.debug(rust_str_debug(message))), (
        unknown,
        texts["unable"],
        texts["error"],
    )


def reader_io(code: int) -> tuple[str, tuple]:
    return burn.PACK["io"].pattern(_os(code)), (burn.PACK["io"],)


def module_panic(key: str, variant: str, inner: str, inner_texts: tuple = ()) -> Expect:
    """``Failed to load …: Io("…")`` / ``Validation("…")`` (``inner`` a regex)."""
    site = burn.MODULE[key]
    io = burn.RECORD_VARIANTS[variant]
    prefix = burn.expect(site.text.format, f'{io.name}("')
    return Expect(
        burn.escape(prefix) + inner + burn.escape('")'),
        _cites(site.text, io, *inner_texts),
        site.location,
    )


def apply_errors(expected: list[int], found: list[int]) -> tuple[str, tuple]:
    """``Apply errors: ["hidden.weight: shape mismatch, …", …]`` inside a Debug string, the
    first mismatch the hidden Linear's weight: burn's ``[d_input, d_output]``."""
    item = burn.SHAPE_MISMATCH.pattern(
        r"hidden\.weight", burn.escape(shape_debug(expected)), burn.escape(shape_debug(found))
    )
    quoted = burn.escape('\\"') + item + burn.escape('\\"')
    return burn.APPLY_ERRORS.pattern(burn.escape("[") + quoted + ".*" + burn.escape("]")), (
        burn.APPLY_ERRORS,
        burn.SHAPE_MISMATCH,
    )


def launched(release: str, *expects: Expect) -> tuple[Expect, ...]:
    """The texts as burn prints them once ``launch`` installed its logger: each panic is
    logged as ``PANIC => panicked at <location>:`` and its message, and announced by the
    banner, before the default hook reports it (application_logger.rs:57-65)."""
    hook = burn.RELEASES[release].panic_hook
    banner = Expect(hook["banner"].pattern(r"/\S+/experiment\.log"), _cites(hook["banner"]))
    before, between, _ = burn.STD["panic_info"].split("{}")
    out: list[Expect] = []
    for expect in expects:
        if expect.where is not None:
            info = burn.escape(before) + expect.where + burn.escape(between) + expect.pattern
            out += [Expect(hook["log"].pattern(info), _cites(hook["log"]) + expect.cites), banner]
        out.append(expect)
    return tuple(out)


def _literal(text: burn.Text) -> tuple[str, tuple]:
    return burn.escape(text.render()), (text,)


def _cites(*items: burn.Text | burn.Variant) -> tuple[str, ...]:
    return tuple(item.citation for item in items)


# -- weights imported into burn (phase "import", trainer.weights) ----------------

# The user's program (trainer.weights.imports) calls unwrap/expect: Rust reports its line.
USER_CODE = r"/\S+/src/main\.rs:\d+:\d+"
GENERATED_CODE = r"/\S+/out/model/mlp\.rs:\d+:\d+"


def unwrapped(debug: str, cites: tuple, location: str = USER_CODE) -> Expect:
    """``.unwrap()`` on the error: std's message, then the error's Debug (``debug``, a regex)."""
    return Expect(burn.escape(burn.STD["unwrap"] + ": ") + debug, cites, location_pattern=location)


def _variant(variant: burn.Variant, inner: str) -> str:
    """A regex for ``Variant(<inner>)``, ``inner`` a regex."""
    return burn.escape(f"{variant.name}(") + inner + burn.escape(")")


def _quoted(text: str) -> str:
    """A regex for a string's Debug: the text as Rust escapes it, quoted."""
    return burn.escape(debug_str(text))


def store_reader_error(*path: burn.Variant, inner: str) -> tuple[str, tuple]:
    """``Reader(Pickle(...))``: nested Debug variants of PytorchStoreError around ``inner``."""
    pattern = inner
    for variant in reversed(path):
        pattern = _variant(variant, pattern)
    return pattern, _cites(*path)


def apply_summary(variant: str, wrapper: burn.Text, *middle: str) -> tuple[str, tuple]:
    """``TensorNotFound("\\n┌─ Tensor Loading Summary …")`` / ``ValidationFailed("Import
    errors:\\n┌─ …")``: the store's ``wrapper`` text around the summary, the summary's first
    line, what it must hold (``middle``: regexes of the Debug-escaped text, in order), and
    its last line."""
    title, end = wt.APPLY_RESULT["title"], wt.APPLY_RESULT["end"]
    start, tail = wrapper.format.split("{}")
    pattern = burn.escape(debug_str(start + title.render())[:-1])  # the Debug, unclosed
    pattern += "".join(f".*{m}" for m in middle)
    pattern += ".*" + burn.escape(debug_str(end.render() + tail)[1:])
    store_variant = wt.PYTORCH_STORE_VARIANTS[variant]
    return _variant(store_variant, pattern), _cites(store_variant, wrapper, title, end)


def recorder_error(wrapper: burn.Text, inner: str, variant: burn.Variant) -> tuple[str, tuple]:
    """``DeserializeError("<wrapper: inner>")``: burn-import's Display in burn-core's
    RecorderError (``inner``: the wrapped error's Display, already a regex)."""
    prefix, suffix = wrapper.format.split("{0}")
    pattern = burn.escape(debug_str(prefix)[:-1]) + inner + burn.escape(debug_str(suffix)[1:])
    return _variant(variant, pattern), _cites(variant, wrapper)


def _literal_in_debug(text: str) -> str:
    """A regex for ``text`` inside a Debug-quoted string (escaped as Rust escapes it)."""
    return burn.escape(debug_str(text)[1:-1])


WHOLE_MODULE_TYPE = "__builtin__.set"  # what real torch.save(model) pickles first (protocol 2)
SAVE_STATE_DICT_FIX = "Save the weights, not the module: torch.save(model.state_dict(), path)."


# -- the messages the knowledge base documents -----------------------------------


def _learner(action: str, name: str, release: str = "main") -> str:
    return burn.learner_panic(burn.RELEASES[release], action, name).text.format


SAVE_FAILED = burn.ASYNC["save_failed"].text.format
DELETE_FAILED = burn.ASYNC["delete_failed"].text.format
SEND = burn.ASYNC["send"].text.format
SEND_END = burn.ASYNC["send_end"].text.format
# Drop sends End before it joins: a dead worker panics the send (SEND_END), a live one
# returns on End, so join never finds a panicked thread (async_checkpoint.rs:145-157).
JOIN = burn.ASYNC["join"].text.format
# restore() waits in receiver.recv() while the worker answers (a channel of capacity 1), so
# the worker's send of the answer never fails (async_checkpoint.rs:30-41, 123-134).
CALLBACK_FAILED = burn.CALLBACK_FAILED.format
PANIC_LOGGED = burn.PANIC_HOOK["log"].format
BANNER = burn.PANIC_HOOK["banner"].format
# AsyncCheckpointer::save returns Ok or panics itself (async_checkpoint.rs:115-121).
RL_SAVES = tuple(_learner("save", name) for name in burn.RL_COMPONENTS)
RL_DELETES = tuple(_learner("delete", name) for name in burn.RL_COMPONENTS)
INTERRUPTED = burn.TRAINING_INTERRUPTED.format
UNABLE_TO_LOAD = burn.RECORDER_LOAD_19["unable"].format
SAVE_THE_STATE = burn.ASYNC_19["save_failed"].text.format
LOAD_FILE = burn.MODULE["load_file"].text.format
SAVES = tuple(_learner("save", name) for name in ("model", "optim", "scheduler"))
NO_SPACE_FIX = "Remove the stray link so the record lands on the checkpoint volume (free space)."
DIRECTORY_FIX = "Remove the directory at the checkpoint file's path."


RL_READ_ONLY_SAVE = worker_save_failed("create", RL_ANY, 4 * burn.RL_EVAL_INTERVAL, EROFS)
RL_DROP = send_failed("main", "send_end")


SCENARIOS: tuple[Scenario, ...] = (
    # -- the standard supervised launcher (main): a failed save stops training, no panic
    Scenario(
        name="supervised-dev-full-model",
        description="The model's checkpoint file cannot be written (no space left): the "
        "launcher's interrupter stops training and the reason is logged; nothing panics.",
        fault="dev-full",
        epoch=2,
        expected=(interrupted("write", "model", 2, ENOSPC),),
        expected_errno=ENOSPC,
        proves=(INTERRUPTED,),
        disproves=(_learner("save", "model"), _learner("delete", "model")),
        fix=NO_SPACE_FIX,
    ),
    Scenario(
        name="supervised-dev-full-optimizer",
        description="Only the optimizer's checkpoint file cannot be written: training stops "
        "with the reason logged.",
        fault="dev-full",
        target="optim",
        epoch=2,
        expected=(interrupted("write", "optim", 2, ENOSPC),),
        expected_errno=ENOSPC,
        proves=(INTERRUPTED,),
        disproves=(_learner("save", "optim"),),
        fix=NO_SPACE_FIX,
    ),
    Scenario(
        name="supervised-directory-at-scheduler-path",
        description="A directory sits where the scheduler's checkpoint file goes: training "
        "stops with the reason logged.",
        fault="directory-at-path",
        target="scheduler",
        epoch=2,
        expected=(interrupted("create", "scheduler", 2, EISDIR),),
        expected_errno=EISDIR,
        proves=(INTERRUPTED,),
        disproves=(_learner("save", "scheduler"),),
        fix=DIRECTORY_FIX,
    ),
    # Faults on the whole volume fail every worker's save; burn's interrupter keeps one
    # reason, the last one given, so the file named is whichever worker failed last.
    Scenario(
        name="supervised-disk-full",
        description="The checkpoint volume fills up: every save fails, training stops and the "
        "last failure's reason is logged.",
        fault="disk-full",
        epoch=2,
        expected=(interrupted("write", ANY, 2, ENOSPC),),
        expected_errno=ENOSPC,
        proves=(INTERRUPTED,),
        disproves=SAVES,
        fix="Free space on the checkpoint volume "
        "(size it for keep-last-N checkpoints plus headroom).",
    ),
    Scenario(
        name="supervised-read-only-volume",
        description="The checkpoint volume is remounted read-only during training.",
        fault="read-only",
        epoch=2,
        expected=(interrupted("create", ANY, 2, EROFS),),
        expected_errno=EROFS,
        proves=(INTERRUPTED,),
        disproves=SAVES,
        fix="Remount the checkpoint volume read-write.",
    ),
    Scenario(
        name="supervised-permission-denied",
        description="Training continues as a user that cannot write into the checkpoint directory.",
        fault="permission-denied",
        epoch=2,
        expected=(interrupted("create", ANY, 2, EACCES),),
        expected_errno=EACCES,
        proves=(INTERRUPTED,),
        disproves=SAVES,
        fix="Give the training user ownership of the checkpoint directory (chown).",
    ),
    Scenario(
        name="supervised-directory-removed",
        description="A cleanup job removes the checkpoint directory between epochs; burnpack's "
        "writer does not create parent directories.",
        fault="directory-removed",
        epoch=2,
        expected=(interrupted("create", ANY, 2, ENOENT),),
        expected_errno=ENOENT,
        proves=(INTERRUPTED,),
        disproves=SAVES,
        fix="Recreate the checkpoint directory (and keep cleanup jobs away from it).",
    ),
    # A Rust program keeps SIGXFSZ's default action: past the limit the kernel ends it with
    # the signal, before the write can return EFBIG. burn prints none of its save texts.
    Scenario(
        name="supervised-file-size-limit",
        description="The process's file size limit (ulimit -f) is below the records' size: "
        "the first write past it kills the process with SIGXFSZ; burn prints nothing, and a "
        "shell reports 'File size limit exceeded'.",
        fault="file-size-limit",
        epoch=2,
        expected=(),
        expected_signal="SIGXFSZ",
        disproves=(INTERRUPTED, SAVE_FAILED, *SAVES),
        fix="Raise the file size limit (ulimit -f unlimited) for the training process.",
    ),
    # -- a hand-built LearningCheckpointer (main), no interrupter: the worker dies
    Scenario(
        name="hand-built-dev-full-model",
        description="No interrupter: the model's worker panics on the failed save, the same "
        "round's Delete finds it gone, and dropping the checkpointer while unwinding panics "
        "again (the two panics of tracel-ai/burn#3990); that panic in a destructor during "
        "cleanup aborts the process (SIGABRT).",
        setup="hand-built",
        fault="dev-full",
        expected=launched(
            "main",
            worker_save_failed("write", "model", 3, ENOSPC),
            closed_channel("main", "delete", "model"),
            send_failed("main", "send_end"),
            *aborted(),
        ),
        expected_errno=ENOSPC,
        expected_signal=burn.ABORT_SIGNAL,
        proves=(SAVE_FAILED, _learner("delete", "model"), SEND_END, PANIC_LOGGED, BANNER),
        disproves=(_learner("save", "model"), JOIN),
        fix=NO_SPACE_FIX,
    ),
    Scenario(
        name="hand-built-dev-full-optimizer",
        description="No interrupter: only the optimizer's worker dies; the optimizer's Delete "
        "of the same round finds it gone.",
        setup="hand-built",
        fault="dev-full",
        target="optim",
        expected=launched(
            "main",
            worker_save_failed("write", "optim", 3, ENOSPC),
            closed_channel("main", "delete", "optim"),
            send_failed("main", "send_end"),
            *aborted(),
        ),
        expected_errno=ENOSPC,
        expected_signal=burn.ABORT_SIGNAL,
        proves=(SAVE_FAILED, _learner("delete", "optim")),
        disproves=(_learner("save", "optim"), JOIN),
        fix=NO_SPACE_FIX,
    ),
    Scenario(
        name="hand-built-directory-at-scheduler-path",
        description="No interrupter: a directory at the scheduler's file path kills its worker; "
        "the scheduler's Delete finds it gone.",
        setup="hand-built",
        fault="directory-at-path",
        target="scheduler",
        expected=launched(
            "main",
            worker_save_failed("create", "scheduler", 3, EISDIR),
            closed_channel("main", "delete", "scheduler"),
            send_failed("main", "send_end"),
            *aborted(),
        ),
        expected_errno=EISDIR,
        expected_signal=burn.ABORT_SIGNAL,
        proves=(SAVE_FAILED, _learner("delete", "scheduler")),
        disproves=(_learner("save", "scheduler"), JOIN),
        fix=DIRECTORY_FIX,
    ),
    Scenario(
        name="hand-built-immutable-old-checkpoint",
        description="No interrupter: the old model checkpoint the strategy deletes is immutable; "
        "the worker panics on the delete, and the next epoch's Save cannot reach it.",
        setup="hand-built",
        fault="immutable",
        expected=launched(
            "main",
            worker_delete_failed(EPERM),
            send_failed("main", "send"),
            send_failed("main", "send_end"),
            *aborted(),
        ),
        expected_errno=EPERM,
        expected_signal=burn.ABORT_SIGNAL,
        proves=(DELETE_FAILED, SEND),
        disproves=(JOIN,),
        fix="Clear the immutable attribute (chattr -i) set by a backup or retention tool.",
    ),
    # -- the RL paradigm (main): no interrupter either; it checkpoints at step counts
    Scenario(
        name="rl-dev-full-policy",
        description="The RL paradigm attaches no interrupter: the policy's worker panics on the "
        "failed save. Its default strategy never deletes at step counts, so the next "
        "evaluation's Save is the call that finds the worker gone.",
        setup="rl",
        fault="dev-full",
        target="policy",
        epoch=2,
        expected=launched(
            "main",
            worker_save_failed("write", "policy", 2 * burn.RL_EVAL_INTERVAL, ENOSPC),
            send_failed("main", "send"),
            send_failed("main", "send_end"),
            *aborted(),
        ),
        expected_errno=ENOSPC,
        expected_signal=burn.ABORT_SIGNAL,
        proves=(SAVE_FAILED, SEND, SEND_END),
        disproves=RL_SAVES,
        fix=NO_SPACE_FIX,
    ),
    Scenario(
        name="rl-keep-last-dev-full-policy",
        description="The RL paradigm with a keep-last-2 strategy sends a Delete every "
        "evaluation: after the policy's worker panics on the failed save, that Delete "
        "finds it gone.",
        setup="rl-keep-last",
        fault="dev-full",
        target="policy",
        epoch=2,
        expected=launched(
            "main",
            worker_save_failed("write", "policy", 2 * burn.RL_EVAL_INTERVAL, ENOSPC),
            closed_channel("main", "delete", "policy"),
            send_failed("main", "send_end"),
            *aborted(),
        ),
        expected_errno=ENOSPC,
        expected_signal=burn.ABORT_SIGNAL,
        proves=(SAVE_FAILED, _learner("delete", "policy"), SEND_END),
        fix=NO_SPACE_FIX,
    ),
    Scenario(
        name="rl-dev-full-learning-agent",
        description="The RL paradigm attaches no interrupter: the learning agent's worker "
        "panics on the failed save. At the next evaluation the policy saves, and the learning "
        "agent's Save finds its worker gone: AsyncCheckpointer::save panics itself, so "
        "'Can save learning agent checkpoint.' is never printed.",
        setup="rl",
        fault="dev-full",
        target="learning-agent",
        epoch=2,
        expected=launched(
            "main",
            worker_save_failed("write", "learning-agent", 2 * burn.RL_EVAL_INTERVAL, ENOSPC),
            send_failed("main", "send"),
            send_failed("main", "send_end"),
            *aborted(),
        ),
        expected_errno=ENOSPC,
        expected_signal=burn.ABORT_SIGNAL,
        proves=(SAVE_FAILED, SEND, SEND_END),
        disproves=RL_SAVES,
        fix=NO_SPACE_FIX,
    ),
    Scenario(
        name="rl-keep-last-dev-full-learning-agent",
        description="The RL paradigm with a keep-last-2 strategy: after the learning agent's "
        "worker panics on the failed save, the same evaluation's Delete reaches the policy's "
        "worker (it names step - 2, never saved, so no file is removed), then finds the "
        "learning agent's worker gone.",
        setup="rl-keep-last",
        fault="dev-full",
        target="learning-agent",
        epoch=2,
        expected=launched(
            "main",
            worker_save_failed("write", "learning-agent", 2 * burn.RL_EVAL_INTERVAL, ENOSPC),
            closed_channel("main", "delete", "learning-agent"),
            send_failed("main", "send_end"),
            *aborted(),
        ),
        expected_errno=ENOSPC,
        expected_signal=burn.ABORT_SIGNAL,
        proves=(SAVE_FAILED, _learner("delete", "learning-agent"), SEND_END),
        fix=NO_SPACE_FIX,
    ),
    # A fault on the whole volume kills both workers in the last evaluation's round. The
    # default strategy sends no Delete at step counts, so nothing reaches the dead workers
    # until the checkpointer is dropped: the policy's Drop panics, and the learning agent's
    # Drop panics again while that panic unwinds, which aborts the process.
    Scenario(
        name="rl-read-only-volume-last-evaluation",
        description="The RL paradigm, default strategy: the checkpoint volume turns read-only "
        "before the last evaluation. Both workers panic on their saves; no Delete was sent in "
        "any evaluation, so the first call to reach them is the policy checkpointer's Drop at "
        "the end of training, and the learning agent's Drop, panicking while that unwinds, "
        "aborts the process (SIGABRT).",
        setup="rl",
        fault="read-only",
        target="policy",
        epoch=4,
        # Both workers panic at once, and the second may die before or after the policy's
        # Drop finds the first gone: their texts interleave.
        expected=(
            *interleaved(
                launched("main", RL_READ_ONLY_SAVE),
                launched("main", RL_READ_ONLY_SAVE),
                launched("main", RL_DROP),
            ),
            *launched("main", RL_DROP, *aborted()),
        ),
        expected_errno=EROFS,
        expected_signal=burn.ABORT_SIGNAL,
        proves=(SAVE_FAILED, SEND_END),
        disproves=(*RL_DELETES, *RL_SAVES, SEND, DELETE_FAILED),
        fix="Remount the checkpoint volume read-write.",
    ),
    # -- burn <= 0.19.1, LearnerBuilder: the worker expects, and dies
    Scenario(
        name="learner-builder-directory-at-model-path",
        description="burn 0.19: a directory at the model's file path; the recorder cannot "
        "replace it, the worker panics, and the learner's Delete finds the channel closed "
        "(tracel-ai/burn#3990); Drop panics while unwinding, and the process aborts.",
        setup="learner-builder",
        fault="directory-at-path",
        expected=launched(
            "v0.19.1",
            recorder_save_failed(EISDIR),
            closed_channel("v0.19.1", "delete", "model"),
            send_failed("v0.19.1", "send_end"),
            *aborted(),
        ),
        expected_errno=EISDIR,
        expected_signal=burn.ABORT_SIGNAL,
        proves=(
            SAVE_THE_STATE,
            _learner("delete", "model", "v0.19.1"),
            SEND_END,
            PANIC_LOGGED,
            BANNER,
        ),
        disproves=(_learner("save", "model", "v0.19.1"),),
        fix=DIRECTORY_FIX,
    ),
    Scenario(
        name="learner-builder-resume-added-layer",
        description="burn 0.19: resuming a model that gained a layer (`extra`, declared "
        "before `output`) from checkpoints saved without it. The recorder cannot decode the "
        "item (serde: missing field), reads the metadata alone, and returns 'Unable to load "
        "record.' with the item's error; the learner's restore panics with it.",
        setup="learner-builder",
        phase="resume",
        fault="none",
        resume=3,
        overrides={"extra_layer": True},
        expected=launched(
            "v0.19.1", recorder_load_failed("model", *unable_to_load_record("extra"))
        ),
        proves=(UNABLE_TO_LOAD, _learner("load", "model", "v0.19.1"), PANIC_LOGGED, BANNER),
        fix="Resume with the model the checkpoints were saved from (no extra layer).",
        fixed_overrides={"extra_layer": False},
        remedy=False,
    ),
    Scenario(
        name="learner-builder-resume-missing-epoch",
        description="burn 0.19: resuming from epoch 1, which keep-last-2 already deleted: the "
        "recorder's open fails with FileNotFound, and the learner's restore panics with it.",
        setup="learner-builder",
        phase="resume",
        fault="none",
        epoch=1,
        resume=1,
        expected=launched("v0.19.1", recorder_load_failed("model", *file_not_found(ENOENT))),
        expected_errno=ENOENT,
        proves=(_learner("load", "model", "v0.19.1"),),
        fix="Resume from the latest kept epoch (3).",
        fixed_overrides={"resume": 3},
    ),
    # -- resuming (SupervisedTraining::launch restores before training)
    Scenario(
        name="resume-missing-epoch",
        description="Resuming from epoch 1, which keep-last-2 already deleted.",
        phase="resume",
        fault="none",
        epoch=1,
        resume=1,
        expected=launched("main", load_failed("model", *reader_io(ENOENT))),
        expected_errno=ENOENT,
        proves=(_learner("load", "model"), PANIC_LOGGED, BANNER),
        disproves=(CALLBACK_FAILED,),
        fix="Resume from the latest kept epoch (3).",
        fixed_overrides={"resume": 3},
    ),
    Scenario(
        name="resume-unreadable-model-checkpoint",
        description="The checkpoint was written by root with mode 0600; the resume runs as "
        "another user.",
        phase="resume",
        fault="unreadable-file",
        resume=3,
        expected=launched("main", load_failed("model", *reader_io(EACCES))),
        expected_errno=EACCES,
        proves=(_learner("load", "model"),),
        disproves=(CALLBACK_FAILED,),
        fix="Give the training user ownership of the checkpoint directory and files (chown -R).",
    ),
    Scenario(
        name="resume-truncated-model-checkpoint",
        description="The model checkpoint was cut short (an interrupted copy or write).",
        phase="resume",
        fault="truncated",
        resume=3,
        expected=launched(
            "main",
            load_failed(
                "model",
                burn.PACK["validation"].pattern(burn.PACK["truncated"].pattern(r"\d+", r"\d+")),
                (burn.PACK["validation"], burn.PACK["truncated"]),
            ),
        ),
        proves=(_learner("load", "model"), burn.PACK["truncated"].format),
        disproves=(CALLBACK_FAILED,),
        fix="Resume from the previous intact epoch (2); "
        "burn has no checksum to catch subtler damage.",
        fixed_overrides={"resume": 2},
    ),
    Scenario(
        name="resume-missing-optimizer-file",
        description="Only the optimizer's file of the epoch is gone; the model loads first.",
        phase="resume",
        fault="file-removed",
        target="optim",
        resume=3,
        expected=launched("main", load_failed("optim", *reader_io(ENOENT))),
        expected_errno=ENOENT,
        proves=(_learner("load", "optim"),),
        disproves=(CALLBACK_FAILED,),
        fix="Resume from the latest epoch whose files are all present (2).",
        fixed_overrides={"resume": 2},
    ),
    Scenario(
        name="resume-directory-at-scheduler-path",
        description="A directory replaced the scheduler's file of the epoch.",
        phase="resume",
        fault="directory-at-path",
        target="scheduler",
        resume=3,
        expected=launched("main", load_failed("scheduler", *reader_io(EISDIR))),
        expected_errno=EISDIR,
        proves=(_learner("load", "scheduler"),),
        disproves=(CALLBACK_FAILED,),
        fix="Remove the directory and resume from the latest complete epoch (2).",
        fixed_overrides={"resume": 2},
    ),
    Scenario(
        name="resume-changed-architecture",
        description="Resuming with a wider model (hidden_dim 64) from checkpoints of hidden_dim "
        "32: the record reads, then does not fit.",
        phase="resume",
        fault="none",
        resume=3,
        overrides={"hidden_dim": 64},
        expected=launched(
            "main", module_panic("load_record", "Validation", *apply_errors([16, 64], [16, 32]))
        ),
        proves=(burn.MODULE["load_record"].text.format,),
        disproves=(CALLBACK_FAILED,),
        fix="Resume with the architecture the checkpoints were saved from (hidden_dim 32).",
        fixed_overrides={"hidden_dim": 32},
        remedy=False,
    ),
    Scenario(
        name="rl-resume-missing-learning-agent-file",
        description="The RL paradigm resumes from step 30 000 (RLTraining::checkpoint): the "
        "policy's record loads first, and the learning agent's file of that step is gone.",
        setup="rl",
        phase="resume",
        fault="file-removed",
        target="learning-agent",
        resume=3,
        expected=launched("main", load_failed("learning-agent", *reader_io(ENOENT))),
        expected_errno=ENOENT,
        proves=(_learner("load", "learning-agent"),),
        disproves=(CALLBACK_FAILED,),
        fix="Resume from the latest step whose files are all present (20 000).",
        fixed_overrides={"resume": 2},
    ),
    # -- Module::load_file: weights from a file that is not a fitting record
    Scenario(
        name="init-from-foreign-file",
        description="The weights file is a torch.save() zip, not a burnpack record.",
        phase="init",
        fault="foreign-file",
        epoch=0,
        expected=(module_panic("load_file", "Io", *_literal(burn.PACK["magic"])),),
        proves=(LOAD_FILE, burn.PACK["magic"].format),
        fix="Convert the weights to the record format before loading them.",
    ),
    Scenario(
        name="init-from-short-file",
        description="The weights file stops inside the header (a failed download).",
        phase="init",
        fault="short-file",
        epoch=0,
        expected=(
            module_panic(
                "load_file",
                "Io",
                burn.PACK["io"].pattern(burn.escape("failed to fill whole buffer")),
                (burn.PACK["io"],),
            ),
        ),
        proves=(LOAD_FILE,),
        fix="Fetch the weights file again, completely.",
    ),
    Scenario(
        name="init-changed-architecture",
        description="The weights were saved from a wider model (hidden_dim 64, now 32): "
        "load_file reads them, then they do not fit, under the same expect.",
        phase="init",
        fault="other-architecture",
        epoch=0,
        expected=(module_panic("load_file", "Validation", *apply_errors([16, 32], [16, 64])),),
        proves=(LOAD_FILE,),
        fix="Build the model with the architecture the record was saved from (hidden_dim 64).",
        fixed_overrides={"hidden_dim": 64},
        remedy=False,
    ),
    Scenario(
        name="init-from-newer-version-file",
        description="The weights file's header names a newer burnpack format version than "
        "this reader supports (read_header, burn-pack reader.rs at main).",
        phase="init",
        fault="newer-version",
        epoch=0,
        expected=(module_panic("load_file", "Io", *_literal(burn.PACK["version"])),),
        proves=(LOAD_FILE, burn.PACK["version"].format),
        fix="Load the file with the burn release that wrote it, or write it again with this one.",
    ),
    Scenario(
        name="init-from-bad-metadata-file",
        description="The weights file has a valid header, then metadata bytes that do not "
        "decode (parse_metadata, burn-pack reader.rs at main).",
        phase="init",
        fault="bad-metadata",
        epoch=0,
        expected=(
            module_panic(
                "load_file",
                "Io",
                burn.PACK["metadata"].pattern(".+"),
                (burn.PACK["metadata"],),
            ),
        ),
        proves=(LOAD_FILE, burn.PACK["metadata"].format),
        fix="Replace the weights file with an intact record.",
    ),
    # -- burn 0.21, the Dispatch backend: launch restores on the default device
    Scenario(
        name="resume-on-default-device",
        description="burn 0.21 on the Dispatch backend: resuming restores the checkpoint on "
        "`Default::default()`, which is never an autodiff device; the model's parameters keep "
        "that device (to Dispatch an autodiff device equals its inner one), and forking the "
        "learner onto the training (autodiff) device panics in float_to_device "
        "(tracel-ai/burn#5084). The checkpoint files are intact and load.",
        setup="supervised-dispatch",
        phase="resume",
        fault="none",
        resume=3,
        expected=launched(
            "v0.21.0",
            Expect(
                burn.escape(burn.DISPATCH["to_device"].text.render()),
                _cites(burn.DISPATCH["to_device"].text),
                burn.DISPATCH["to_device"].location,
            ),
        ),
        proves=(burn.DISPATCH["to_device"].text.format, PANIC_LOGGED, BANNER),
        fix="Upgrade burn to 0.22.0-pre.1 or later: tracel-ai/burn#5084 restores the "
        "checkpoint on the training device.",
        fixed_overrides={"restore_device": "training"},
        remedy=False,
    ),
    # -- the TUI renderer's time estimate on a resume: Rust's own message at burn's line
    Scenario(
        name="resume-tui-estimate-underflow",
        description="A run trained its 3 epochs; resumed from checkpoint 3 with 4 epochs under "
        "the TUI renderer on burn's main from 6b721d88 to 2785abb3 (in no release), the "
        "renderer is sent epoch 1 first, not 4, while its estimate counts from 3: once the "
        "estimate starts (the 6th item, 12 s in) `1 - 3` underflows on the renderer's thread "
        "(tracel-ai/burn#5091). Training goes on without the dashboard.",
        setup="supervised-tui",
        phase="tui-resume",
        fault="none",
        resume=3,
        expected=launched(
            "main",
            Expect(burn.escape(burn.OVERFLOW["sub"]), (), ESTIMATE["init_epoch"].location),
        ),
        proves=(burn.OVERFLOW["sub"], PANIC_LOGGED, BANNER),
        fix="Upgrade burn to 0.22.0-pre.1 or later: tracel-ai/burn#5109 sends the renderer the "
        "resumed epoch first.",
        remedy=False,
    ),
    # -- importing PyTorch weights: burn-store's PytorchStore (main), model.load_from().unwrap()
    Scenario(
        name="pytorch-store-whole-module",
        description="The PyTorch file holds the whole module (torch.save(model)), not its "
        "state_dict. burn-store's pickle reader meets the module's __dict__, whose first "
        "value it cannot rebuild is a set (pickled by protocol 2 as __builtin__.set): "
        "UnsupportedType, before any check that the root is a dictionary.",
        setup="pytorch-store",
        phase="import",
        fault="whole-module",
        epoch=0,
        expected=(
            unwrapped(
                *store_reader_error(
                    wt.PYTORCH_STORE_VARIANTS["Reader"],
                    wt.READER_VARIANTS["Pickle"],
                    wt.PICKLE_VARIANTS["UnsupportedType"],
                    inner=_quoted(WHOLE_MODULE_TYPE),
                )
            ),
        ),
        proves=(wt.PICKLE_DISPLAY["UnsupportedType"].format,),
        disproves=(wt.READER_FORMAT["not_a_dict"].format,),
        fix=SAVE_STATE_DICT_FIX,
    ),
    Scenario(
        name="pytorch-store-truncated-download",
        description="The PyTorch file (a state_dict) stops halfway, as a download that failed: "
        "no zip central directory, so burn-store reads it as a plain pickle, and its first "
        "byte, the zip's 'P', is no opcode burn knows.",
        setup="pytorch-store",
        phase="import",
        fault="truncated-download",
        epoch=0,
        expected=(
            unwrapped(
                *store_reader_error(
                    wt.PYTORCH_STORE_VARIANTS["Reader"],
                    wt.READER_VARIANTS["Pickle"],
                    wt.PICKLE_VARIANTS["InvalidOpCode"],
                    inner=burn.escape(str(ord("P"))),
                )
            ),
        ),
        proves=(wt.READER_DISPLAY["Pickle"].format,),
        fix="Download the weights file again, completely.",
    ),
    Scenario(
        name="pytorch-store-tensor-list",
        description="The PyTorch file holds a list of the model's tensors "
        "(torch.save(list(model.state_dict().values()))): the pickle reads, and its root is "
        "no dictionary.",
        setup="pytorch-store",
        phase="import",
        fault="tensor-list",
        epoch=0,
        expected=(
            unwrapped(
                *store_reader_error(
                    wt.PYTORCH_STORE_VARIANTS["Reader"],
                    wt.READER_VARIANTS["InvalidFormat"],
                    inner=_quoted(wt.READER_FORMAT["not_a_dict"].render()),
                )
            ),
        ),
        proves=(wt.READER_FORMAT["not_a_dict"].format,),
        fix=SAVE_STATE_DICT_FIX,
    ),
    Scenario(
        name="pytorch-store-prefixed-keys",
        description="Every key of the state_dict is under 'model.' (saved from a wrapper "
        "module): no tensor of burn's model is found; the summary suggests the prefixed names.",
        setup="pytorch-store",
        phase="import",
        fault="prefixed-keys",
        epoch=0,
        expected=(
            unwrapped(
                *apply_summary(
                    "TensorNotFound",
                    wt.PYTORCH_STORE["missing_hint"],
                    _literal_in_debug(wt.APPLY_RESULT["missing"].render(4)),
                    _literal_in_debug(wt.APPLY_RESULT["did_you_mean"].render("model.hidden.bias")),
                )
            ),
        ),
        proves=(wt.PYTORCH_STORE_DISPLAY["TensorNotFound"].format,),
        fix='Remap the keys: PytorchStore::from_file(path).with_key_remapping(r"^model\\.(.*)", '
        '"$1").',
    ),
    Scenario(
        name="pytorch-store-nested-checkpoint",
        description="The state_dict is under 'model_state_dict' in a training checkpoint: "
        "burn-store reads every tensor under its full dotted name, and none is burn's.",
        setup="pytorch-store",
        phase="import",
        fault="nested-checkpoint",
        epoch=0,
        expected=(
            unwrapped(
                *apply_summary(
                    "TensorNotFound",
                    wt.PYTORCH_STORE["missing_hint"],
                    _literal_in_debug(wt.APPLY_RESULT["item"].render("model_state_dict.")),
                )
            ),
        ),
        proves=(wt.PYTORCH_STORE_DISPLAY["TensorNotFound"].format,),
        fix='Read the state_dict from its key: .with_top_level_key("model_state_dict").',
    ),
    Scenario(
        name="pytorch-store-wider-model",
        description="The state_dict is of a wider model (hidden_dim 64) than burn's (32): three "
        "tensors' shapes differ, and the store fails validation. (The shapes print as cubecl's "
        "Shape Debug, not burn's text: not pinned.)",
        setup="pytorch-store",
        phase="import",
        fault="wider-model",
        epoch=0,
        expected=(
            unwrapped(
                *apply_summary(
                    "ValidationFailed",
                    wt.PYTORCH_STORE["import_errors"],
                    _literal_in_debug(wt.APPLY_RESULT["errors"].render(3)),
                    wt.APPLY_ERROR_DISPLAY["ShapeMismatch"].pattern(
                        r"hidden\.weight", ".+?", ".+?"
                    ),
                )
            ),
        ),
        proves=(wt.APPLY_ERROR_DISPLAY["ShapeMismatch"].format,),
        fix="Build burn's model with the architecture the weights were saved from (hidden_dim 64).",
        fixed_overrides={"hidden_dim": 64},
    ),
    # -- burn-import's PyTorchFileRecorder (0.19.0 - 0.20.1): the reader's Display in
    # DeserializeError, under the user's unwrap
    Scenario(
        name="pytorch-recorder-whole-module",
        description="burn-import 0.19 - 0.20: the whole module pickled (torch.save(model)); the "
        "recorder shows burn-store's reader error with its Display, in a DeserializeError "
        "(note burn's double period).",
        setup="pytorch-recorder",
        phase="import",
        fault="whole-module",
        epoch=0,
        expected=(
            unwrapped(
                *recorder_error(
                    wt.IMPORT_ERROR_DISPLAY_20["Store"],
                    _literal_in_debug(
                        wt.READER_DISPLAY_20["Pickle"].render(
                            wt.PICKLE_DISPLAY_20["UnsupportedType"].render(WHOLE_MODULE_TYPE)
                        )
                    ),
                    wt.RECORDER_VARIANTS_20["DeserializeError"],
                )
            ),
        ),
        proves=(
            wt.PICKLE_DISPLAY_20["UnsupportedType"].format,
            wt.READER_DISPLAY_20["Pickle"].format,
        ),
        disproves=(wt.READER_FORMAT_20["not_a_dict"].format,),
        fix=SAVE_STATE_DICT_FIX,
    ),
    Scenario(
        name="pytorch-recorder-truncated-download",
        description="burn-import 0.19 - 0.20: a state_dict file cut halfway is read as a plain "
        "pickle whose first byte is no opcode.",
        setup="pytorch-recorder",
        phase="import",
        fault="truncated-download",
        epoch=0,
        expected=(
            unwrapped(
                *recorder_error(
                    wt.IMPORT_ERROR_DISPLAY_20["Store"],
                    _literal_in_debug(
                        wt.READER_DISPLAY_20["Pickle"].render(
                            wt.PICKLE_DISPLAY_20["InvalidOpCode"].render(f"{ord('P'):02x}")
                        )
                    ),
                    wt.RECORDER_VARIANTS_20["DeserializeError"],
                )
            ),
        ),
        proves=(wt.READER_DISPLAY_20["Pickle"].format,),
        fix="Download the weights file again, completely.",
    ),
    Scenario(
        name="pytorch-recorder-renamed-layer",
        description="burn-import 0.19 - 0.20: the PyTorch model names its last layer 'head', "
        "burn's 'output'. The record's 'output' field is missing, and a Linear's record has "
        "no default.",
        setup="pytorch-recorder",
        phase="import",
        fault="renamed-layer",
        epoch=0,
        expected=(
            unwrapped(
                *recorder_error(
                    wt.IMPORT_ERROR_DISPLAY_20["Serde"],
                    _literal_in_debug(
                        wt.SERDE_ERROR_DISPLAY_20["Other"].render(
                            wt.SERDE_DE_20["missing_source"].render("output", "LinearRecordItem")
                        )
                    ),
                    wt.RECORDER_VARIANTS_20["DeserializeError"],
                )
            ),
        ),
        proves=(
            wt.SERDE_DE_20["missing_source"].format,
            wt.IMPORT_ERROR_DISPLAY_20["Serde"].format,
        ),
        fix='Remap the keys: LoadArgs::new(path).with_key_remap(r"^head\\.(.*)", "output.$1").',
    ),
    Scenario(
        name="pytorch-recorder-enum-block",
        description="burn-import 0.19 - 0.20: burn's hidden layer is an enum of blocks (a struct "
        "around a Linear); the file's is a plain Linear. Each variant misses its fields: "
        "No variant match.",
        setup="pytorch-recorder",
        phase="import",
        fault="enum-block",
        epoch=0,
        expected=(
            unwrapped(
                *recorder_error(
                    wt.IMPORT_ERROR_DISPLAY_20["Serde"],
                    _literal_in_debug(
                        wt.SERDE_ERROR_DISPLAY_20["Deserialize"].render(
                            wt.SERDE_DE_20["no_variant"].render()
                        )
                    ),
                    wt.RECORDER_VARIANTS_20["DeserializeError"],
                )
            ),
        ),
        proves=(wt.SERDE_DE_20["no_variant"].format, wt.IMPORT_ERROR_DISPLAY_20["Serde"].format),
        fix="Remap the keys into the variant's fields: "
        'LoadArgs::new(path).with_key_remap(r"^hidden\\.(weight|bias)$", "hidden.linear.$1").',
    ),
    Scenario(
        name="safetensors-recorder-pytorch-file",
        description="burn-import 0.19 - 0.20: the file the safetensors recorder reads is a "
        "PyTorch state_dict (a zip archive): candle's safetensors loader refuses its header. "
        "burn's wrapper holds candle's text, the safetensors crate's (not burn's: not pinned).",
        setup="safetensors-recorder",
        phase="import",
        fault="pytorch-file-as-safetensors",
        epoch=0,
        expected=(
            unwrapped(
                *recorder_error(
                    wt.IMPORT_CANDLE_DISPLAY_20["CandleTensor"],
                    ".+",
                    wt.RECORDER_VARIANTS_20["DeserializeError"],
                )
            ),
        ),
        proves=(wt.IMPORT_CANDLE_DISPLAY_20["CandleTensor"].format,),
        fix="Read a safetensors file (safetensors.torch.save_file(model.state_dict(), path)), "
        "or read the PyTorch file with PyTorchFileRecorder.",
    ),
    # -- burn-import 0.12.1: candle reads the file; the generated ONNX model
    Scenario(
        name="candle-recorder-legacy-pickle",
        description="burn-import 0.12: the state_dict is saved in PyTorch's legacy (non-zip) "
        "format, which candle's pickle reader cannot open. burn's wrapper holds candle's "
        "error, which is the zip crate's text (not burn's: not pinned).",
        setup="candle-recorder",
        phase="import",
        fault="legacy-pickle",
        epoch=0,
        expected=(
            unwrapped(
                *recorder_error(
                    wt.IMPORT_ERROR_DISPLAY_12["CandlePickle"],
                    ".+",
                    wt.RECORDER_VARIANTS_12["DeserializeError"],
                )
            ),
        ),
        proves=(wt.IMPORT_ERROR_DISPLAY_12["CandlePickle"].format,),
        fix="Save the state_dict in the zip format (torch.save's default since PyTorch 1.6).",
    ),
    Scenario(
        name="onnx-generated-record-file-gone",
        description="burn-import 0.12: a model generated from ONNX loads its weights at run "
        "time from the record file the build wrote under OUT_DIR; the file is gone (another "
        "machine, a cleaned target directory).",
        setup="onnx-record-file",
        phase="import",
        fault="record-file-gone",
        epoch=0,
        expected=(
            Expect(
                burn.escape(
                    burn.expect(
                        wt.RECORD_FILE_TO_EXIST.format,
                        wt.RECORDER_VARIANTS_12["FileNotFound"].debug(
                            rust_str_debug(os_error_display(OSError(ENOENT, "")))
                        ),
                    )
                ),
                _cites(wt.RECORD_FILE_TO_EXIST, wt.RECORDER_VARIANTS_12["FileNotFound"]),
                location_pattern=GENERATED_CODE,
            ),
        ),
        expected_errno=ENOENT,
        proves=(wt.RECORD_FILE_TO_EXIST.format,),
        fix="Ship the record file with the program at the path the generated code names, or "
        "embed the weights: ModelGen::embed_states(true).",
    ),
    Scenario(
        name="onnx-generated-burnpack-file-gone",
        description="burn-import 0.20: a model generated from ONNX loads its weights at run "
        "time from the burnpack file the build wrote under OUT_DIR; the file is gone. The "
        "burnpack reader's open fails first, its I/O error in the generated code's expect.",
        setup="onnx-burnpack-file",
        phase="import",
        fault="burnpack-file-gone",
        epoch=0,
        expected=(
            Expect(
                burn.escape(
                    burn.expect(
                        wt.FAILED_TO_LOAD_BURNPACK.format,
                        wt.BURNPACK_VARIANTS_20["IoError"].debug(
                            rust_str_debug(os_error_display(OSError(ENOENT, "")))
                        ),
                    )
                ),
                _cites(wt.FAILED_TO_LOAD_BURNPACK, wt.BURNPACK_VARIANTS_20["IoError"]),
                location_pattern=GENERATED_CODE,
            ),
        ),
        expected_errno=ENOENT,
        proves=(wt.FAILED_TO_LOAD_BURNPACK.format, wt.BURNPACK_DISPLAY_20["IoError"].format),
        fix="Ship the .bpk file with the program at the path the generated code names, or "
        "embed the weights: ModelGen::embed_states(true).",
    ),
)

_BY_NAME = {scenario.name: scenario for scenario in SCENARIOS}


def get(name: str) -> Scenario:
    """The scenario called ``name``; ``KeyError`` lists the known names."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise KeyError(f"unknown scenario {name!r}; known: {', '.join(_BY_NAME)}") from None


def registry() -> list[dict[str, Any]]:
    """The registry as JSON-ready dicts, in a stable order."""
    return [scenario.to_dict() for scenario in SCENARIOS]
