"""burn's release lines, and the set-ups through which its public API wires checkpointing."""

from __future__ import annotations

from dataclasses import dataclass, replace

from trainer.burn.sources import (
    ASYNC_RS,
    BEFORE_5109,
    DISPATCH_DEVICE_RS,
    DISPATCH_MACROS_RS,
    DISPATCH_TENSOR_RS,
    LEARNER_RS,
    MAIN,
    RECORDER_RS_19,
    RL_RS,
    TRAIN,
    V0_12_1,
    V0_19_1,
    V0_20_1,
    V0_21_0,
)
from trainer.burn.text import Panic, Text
from trainer.burn.texts import (
    ASYNC,
    ASYNC_19,
    ASYNC_21,
    LEARNER,
    LEARNER_19,
    LEARNER_21,
    PANIC_HOOK,
    PANIC_HOOK_19,
    PANIC_HOOK_21,
    RL,
)


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
    panic_hook: dict[str, Text]  # what the launcher's logger prints for each panic


_MAIN = Release(
    "main",
    MAIN,
    "main at 2c06be35 (47 commits past v0.22.0-pre.2)",
    "bpk",
    LEARNER,
    RL,
    ASYNC,
    worker_shows_display=True,
    panic_hook=PANIC_HOOK,
)

RELEASES = {
    "main": _MAIN,
    "v0.19.1": Release(
        "v0.19.1",
        V0_19_1,
        "0.13.0 – 0.19.1",
        "mpk",  # CompactRecorder's extension: see the learner-builder set-up's citations
        LEARNER_19,
        {},
        ASYNC_19,
        worker_shows_display=False,
        panic_hook=PANIC_HOOK_19,
    ),
    # The Dispatch backend's resume (tracel-ai/burn#5084). Checked at each tag: the restore
    # on `Default::default()` (strategies/base.rs:179), Dispatch's devices, the fork, the
    # panic's text and its location (ops/tensor.rs:39:9) and the logger's lines are the same
    # from 0.21.0-pre.3 (at pre.2 the panic is reported at ops/tensor.rs:41:9; the learner's
    # texts stand one line lower at pre.3 than here).
    "v0.21.0": Release(
        "v0.21.0",
        V0_21_0,
        "0.21.0-pre.3 – 0.21.0",
        "mpk",  # CompactRecorder's extension: see the supervised-dispatch set-up's citations
        LEARNER_21,
        {},
        ASYNC_21,
        worker_shows_display=True,  # panic!("...{err}"), or the interrupter
        panic_hook=PANIC_HOOK_21,
    ),
    # The TUI renderer's start between 6b721d88 and 2785abb3 (before tracel-ai/burn#5109):
    # commits of main no release holds. Its checkpointers, logger and launcher work as at
    # main (the same files but for the launcher's line numbers), so it is main's line but for
    # its name, commit and the releases it stands for.
    "main-2785abb3": replace(
        _MAIN,
        commit=BEFORE_5109,
        versions="main at 2785abb3 (6b721d88 – 2785abb3, in no release; fixed before 0.22.0-pre.1)",
    ),
    # Importing weights (trainer.weights): burn-import's recorders and generated code, each
    # checked at the releases named. These lines train nothing: a fixed import trains with
    # main's supervised set-up, so they hold no learner texts, and its checkpoints are .bpk.
    "v0.20.1": Release(
        "v0.20.1",
        V0_20_1,
        "0.19.0 – 0.20.1",  # burn-import's pytorch/ and burn-core's serde/ are the same
        "bpk",
        {},
        {},
        {},
        worker_shows_display=False,
        panic_hook={},
    ),
    # The generated ONNX model's burnpack file: only 0.20.1 checked (0.20.0-pre.5 has the same
    # expect, but burn-store's burnpack reader changed before 0.20.1).
    "v0.20.1-burnpack": Release(
        "v0.20.1", V0_20_1, "0.20.1", "bpk", {}, {}, {}, worker_shows_display=False, panic_hook={}
    ),
    "v0.12.1": Release(
        "v0.12.1", V0_12_1, "0.12.1", "bpk", {}, {}, {}, worker_shows_display=False, panic_hook={}
    ),
}


