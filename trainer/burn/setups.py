"""burn's release lines, and the set-ups through which its public API wires checkpointing."""

from __future__ import annotations

from dataclasses import dataclass

from trainer.burn.sources import ASYNC_RS, LEARNER_RS, MAIN, RECORDER_RS_19, RL_RS, TRAIN, V0_19_1
from trainer.burn.text import Panic
from trainer.burn.texts import ASYNC, ASYNC_19, LEARNER, LEARNER_19, RL


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
# The RL paradigm's with_checkpointer, its RLCheckpointer, and the steps it checkpoints at.
_RL_WIRING = (
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
        summary="a hand-built LearningCheckpointer of AsyncCheckpointers, no interrupter",
        citations=(
            _cite(LEARNER_RS, "133-156"),
            _cite(ASYNC_RS, "88-102"),
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
