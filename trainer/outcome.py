"""The outcome of one scenario run, and the vocabulary of its variants and statuses.

Built in the scenario process (:mod:`trainer.child`), which prints it as one
JSON line; parsed back by :mod:`trainer.runner`, which returns it in that JSON
form; read by the knowledge base's worker with :meth:`Outcome.from_dict`.
Statuses and variants are declared here once: the worker's run model reuses them.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import platform
import types
import typing
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from trainer import __version__

if TYPE_CHECKING:
    from trainer.scenarios import Scenario


class Status(StrEnum):
    """What a run showed."""

    REPRODUCED = "reproduced"  # the failure printed the scenario's expected texts
    NOT_REPRODUCED = "not_reproduced"  # the claim did not hold (see the reason)
    FIXED = "fixed"  # the fix trained to the end with every checkpoint loadable
    UNSUPPORTED = "unsupported"  # this host cannot make the fault
    ERROR = "error"  # the harness failed: a timeout, a crash


class Variant(StrEnum):
    """Which run of a scenario: the documented failure, or its fix."""

    FAILURE = "failure"
    FIXED = "fixed"

    @property
    def expected_status(self) -> Status:
        """The status a run of this variant must reach to prove its claim."""
        return Status.FIXED if self is Variant.FIXED else Status.REPRODUCED


class OutcomeError(ValueError):
    """A payload that is not an outcome: names the key at fault."""


@dataclass
class Outcome:
    """Every key is present; the scenario process fills in what it saw."""

    scenario: str
    variant: Variant
    status: Status = Status.ERROR
    texts: list[str] = field(default_factory=list)  # every text burn printed, in order
    console: list[str] = field(default_factory=list)  # stderr: the texts as the console shows them
    experiment_log: list[str] = field(default_factory=list)  # the log records among the texts
    message: str | None = None  # the first text, or the harness's failure
    errno: int | None = None
    signal: str | None = None  # the signal that ended the scenario process (SIGXFSZ), by name
    exception_chain: list[str] = field(default_factory=list)
    device: str = "cpu"
    torch_version: str | None = None
    python_version: str = ""
    trainer_version: str = ""
    epochs_run: int = 0
    duration_s: float | None = None
    log_tail: list[str] = field(default_factory=list)
    reason: str | None = None  # why unsupported, not reproduced or not fixed
    release: str = ""
    setup: str = ""
    proves: list[str] = field(default_factory=list)
    disproves: list[str] = field(default_factory=list)
    expected: list[str] = field(default_factory=list)  # regexes, each matched in full
    expected_errno: int | None = None
    expected_signal: str | None = None

    @classmethod
    def start(cls, scenario: Scenario, variant: str, device: str) -> Outcome:
        """A run's outcome before it has seen anything: the scenario's claims, status error."""
        return cls(
            scenario=scenario.name,
            variant=Variant(variant),
            device=device,
            python_version=platform.python_version(),
            trainer_version=__version__,
            release=scenario.release,
            setup=scenario.setup,
            proves=list(scenario.proves),
            disproves=list(scenario.disproves),
            expected=[e.pattern for e in scenario.expected],
            expected_errno=scenario.expected_errno,
            expected_signal=scenario.expected_signal,
        )

    def record(self, text: str, shown: str, *, logged: bool, errno: int | None) -> None:
        """One text burn printed: ``shown`` on the console, or in experiment.log if ``logged``."""
        self.texts.append(text)
        (self.experiment_log if logged else self.console).append(shown)
        if self.message is None:
            self.message = text
        if self.errno is None:
            self.errno = errno

    @property
    def expected_status(self) -> Status:
        return self.variant.expected_status

    def to_dict(self) -> dict[str, Any]:
        return {**dataclasses.asdict(self), "expected_status": self.expected_status}

    def to_json(self) -> str:
        return json.dumps(self.to_dict())

    @classmethod
    def from_json(cls, text: str) -> Outcome:
        try:
            data = json.loads(text)
        except ValueError as err:
            raise OutcomeError(f"not JSON: {err}") from None
        return cls.from_dict(data)

    @classmethod
    def from_dict(cls, data: object) -> Outcome:
        """The outcome a payload describes; absent keys take their defaults.

        A payload without ``texts`` (a trainer from before they were listed) has
        its message, if any, as its one text.
        """
        if not isinstance(data, dict):
            raise OutcomeError(f"an outcome is a JSON object, not {type(data).__name__}")
        data = dict(data)
        data.pop("expected_status", None)  # derived from the variant
        hints = _hints()
        if unknown := sorted(set(data) - set(hints)):
            raise OutcomeError(f"unknown keys: {', '.join(unknown)}")
        if missing := [key for key in _REQUIRED if key not in data]:
            raise OutcomeError(f"missing keys: {', '.join(missing)}")
        for key, value in data.items():
            if not _fits(value, hints[key]):
                raise OutcomeError(f"{key}: {value!r} is not {_describe(hints[key])}")
        if "texts" not in data:
            data["texts"] = [] if data.get("message") is None else [data["message"]]
        data["variant"], data["status"] = Variant(data["variant"]), Status(data["status"])
        return cls(**data)


_REQUIRED = ("scenario", "variant", "status")


@functools.cache
def _hints() -> dict[str, Any]:
    # Resolved on first use: with postponed annotations the hints are strings until then.
    return typing.get_type_hints(Outcome)


def _fits(value: object, hint: Any) -> bool:
    if hint is type(None):
        return value is None
    if isinstance(hint, types.UnionType):
        return any(_fits(value, arg) for arg in typing.get_args(hint))
    if typing.get_origin(hint) is list:
        (item,) = typing.get_args(hint)
        return isinstance(value, list) and all(_fits(v, item) for v in value)
    if isinstance(hint, type) and issubclass(hint, StrEnum):
        return isinstance(value, str) and value in hint._value2member_map_
    if isinstance(value, bool):
        return hint is bool
    if hint is float:
        return isinstance(value, int | float)
    return isinstance(value, hint)


def _describe(hint: Any) -> str:
    if isinstance(hint, type) and issubclass(hint, StrEnum):
        return "one of " + ", ".join(hint)
    return f"a {getattr(hint, '__name__', hint)}" if isinstance(hint, type) else str(hint)
