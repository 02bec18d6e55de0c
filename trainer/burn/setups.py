"""burn's release lines, and the set-ups through which its public API wires checkpointing."""

from __future__ import annotations

from dataclasses import dataclass

from trainer.burn.sources import ASYNC_RS, LEARNER_RS, MAIN, RECORDER_RS_19, RL_RS, TRAIN, V0_19_1
from trainer.burn.text import Panic, Text
from trainer.burn.texts import ASYNC, ASYNC_19, LEARNER, LEARNER_19, PANIC_HOOK, PANIC_HOOK_19, RL


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


RELEASES = {
    "main": Release(
        "main",
        MAIN,
        "main at 2c06be35 (47 commits past v0.22.0-pre.2)",
        "bpk",
        LEARNER,
        RL,
        ASYNC,
        worker_shows_display=True,
        panic_hook=PANIC_HOOK,
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
        panic_hook=PANIC_HOOK_19,
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