@dataclass(frozen=True)
class Setup:
    """How a user wires checkpointing through burn's public API, with the lines that allow it.

    Every set-up runs its checkpointers inside the launcher (``launch``; v0.19.1's
    ``build``), which installs burn's file logger by default: from then on each panic
    is logged to experiment.log and announced by a banner (``Release.panic_hook``).
    """

    name: str
    release: str
    interrupter: bool  # whether the async checkpointers get the training interrupter
    components: tuple[str, ...]  # the checkpointers, in the order burn calls them
    summary: str
    citations: tuple[str, ...]
    strategy: str = "composed"  # keep-last-2 + metric (burn's default), or "keep-last" alone
    interval: int = 1  # checkpoint number per epoch: 1, or the RL loop's eval_interval steps
    dispatch: bool = False  # the Dispatch backend: a device is autodiff or not (trainer.dispatch)


STORE_PYTORCH_RS = "crates/burn-store/src/pytorch/store.rs"
STORE_TRAITS_RS = "crates/burn-store/src/traits.rs"
IMPORT_PYTORCH_RS = "crates/burn-import/src/pytorch/recorder.rs"
IMPORT_READER_RS = "crates/burn-import/src/pytorch/reader.rs"
IMPORT_SAFETENSORS_RS = "crates/burn-import/src/safetensors/recorder.rs"
IMPORT_SAFETENSORS_READER_RS = "crates/burn-import/src/safetensors/reader.rs"
CORE_SERDE_DE_RS = "crates/burn-core/src/record/serde/de.rs"


def _cite(path: str, lines: str, commit: str = MAIN) -> str:
    return f"{path}:{lines}@{commit}"


# The RL loop checkpoints at step counts: eval_interval (default 10 000) apart.
RL_EVAL_INTERVAL = 10_000
_RL_STEPS = (
    _cite(f"{TRAIN}/learner/rl/off_policy.rs", "31-33"),
    _cite(f"{TRAIN}/learner/rl/off_policy.rs", "104"),
    _cite(f"{TRAIN}/learner/rl/off_policy.rs", "173-182"),
)
# SupervisedTraining::new sets the file logger; launch installs it before it restores or trains.
_SUPERVISED_LOGGER = (
    _cite(f"{TRAIN}/learner/supervised/paradigm.rs", "98-100"),
    _cite(f"{TRAIN}/learner/supervised/paradigm.rs", "355-359"),
    _cite(f"{TRAIN}/learner/application_logger.rs", "54-65"),
)
# The RL paradigm's with_checkpointer, its RLCheckpointer, and the steps it checkpoints at.
_RL_WIRING = (
    _cite(f"{TRAIN}/learner/rl/paradigm.rs", "92-94"),
    _cite(f"{TRAIN}/learner/rl/paradigm.rs", "325-329"),
    _cite(f"{TRAIN}/learner/application_logger.rs", "54-65"),
    _cite(f"{TRAIN}/learner/rl/paradigm.rs", "288-303"),
    _cite(f"{TRAIN}/learner/rl/paradigm.rs", "346-348"),
    _cite(RL_RS, "25-54"),
    *_RL_STEPS,
)

# The TUI renderer on a resume: launch makes it with the checkpoint, its thread's estimate
# counts epochs from there, and LearnerEvent::Start sets the epoch it is sent first (main:
# the resumed one; main at 6b721d88 – 2785abb3: 1). Each item's progress reaches the estimate.
_TUI_RESUME = (
    _cite(f"{TRAIN}/learner/supervised/paradigm.rs", "261-270"),
    _cite(f"{TRAIN}/learner/supervised/paradigm.rs", "360-362"),
    _cite(f"{TRAIN}/renderer/mod.rs", "23-33"),
    _cite(f"{TRAIN}/renderer/tui/renderer.rs", "76-87"),
    _cite(f"{TRAIN}/renderer/tui/renderer.rs", "358-380"),
    _cite(f"{TRAIN}/renderer/tui/renderer.rs", "385"),
    _cite(f"{TRAIN}/learner/supervised/strategies/base.rs", "128-137"),
    _cite(f"{TRAIN}/metric/processor/full.rs", "211-228"),
    _cite(f"{TRAIN}/renderer/tui/renderer.rs", "231-237"),
    _cite(f"{TRAIN}/learner/supervised/strategies/base.rs", "129-137", BEFORE_5109),
    _cite(f"{TRAIN}/metric/processor/full.rs", "171-185", BEFORE_5109),
    _cite(f"{TRAIN}/renderer/tui/renderer.rs", "218-219", BEFORE_5109),
    _cite(f"{TRAIN}/learner/supervised/strategies/single/epoch.rs", "108-133"),
    _cite("crates/burn-core/src/data/dataloader/batch.rs", "200-204"),
    _cite(f"{TRAIN}/metric/processor/full.rs", "241-258"),
    _cite(f"{TRAIN}/metric/processor/full.rs", "273-279"),
    _cite(f"{TRAIN}/renderer/tui/renderer.rs", "239-265"),
    _cite(f"{TRAIN}/renderer/tui/renderer.rs", "415-420"),
    _cite(f"{TRAIN}/renderer/tui/progress.rs", "26-44"),
    _cite(f"{TRAIN}/renderer/tui/progress.rs", "145-226"),
)

