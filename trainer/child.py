"""The scenario process: apply the fault, train, print one outcome JSON line.

Started by :mod:`trainer.runner` as ``python -m trainer.child SPEC_JSON`` in a
fresh interpreter.  Training logs go to stderr.  Stdout carries each text burn
prints as it is printed (``{"printed": …}``, so that a run killed by a signal, or
aborted by SIGABRT as Rust aborts, still tells what it printed), then the outcome
as the last line.
"""

from __future__ import annotations

import json
import os
import platform
import re
import resource
import signal
import sys
import threading
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from trainer import dashboard, scenarios
from trainer.errors import Abort
from trainer.faults import Fault, Workspace, make_fault
from trainer.faults.host import set_parent_death_signal
from trainer.outcome import Outcome, Status, Variant

_STDOUT = threading.Lock()


def _confine(spec: dict[str, Any]) -> None:
    """Die with the runner, and cap memory, before torch is even imported."""
    set_parent_death_signal()
    if spec.get("parent_pid") is not None and os.getppid() != spec["parent_pid"]:
        sys.exit("runner died before the scenario started")
    if spec.get("memory_bytes"):
        limit = spec["memory_bytes"]
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    # The signal dispositions of a Rust program: its runtime ignores SIGPIPE only, so
    # past RLIMIT_FSIZE the kernel's SIGXFSZ ends the process (Python ignores it).
    signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
    # ... without a core dump of the interpreter in the run's directory.
    resource.setrlimit(resource.RLIMIT_CORE, (0, resource.getrlimit(resource.RLIMIT_CORE)[1]))


@dataclass
class Attempt:
    """One run of a scenario's variant: its fault, workspace, config and learners."""

    scenario: scenarios.Scenario
    variant: str
    fault: Fault
    ws: Workspace
    config: Any  # TrainConfig of the run the fault breaks
    learners: list = field(default_factory=list)  # every Learner started, in order
    printed: list = field(default_factory=list)  # Printed texts outside any learner

    @property
    def fixed(self) -> bool:
        return self.variant == Variant.FIXED

    @property
    def learner(self) -> Any:
        return self.learners[-1] if self.learners else None

    def strike(self, epoch: int) -> None:
        """Strike the fault at ``epoch``'s checkpoint (its files carry burn's number for it)."""
        from trainer import burn
        from trainer.learner import log

        epoch *= burn.SETUPS[self.scenario.setup].interval
        fixed = self.fixed and self.scenario.remedy
        log(
            f"fault: {self.fault.kind} on {self.fault.target} at epoch {epoch}"
            + (", then the fix" if fixed else "")
        )
        if fixed:
            self.fault.strike_fixed(self.ws, epoch)
        else:
            self.fault.strike(self.ws, epoch)
        if self.learner is not None:
            self.fault.strike_learner(self.learner, epoch, fixed=fixed)

    def start(self, config: Any, **kwargs: Any) -> Any:
        """A learner; a panic while building it (``Module::load_file``) is printed too.

        That panic comes before ``launch``: burn's logger is not installed yet.
        """
        from trainer.errors import Panic, Printed
        from trainer.learner import Learner, print_panic

        try:
            learner = Learner(config, on_print=announce, **kwargs)
        except Panic as panic:
            printed = Printed.panic(panic)
            self.printed.append(printed)
            print_panic(printed)
            announce(printed)
            return None
        self.learners.append(learner)
        return learner

    def texts(self) -> list:
        return self.printed + [p for learner in self.learners for p in learner.printed]

    @staticmethod
    def announce(printed: Any) -> None:
        """The phases' way to tell the runner what burn printed (see ``announce``)."""
        announce(printed)


def announce(printed: Any) -> None:
    """Tell the runner now what burn printed: the process may yet be killed by a signal."""
    record = {"text": printed.text, "shown": printed.render(), "logged": printed.logged}
    line = json.dumps({"printed": {**record, "errno": printed.errno}}) + "\n"
    with _STDOUT:  # worker threads print too: one whole line at a time
        sys.stdout.write(line)
        sys.stdout.flush()


def run_train_phase(attempt: Attempt) -> None:
    """The fault strikes just before the scenario epoch's checkpointing."""

    def before_checkpoint(epoch: int) -> None:
        if epoch == attempt.scenario.epoch:
            # A save of the previous epoch may still be writing; the fault must
            # hit this epoch's checkpointing, not that write.
            attempt.learner.wait_for_checkpointers()
            attempt.strike(epoch)

    attempt.start(attempt.config, before_checkpoint=before_checkpoint).fit()


def run_resume_phase(attempt: Attempt) -> None:
    """A clean run stops early, the fault hits its files, a new run resumes."""
    first = attempt.start(attempt.config.with_overrides(resume=None, **_base(attempt)))
    first.fit(stop_after=scenarios.STOP_AFTER)
    attempt.strike(attempt.scenario.epoch)
    attempt.start(attempt.config).fit()


def run_init_phase(attempt: Attempt) -> None:
    """The fault produces the weights file the model is initialised from."""
    attempt.strike(0)
    learner = attempt.start(attempt.config)
    if learner is not None:
        learner.fit()


def run_import_phase(attempt: Attempt) -> None:
    """A user's program imports a weights file (``trainer.weights.imports``)."""
    from trainer.weights.imports import run_import_phase as run

    run(attempt)


def _base(attempt: Attempt) -> dict[str, Any]:
    """The default config values the failing run overrides: the first run keeps them."""
    from trainer.config import TrainConfig

    return {key: getattr(TrainConfig(), key) for key in attempt.scenario.overrides}


