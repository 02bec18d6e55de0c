"""An entry's verification state, derived from its runs (never stored)."""

from dataclasses import dataclass, field
from datetime import datetime

from django.db import models

from errorkb.kb.models import ErrorEntry

from .models import VerificationRun

Status = VerificationRun.Status
RECENT_RUNS = 5  # outcomes that flip twice within this window make a scenario flaky
HISTORY_RUNS = 30  # the history strip on the entry page
RUNS_CONSIDERED = 500  # enough for every scenario's recent window, on every device


class State(models.TextChoices):
    VERIFIED = "verified", "verified"
    DRIFTED = "drifted", "drifted"
    NOT_REPRODUCING = "not_reproducing", "not reproducing"
    FLAKY = "flaky", "flaky"
    UNSUPPORTED = "unsupported", "unsupported here"
    UNVERIFIED = "unverified", "unverified"


# Worst first: an entry is as trustworthy as its least trustworthy scenario.
_ORDER = [
    State.DRIFTED,
    State.NOT_REPRODUCING,
    State.FLAKY,
    State.UNSUPPORTED,
    State.UNVERIFIED,
    State.VERIFIED,
]


@dataclass
class ScenarioResult:
    """Where one scenario stands on one device."""

    scenario: str
    device: str
    state: State
    failure: VerificationRun | None = None  # the latest decisive run of the failure
    fix: VerificationRun | None = None  # the latest run of the fix

    @property
    def fix_verified(self) -> bool:
        return self.fix is not None and self.fix.status == Status.FIXED


@dataclass
class Verification:
    state: State
    scenarios: list[ScenarioResult] = field(default_factory=list)
    history: list[VerificationRun] = field(default_factory=list)

    @property
    def verified(self) -> list[ScenarioResult]:
        return [r for r in self.scenarios if r.state == State.VERIFIED]

    @property
    def last_verified_at(self) -> datetime | None:
        return max((r.failure.finished_at for r in self.verified), default=None)

    @property
    def devices(self) -> list[str]:
        return sorted({r.device for r in self.verified})

    @property
    def observed_message(self) -> str | None:
        failures = [r.failure for r in self.scenarios if r.failure is not None]
        latest = max(failures, key=lambda run: run.started_at, default=None)
        return latest.message if latest else None

    @property
    def fix_verified(self) -> bool:
        return bool(self.scenarios) and all(r.fix_verified for r in self.scenarios)


def verification_of(entry: ErrorEntry) -> Verification:
    """The entry's state, each scenario's latest outcome, and its recent runs."""
    runs = list(
        VerificationRun.objects.for_entry(entry).finished().newest_first()[:RUNS_CONSIDERED]
    )
    linked = [s.name for s in entry.scenarios.all() if s.active]
    results = [
        _scenario_result(name, device, runs)
        for name in linked
        for device in sorted({r.device for r in runs if r.scenario_id == name} or {"cpu"})
    ]
    if not results:
        return Verification(state=State.UNVERIFIED, history=runs[:HISTORY_RUNS])
    state = min((r.state for r in results), key=_ORDER.index)
    return Verification(state=state, scenarios=results, history=runs[:HISTORY_RUNS])


def _scenario_result(name: str, device: str, runs: list[VerificationRun]) -> ScenarioResult:
    mine = [r for r in runs if r.scenario_id == name and r.device == device]
    failures = [r for r in mine if r.variant == r.Variant.FAILURE and r.status != Status.ERROR]
    fixes = [r for r in mine if r.variant == r.Variant.FIXED and r.status != Status.ERROR]
    result = ScenarioResult(name, device, State.UNVERIFIED, fix=fixes[0] if fixes else None)
    if not failures:
        return result
    result.failure = failures[0]
    result.state = _failure_state(failures, result.fix_verified)
    return result


def _failure_state(failures: list[VerificationRun], fix_verified: bool) -> State:
    if failures[0].status == Status.UNSUPPORTED:
        return State.UNSUPPORTED
    decisive = [r for r in failures if r.status in (Status.REPRODUCED, Status.NOT_REPRODUCED)]
    if not decisive:
        return State.UNVERIFIED
    recent = [r.status == Status.REPRODUCED for r in decisive[:RECENT_RUNS]]
    if sum(a != b for a, b in zip(recent, recent[1:], strict=False)) >= 2:
        return State.FLAKY
    if not recent[0]:
        ever = any(r.status == Status.REPRODUCED for r in decisive)
        return State.NOT_REPRODUCING if ever else State.UNVERIFIED
    if not decisive[0].pattern_matched:
        return State.DRIFTED
    return State.VERIFIED if fix_verified else State.UNVERIFIED