SETUPS = {
    "supervised": Setup(
        "supervised",
        "main",
        interrupter=True,
        components=("model", "optim", "scheduler"),
        summary="SupervisedTraining::launch with its default checkpointers",
        citations=(
            *_SUPERVISED_LOGGER,
            _cite(f"{TRAIN}/learner/supervised/paradigm.rs", "306-319"),
            _cite(f"{TRAIN}/learner/supervised/paradigm.rs", "378-385"),
            _cite(f"{TRAIN}/learner/supervised/strategies/single/strategy.rs", "83-90"),
        ),
    ),
    "supervised-tui": Setup(
        "supervised-tui",
        "main-2785abb3",
        interrupter=True,
        components=("model", "optim", "scheduler"),
        summary="SupervisedTraining::launch with its default checkpointers and the TUI renderer "
        "(stdout a terminal, a build with overflow checks), resumed with checkpoint(n) and "
        "more epochs; the renderer's start as at main, or as at 2785abb3 (6b721d88 – 2785abb3, "
        "before tracel-ai/burn#5109, in no release)",
        citations=(
            *_SUPERVISED_LOGGER,
            _cite(f"{TRAIN}/learner/supervised/paradigm.rs", "306-319"),
            _cite(f"{TRAIN}/learner/supervised/paradigm.rs", "378-385"),
            *_TUI_RESUME,
        ),
    ),
    "rl": Setup(
        "rl",
        "main",
        interrupter=False,
        components=("policy", "learning-agent"),
        summary="the RL paradigm's with_checkpointer (no interrupter, default strategy)",
        citations=(
            *_RL_WIRING,
            _cite(f"{TRAIN}/learner/rl/paradigm.rs", "95-105"),
            # and resumes: `checkpoint(step)` makes launch restore the policy, then the
            # learning agent, before it trains (after the logger is installed).
            _cite(f"{TRAIN}/learner/rl/paradigm.rs", "258-262"),
            _cite(f"{TRAIN}/learner/rl/paradigm.rs", "371-376"),
            _cite(RL_RS, "56-76"),
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
            *_RL_WIRING,
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
        summary="a hand-built LearningCheckpointer of AsyncCheckpointers, no interrupter, "
        "run by a custom SupervisedLearningStrategy in place of TrainingComponents.checkpointer",
        citations=(
            _cite(LEARNER_RS, "133-156"),
            _cite(ASYNC_RS, "88-102"),
            _cite(f"{TRAIN}/checkpoint/file.rs", "20-28"),
            # `checkpoint` takes an EventStoreClient, which only burn-train can create: a user
            # has one as TrainingComponents.event_store, inside `launch`, after the logger.
            _cite(LEARNER_RS, "159"),
            _cite(f"{TRAIN}/metric/store/client.rs", "14"),
            _cite(f"{TRAIN}/learner/supervised/strategies/base.rs", "76-80"),
            _cite(f"{TRAIN}/learner/supervised/strategies/base.rs", "97-115"),
            *_SUPERVISED_LOGGER,
        ),
    ),
    "learner-builder": Setup(
        "learner-builder",
        "v0.19.1",
        interrupter=False,
        components=("model", "optim", "scheduler"),
        summary="LearnerBuilder::with_file_checkpointer(CompactRecorder)",
        citations=(
            _cite(f"{TRAIN}/learner/builder.rs", "106-108", V0_19_1),
            _cite(f"{TRAIN}/learner/builder.rs", "350-354", V0_19_1),
            _cite(f"{TRAIN}/learner/application_logger.rs", "54-65", V0_19_1),
            _cite(f"{TRAIN}/learner/builder.rs", "289-307", V0_19_1),
            _cite(ASYNC_RS, "73-83", V0_19_1),
            _cite(LEARNER_RS, "51-78", V0_19_1),
            # CompactRecorder writes `.mpk` files; the recorder's file handling and errors.
            _cite(RECORDER_RS_19, "251", V0_19_1),
            _cite("crates/burn-core/src/record/file.rs", "18", V0_19_1),
            _cite("crates/burn-core/src/record/file.rs", "83-87", V0_19_1),
            _cite("crates/burn-core/src/record/file.rs", "89-131", V0_19_1),
        ),
    ),
    "supervised-dispatch": Setup(
        "supervised-dispatch",
        "v0.21.0",
        interrupter=True,
        components=("model", "optim", "scheduler"),
        summary="SupervisedTraining::with_file_checkpointer(CompactRecorder) and "
        "checkpoint(n), launched on the Dispatch backend's autodiff device",
        citations=(
            # SupervisedTraining::new sets the file logger; launch installs it first.
            _cite(f"{TRAIN}/learner/supervised/paradigm.rs", "111-113", V0_21_0),
            _cite(f"{TRAIN}/learner/supervised/paradigm.rs", "328-333", V0_21_0),
            _cite(f"{TRAIN}/learner/application_logger.rs", "54-65", V0_21_0),
            # with_file_checkpointer(recorder), checkpoint(n); launch attaches the interrupter.
            _cite(f"{TRAIN}/learner/supervised/paradigm.rs", "291-312", V0_21_0),
            _cite(f"{TRAIN}/learner/supervised/paradigm.rs", "252-255", V0_21_0),
            _cite(f"{TRAIN}/learner/supervised/paradigm.rs", "350-357", V0_21_0),
            # burn's MNIST example: the Dispatch backend, the model on an autodiff device.
            _cite("examples/mnist/examples/mnist.rs", "45", V0_21_0),
            _cite("examples/mnist/src/training.rs", "97-115", V0_21_0),
            # CompactRecorder writes `.mpk` files.
            _cite("crates/burn-core/src/record/recorder.rs", "251", V0_21_0),
            _cite("crates/burn-core/src/record/file.rs", "18", V0_21_0),
            _cite("crates/burn-core/src/record/file.rs", "83-87", V0_21_0),
            # The training device is the model's (autodiff) device; the checkpoint is restored
            # on `Default::default()`, which Dispatch never makes an autodiff device.
            _cite(f"{TRAIN}/learner/supervised/paradigm.rs", "380-383", V0_21_0),
            _cite(f"{TRAIN}/learner/supervised/strategies/base.rs", "175-184", V0_21_0),
            _cite(LEARNER_RS, "184-209", V0_21_0),
            _cite(DISPATCH_DEVICE_RS, "147-181", V0_21_0),
            # load_record moves a tensor only to a device that differs, and to Dispatch an
            # autodiff device equals its inner one: the parameters keep the record's device.
            _cite(LEARNER_RS, "126-127", V0_21_0),
            _cite("crates/burn-core/src/module/param/tensor.rs", "116-127", V0_21_0),
            _cite(DISPATCH_DEVICE_RS, "183-193", V0_21_0),
            # fit forks the learner onto the training device: float_to_device on each tensor.
            _cite(f"{TRAIN}/learner/supervised/strategies/single/strategy.rs", "60", V0_21_0),
            _cite(LEARNER_RS, "71-73", V0_21_0),
            _cite("crates/burn-core/src/module/param/tensor.rs", "306-309", V0_21_0),
            _cite(DISPATCH_TENSOR_RS, "38-39", V0_21_0),
            _cite(DISPATCH_MACROS_RS, "260-263", V0_21_0),
            _cite(DISPATCH_MACROS_RS, "187-189", V0_21_0),
            _cite(DISPATCH_MACROS_RS, "230-231", V0_21_0),
        ),
        dispatch=True,
    ),
    # -- importing weights: the user's program, then its reader (trainer.weights.imports)
    "pytorch-store": Setup(
        "pytorch-store",
        "main",
        interrupter=False,
        components=(),
        summary="PytorchStore::from_file(path) and model.load_from(&mut store).unwrap()",
        citations=(
            _cite(STORE_PYTORCH_RS, "97-112"),
            _cite(STORE_TRAITS_RS, "137-142"),
            _cite(STORE_PYTORCH_RS, "338-378"),
            _cite(STORE_PYTORCH_RS, "398-438"),
            _cite(STORE_PYTORCH_RS, "125-128"),
            _cite(STORE_PYTORCH_RS, "231-241"),
        ),
    ),
    "pytorch-recorder": Setup(
        "pytorch-recorder",
        "v0.20.1",
        interrupter=False,
        components=(),
        summary="PyTorchFileRecorder::<FullPrecisionSettings>::default()"
        ".load(LoadArgs::new(path), &device).unwrap()",
        citations=(
            _cite(IMPORT_PYTORCH_RS, "23-57", V0_20_1),
            _cite(IMPORT_READER_RS, "59-101", V0_20_1),
            _cite(IMPORT_READER_RS, "106-110", V0_20_1),
            _cite(IMPORT_PYTORCH_RS, "107-135", V0_20_1),
            _cite(CORE_SERDE_DE_RS, "59-94", V0_20_1),
            _cite("crates/burn-core/src/record/recorder.rs", "168-172", V0_20_1),
        ),
    ),
    "safetensors-recorder": Setup(
        "safetensors-recorder",
        "v0.20.1",
        interrupter=False,
        components=(),
        summary="SafetensorsFileRecorder::<FullPrecisionSettings>::default()"
        ".load(LoadArgs::new(path), &device).unwrap(), candle reading the file",
        citations=(
            _cite(IMPORT_SAFETENSORS_RS, "22-56", V0_20_1),
            _cite(IMPORT_SAFETENSORS_RS, "109-135", V0_20_1),
            _cite(IMPORT_SAFETENSORS_READER_RS, "32-72", V0_20_1),
            _cite("crates/burn-import/src/common/candle.rs", "22-46", V0_20_1),
            _cite("crates/burn-core/src/record/recorder.rs", "168-172", V0_20_1),
        ),
    ),
    "onnx-burnpack-file": Setup(
        "onnx-burnpack-file",
        "v0.20.1-burnpack",
        interrupter=False,
        components=(),
        summary="a model generated by burn-import's ModelGen (states not embedded: a .bpk "
        "file beside the code), loaded with Model::default()",
        citations=(
            _cite("crates/burn-import/src/onnx/model_gen.rs", "64-70", V0_20_1),
            _cite("crates/burn-import/src/onnx/model_gen.rs", "336-339", V0_20_1),
            _cite("crates/burn-import/src/burn/graph.rs", "42-59", V0_20_1),
            _cite("crates/burn-import/src/burn/graph.rs", "267-290", V0_20_1),
            _cite("crates/burn-store/src/burnpack/store.rs", "328-368", V0_20_1),
            _cite("crates/burn-store/src/burnpack/store.rs", "428-433", V0_20_1),
            _cite("crates/burn-store/src/burnpack/reader.rs", "388-399", V0_20_1),
            _cite("crates/burn-store/src/burnpack/reader.rs", "265-266", V0_20_1),
        ),
    ),
    "candle-recorder": Setup(
        "candle-recorder",
        "v0.12.1",
        interrupter=False,
        components=(),
        summary="PyTorchFileRecorder::<FullPrecisionSettings>::default()"
        ".load(LoadArgs::new(path), &device).unwrap(), candle reading the file",
        citations=(
            _cite("burn-import/src/pytorch/recorder.rs", "42-49", V0_12_1),
            _cite("burn-import/src/pytorch/reader.rs", "33-43", V0_12_1),
            _cite("burn-import/src/pytorch/error.rs", "8-9", V0_12_1),
            _cite("burn-import/src/pytorch/error.rs", "17-21", V0_12_1),
            _cite("burn-core/src/record/recorder.rs", "168-172", V0_12_1),
        ),
    ),
    "onnx-record-file": Setup(
        "onnx-record-file",
        "v0.12.1",
        interrupter=False,
        components=(),
        summary="a model generated by burn-import's ModelGen (defaults: NamedMpk record "
        "file, states not embedded), loaded with Model::default()",
        citations=(
            _cite("burn-import/src/onnx/to_burn.rs", "57-66", V0_12_1),
            _cite("burn-import/src/burn/graph.rs", "30-32", V0_12_1),
            _cite("burn-import/src/burn/graph.rs", "145-166", V0_12_1),
            _cite("burn-import/src/burn/graph.rs", "352-375", V0_12_1),
            _cite("burn-core/src/record/file.rs", "83-101", V0_12_1),
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