PHASES: dict[str, Callable[[Attempt], None]] = {
    "train": run_train_phase,
    "resume": run_resume_phase,
    "init": run_init_phase,
    "import": run_import_phase,
    "tui-resume": dashboard.run_resume_phase,
}


def build_config(scenario: scenarios.Scenario, variant: str, ws: Workspace, device: str):
    from trainer.config import TrainConfig

    config = TrainConfig(
        artifact_dir=str(ws.artifact_dir),
        device=device,
        setup=scenario.setup,
        resume=scenario.resume,
        init_from=str(ws.init_file) if scenario.phase == "init" else None,
    ).with_overrides(**scenario.overrides)
    if variant == Variant.FIXED:
        config = config.with_overrides(**scenario.fixed_overrides)
    return config


def verify_checkpoints(attempt: Attempt) -> str | None:
    """Why a fixed run does not count as fixed, or None: it trained to the end and
    every kept checkpoint is present, complete and loadable."""
    from trainer.learner import Learner

    learner, config = attempt.learner, attempt.config
    if learner is None or learner.epochs_run != config.epochs:
        run = learner.epochs_run if learner else 0
        return f"training stopped after epoch {run} of {config.epochs}"
    present: dict[int, set[str]] = {}
    for path in attempt.ws.checkpoint_dir.iterdir():
        if match := re.fullmatch(rf"([\w-]+)-(\d+)\.{attempt.ws.extension}", path.name):
            present.setdefault(int(match[2]), set()).add(match[1])
    for epoch in sorted(learner.kept_epochs | set(present)):
        if present.get(epoch) != set(learner.components):
            found = sorted(present.get(epoch, ()))
            return f"epoch {epoch}: files {found}, expected {list(learner.components)}"
        resume = epoch // learner.setup.interval
        checker = Learner(config.with_overrides(resume=resume, init_from=None))
        checker.fit(stop_after=resume)  # restores the checkpoint, trains nothing
        if checker.printed:
            return f"epoch {epoch} does not load: {checker.printed[0].text}"
    return None


def reproduce(spec: dict[str, Any]) -> Outcome:
    """Run the scenario's variant and describe what happened."""
    from trainer import burn

    scenario = scenarios.get(spec["scenario"])
    variant, device = spec["variant"], spec["device"]
    outcome = Outcome.start(scenario, variant, device)
    ws = Workspace(Path(spec["root"]), extension=burn.RELEASES[scenario.release].extension)
    fault = make_fault(scenario.fault, scenario.target)

    import torch

    # One intra-op thread: the model is tiny, and runs share the host's cores.
    torch.set_num_threads(1)
    outcome.torch_version = torch.__version__
    if device == "cuda" and not torch.cuda.is_available():
        return _unsupported(outcome, "CUDA is not available on this host")
    if reason := fault.probe(ws):
        return _unsupported(outcome, reason)
    try:
        fault.prepare(ws)
    except OSError as err:
        return _unsupported(outcome, f"{fault.kind}: {err}")

    attempt = Attempt(scenario, variant, fault, ws, build_config(scenario, variant, ws, device))
    try:
        _observe(attempt, outcome)
    finally:
        fault.cleanup(ws)
    return outcome


def _observe(attempt: Attempt, outcome: Outcome) -> None:
    from trainer.errors import exception_chain

    try:
        PHASES[attempt.scenario.phase](attempt)
    except Exception as err:  # a bug in the harness, not a reproduction
        traceback.print_exc()
        outcome.status, outcome.message = Status.ERROR, f"{type(err).__name__}: {err}"
        outcome.exception_chain = exception_chain(err)
        return
    finally:
        _record_learner(attempt, outcome)

    for printed in attempt.texts():
        outcome.record(printed.text, printed.render(), logged=printed.logged, errno=printed.errno)
    outcome.status = _status(attempt, outcome)


def _status(attempt: Attempt, outcome: Outcome) -> Status:
    if attempt.fixed:
        if outcome.texts:
            outcome.reason = f"the fixed run printed: {outcome.texts[0]}"
            return Status.NOT_REPRODUCED
        problem = verify_checkpoints(attempt)
        outcome.reason = problem
        return Status.NOT_REPRODUCED if problem else Status.FIXED
    if not outcome.texts:
        outcome.reason = "training completed without a failure"
        return Status.NOT_REPRODUCED
    matched = attempt.scenario.matches(outcome.texts, outcome.errno, outcome.signal)
    if not matched:
        outcome.reason = "the texts printed differ from the scenario's expected texts"
    return Status.REPRODUCED if matched else Status.NOT_REPRODUCED


def _record_learner(attempt: Attempt, outcome: Outcome) -> None:
    if attempt.learner is not None:
        outcome.epochs_run = attempt.learner.epochs_run


def _unsupported(outcome: Outcome, reason: str) -> Outcome:
    outcome.status, outcome.reason, outcome.message = Status.UNSUPPORTED, reason, None
    return outcome


def run_spec(spec: dict[str, Any]) -> int:
    """Run one spec in this process and print its outcome (fresh or forked start).

    A run that aborts as a Rust program does (a panic in a destructor during cleanup) ends
    by SIGABRT, its texts already announced, with no outcome: the runner builds it.
    """
    _confine(spec)
    try:
        outcome = reproduce(spec)
    except Abort:
        sys.stdout.flush()
        sys.stderr.flush()
        os.abort()
    outcome.python_version = platform.python_version()
    print(outcome.to_json(), flush=True)
    return 0


def main() -> int:
    return run_spec(json.loads(sys.argv[1]))


if __name__ == "__main__":
    code = main()
    sys.stdout.flush()
    sys.stderr.flush()
    # The outcome is out. Skip interpreter teardown: a checkpointer thread left in
    # torch code while the runtime shuts down can abort the process (SIGABRT).
    os._exit(code)
