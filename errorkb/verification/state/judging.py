"""An entry's verification state, derived from its runs (stored.py keeps the result).

A scenario either proves an entry (its run prints the entry's message) or proves its
absence (the entry's message is in the scenario's `disproves`: burn never prints it with
that set-up). An entry with any proof scenario is judged by those alone; an entry with
only absence scenarios by those, where `unreachable` is the good outcome.

A run's verdict belongs to the pattern it is read against: what a failure run printed
(its texts) is judged against the entry's pattern as it is now, every time the state
is derived, never taken from the verdict recorded when the run finished. A run that
printed the old message proves nothing about a new pattern.
"""

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property

import re2
from django.db.models import F, Window
from django.db.models.functions import RowNumber

from errorkb.kb import regex
from errorkb.kb.models import ErrorEntry
from errorkb.kb.record.schema import message_matches

from ..models import Scenario, State, VerificationRun

Status = VerificationRun.Status
Variant = VerificationRun.Variant
RECENT_RUNS = 5  # outcomes that flip twice within this window make a scenario flaky
HISTORY_RUNS = 30  # the history strip on the entry page
RUNS_CONSIDERED = 500  # enough for every scenario's recent window, on every device
TEXTS_READ = 1000  # runs whose texts verifications_of reads in one query
DECISIVE = (Status.REPRODUCED, Status.NOT_REPRODUCED)
NEWEST_FIRST = (F("started_at").desc(), F("id").desc())  # RunQuerySet.newest_first()


# Worst first: an entry is as trustworthy as its least trustworthy scenario. Proof
# scenarios end at verified, absence scenarios at unreachable; the two never mix.
_ORDER = [
    State.DRIFTED,
    State.NOT_REPRODUCING,
    State.FLAKY,
    State.UNSUPPORTED,
    State.UNVERIFIED,
    State.UNREACHABLE,
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
    absence: bool = False  # it proves that burn never prints the entry's message
    setup: str = ""  # its set-up and release, as a reader names them
    # The scenario itself: its release and set-up place the result among the entry's
    # claims per release (per_release.py), with no query more.
    linked_scenario: Scenario | None = field(default=None, repr=False, compare=False)
    # The failure run read against the entry's pattern as it is now (Judged).
    pattern_matched: bool | None = None
    message: str | None = None

    @property
    def fix_verified(self) -> bool:
        return self.fix is not None and self.fix.status == Status.FIXED


@dataclass(frozen=True)
class SeenInstead:
    """What a reader sees where an unreachable entry's message would be, and with what."""

    text: str
    setup: str


@dataclass
class Verification:
    state: State
    scenarios: list[ScenarioResult] = field(default_factory=list)
    # The newest runs as model instances, built only when `history` is read: a list of
    # entries reads their states and claims, never their histories.
    newest_runs: Callable[[], list[VerificationRun]] = field(default=list, repr=False)

    @cached_property
    def history(self) -> list[VerificationRun]:
        """The newest HISTORY_RUNS finished runs, newest first."""
        return self.newest_runs()

    @property
    def proofs(self) -> list[ScenarioResult]:
        return [r for r in self.scenarios if not r.absence]

    @property
    def deciding(self) -> list[ScenarioResult]:
        """The results the state comes from: proofs when there are any, else absences."""
        return self.proofs or self.scenarios

    @property
    def verified(self) -> list[ScenarioResult]:
        return [r for r in self.scenarios if r.state == State.VERIFIED]

    @property
    def confirmed(self) -> list[ScenarioResult]:
        """The results whose latest decisive run held: a proof verified, an absence unreachable."""
        return [r for r in self.scenarios if r.state in (State.VERIFIED, State.UNREACHABLE)]

    @property
    def last_verified_at(self) -> datetime | None:
        """When the last run that held finished: an unreachable entry's absence runs count."""
        return max((r.failure.finished_at for r in self.confirmed), default=None)

    @property
    def devices(self) -> list[str]:
        return sorted({r.device for r in self.confirmed})

    @property
    def observed_message(self) -> str | None:
        latest = _latest_result(self.deciding)
        return latest.message if latest else None

    @property
    def fix_verified(self) -> bool:
        # A proof of absence has no fix to verify.
        return bool(self.proofs) and all(r.fix_verified for r in self.proofs)

    @property
    def seen_instead(self) -> SeenInstead | None:
        """For an unreachable entry: the text its absence runs printed, and their set-up."""
        if self.state != State.UNREACHABLE:
            return None
        unreachable = [r for r in self.scenarios if r.state == State.UNREACHABLE]
        latest = _latest_result(unreachable)
        if latest is None or latest.message is None:
            return None
        return SeenInstead(text=latest.message, setup=latest.setup)


def _latest_result(results: list[ScenarioResult]) -> ScenarioResult | None:
    """The result whose failure run started last."""
    ran = [r for r in results if r.failure is not None]
    return max(ran, key=lambda result: result.failure.started_at, default=None)


@dataclass(frozen=True)
class Judged:
    """What a failure run printed, read against an entry's pattern."""

    pattern_matched: bool | None  # None when it printed nothing
    message: str | None  # the text about the entry when one matches, else the first printed


def judge(pattern: str, texts: list[str], message: str | None = None) -> Judged:
    """A run's texts read against a pattern: the single reading, for runs.record_outcome too.

    `message` stands for the texts of a run recorded before runs kept every text. The
    text shown is the first that begins with the match, the panic itself, rather than
    burn's `PANIC => panicked at …` log line before it, which quotes it further in.
    """
    printed = list(texts) or ([message] if message else [])
    if not printed:
        return Judged(None, None)
    matching = [text for text in printed if _matches(pattern, text)]
    opening = [text for text in matching if _matches(pattern, text, at_start=True)]
    return Judged(bool(matching), (opening or matching or printed)[0])


def _matches(pattern: str, text: str, *, at_start: bool = False) -> bool:
    try:
        if at_start:
            return regex.match(pattern, text) is not None
        return message_matches(pattern, text)
    except re2.error:  # a pattern written around validation (raw SQL) matches nothing
        return False


def verification_of(entry: ErrorEntry) -> Verification:
    """The entry's state, each scenario's latest outcome, and its recent runs."""
    return derive(entry, list(entry.scenarios.all()), _Runs.of_entry(entry))


def verifications_of(entry_ids: Iterable[str]) -> dict[str, Verification]:
    """verification_of for many entries (those that exist), in five queries (one more
    per TEXTS_READ runs judged past the first).

    The same derivation from the same inputs: each entry's linked scenarios and its
    newest RUNS_CONSIDERED finished runs (a window function: SQLite and PostgreSQL alike).
    Its runs carry only the fields the state reads; the texts, read once the rows are,
    only of the runs judged: each scenario's newest failure and newest decisive failure,
    per device.
    """
    ids = sorted(set(entry_ids))
    entries = ErrorEntry.objects.filter(pk__in=ids).only("id", "error_message", "message_pattern")
    entries = entries.order_by("pk")
    scenarios = {s.name: s for s in Scenario.objects.all()}
    links = Scenario.entries.through.objects.filter(errorentry_id__in=ids)
    linked: dict[str, list[Scenario]] = defaultdict(list)
    for entry_id, name in links.order_by("scenario_id").values_list("errorentry_id", "scenario_id"):
        linked[entry_id].append(scenarios[name])
    rows: dict[str, list] = defaultdict(list)
    for row in _newest_rows(ids):
        rows[row.entry_id].append(row)
    printed = _printed(_judged_runs(rows.values()))
    return {
        e.pk: derive(e, linked[e.pk], _Runs(rows[e.pk], STATE_FIELDS, printed)) for e in entries
    }


def _newest_rows(entry_ids: list[str]):
    newest = Window(RowNumber(), partition_by=F("entry_id"), order_by=NEWEST_FIRST)
    runs = VerificationRun.objects.filter(entry_id__in=entry_ids).finished()
    runs = runs.annotate(newest=newest).filter(newest__lte=RUNS_CONSIDERED)
    return runs.order_by("entry_id", *NEWEST_FIRST).values_list(*STATE_FIELDS, named=True)


def _judged_runs(rows_of_entries: Iterable[list]) -> set[int]:
    """The runs a derivation judges: per scenario and device, its newest failure (shown)
    and its newest decisive failure (which decides)."""
    ids = set()
    for rows in rows_of_entries:
        mine: dict[tuple, list] = defaultdict(list)
        for row in rows:
            mine[row.scenario_id, row.device].append(row)
        for runs in mine.values():
            failures = _failures(runs)
            ids.update(row.id for row in failures[:1] + _decisive(failures)[:1])
    return ids


def _printed(run_ids: set[int]) -> dict[int, tuple[list[str], str | None]]:
    """Each run's texts and message, a chunk of runs a query."""
    ids = sorted(run_ids)
    printed = {}
    for start in range(0, len(ids), TEXTS_READ):
        runs = VerificationRun.objects.filter(pk__in=ids[start : start + TEXTS_READ])
        for pk, texts, message in runs.values_list("id", "texts", "message"):
            printed[pk] = (texts, message)
    return printed


def derive(entry: ErrorEntry, scenarios: list[Scenario], runs: "_Runs") -> Verification:
    """The entry's verification from its linked scenarios and its runs, newest first.

    The only derivation: verification_of and verifications_of read its inputs.
    """
    linked = [s for s in scenarios if s.active]
    results = [
        _scenario_result(entry, scenario, device, runs)
        for scenario in linked
        for device in sorted(
            {r.device for r in runs.rows if r.scenario_id == scenario.name} or {"cpu"}
        )
    ]
    verification = Verification(
        State.UNVERIFIED,
        scenarios=results,
        newest_runs=lambda: [runs.run(row) for row in runs.rows[:HISTORY_RUNS]],
    )
    if results:
        verification.state = min((r.state for r in verification.deciding), key=_ORDER.index)
    return verification


# What the state is derived from and what a page shows of a run; the rest stays deferred.
RUN_FIELDS = (
    "id",
    "entry_id",
    "scenario_id",
    "variant",
    "device",
    "status",
    "message",
    "texts",
    "signal",
    "pattern_matched",
    "started_at",
    "finished_at",
)


# What the state reads of every run: verifications_of reads no more (a run it builds
# reads any other field with one query more), and the texts of the runs it judges only.
STATE_FIELDS = ("id", "entry_id", "scenario_id", "device", "variant", "status", "started_at")


class _Runs:
    """An entry's latest finished runs as plain rows; a model instance only for those shown.

    An entry may have hundreds of runs; building a model instance for each costs more
    than reading them. Each row shown becomes one instance, the same one wherever shown.
    `printed`: the texts and message of the runs judged, when the rows do not carry them.
    """

    def __init__(self, rows: list, fields: tuple[str, ...], printed: dict | None = None):
        self.rows = rows
        self.fields = fields
        self.printed = printed or {}
        self._built: dict[int, VerificationRun] = {}
        self._judged: dict[int, Judged] = {}

    @classmethod
    def of_entry(cls, entry: ErrorEntry) -> "_Runs":
        runs = VerificationRun.objects.for_entry(entry).finished().newest_first()
        return cls(list(runs.values_list(*RUN_FIELDS, named=True)[:RUNS_CONSIDERED]), RUN_FIELDS)

    def run(self, row) -> VerificationRun:
        if row.id not in self._built:
            self._built[row.id] = VerificationRun.from_db(
                VerificationRun.objects.db, self.fields, row
            )
        return self._built[row.id]

    def judged(self, row, pattern: str) -> Judged:
        """The run's texts read against the entry's pattern as it is now."""
        if row.id not in self._judged:
            printed = (row.texts, row.message) if "texts" in self.fields else self.printed[row.id]
            self._judged[row.id] = judge(pattern, *printed)
        return self._judged[row.id]


def _failures(rows: list) -> list:
    """The failure runs that count (a harness error says nothing), newest first."""
    return [r for r in rows if r.variant == Variant.FAILURE and r.status != Status.ERROR]


def _decisive(failures: list) -> list:
    return [r for r in failures if r.status in DECISIVE]


def _scenario_result(entry: ErrorEntry, scenario: Scenario, device: str, runs: _Runs):
    mine = [r for r in runs.rows if r.scenario_id == scenario.name and r.device == device]
    failures = _failures(mine)
    fixes = [r for r in mine if r.variant == Variant.FIXED and r.status != Status.ERROR]
    result = ScenarioResult(
        scenario.name,
        device,
        State.UNVERIFIED,
        fix=runs.run(fixes[0]) if fixes else None,
        absence=scenario.proves_absence_of(entry),
        setup=scenario.setup_label,
        linked_scenario=scenario,
    )
    if not failures:
        return result
    result.failure = runs.run(failures[0])
    shown = runs.judged(failures[0], entry.message_pattern)
    result.pattern_matched, result.message = shown.pattern_matched, shown.message
    decisive = _decisive(failures)
    deciding = runs.judged(decisive[0], entry.message_pattern) if decisive else None
    result.state = _failure_state(
        failures,
        decisive,
        matched=bool(deciding and deciding.pattern_matched),
        fix_verified=result.fix_verified,
        absence=result.absence,
    )
    return result


def _failure_state(
    failures: list, decisive: list, *, matched: bool, fix_verified: bool, absence: bool
) -> State:
    """`matched`: whether the entry's pattern, as it is now, matches a text of decisive[0]."""
    if failures[0].status == Status.UNSUPPORTED:
        return State.UNSUPPORTED
    if not decisive:
        return State.UNVERIFIED
    recent = [r.status == Status.REPRODUCED for r in decisive[:RECENT_RUNS]]
    if sum(a != b for a, b in zip(recent, recent[1:], strict=False)) >= 2:
        return State.FLAKY
    if not recent[0]:
        ever = any(r.status == Status.REPRODUCED for r in decisive)
        return State.NOT_REPRODUCING if ever else State.UNVERIFIED
    if absence:
        # The set-up printed what it should; the entry's message among it breaks the claim.
        return State.DRIFTED if matched else State.UNREACHABLE
    if not matched:
        return State.DRIFTED
    return State.VERIFIED if fix_verified else State.UNVERIFIED
