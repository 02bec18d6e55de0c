"""An entry's states per release and set-up: what it claims where, and what proved it.

An entry's appliesTo rows each claim, for a range of releases and a set-up, that burn
raises its message there or prints something else instead. Its scenarios mirror one
release and one set-up each (Scenario.release, Scenario.setup): a proof scenario whose
release lies in a raised row's range and whose set-up is the row's proves that row, an
absence scenario the same of a not-raised row. A scenario that matches no row claims
its own release and set-up. raisedIn says which releases' source holds the line at all.

So "Can save model checkpoint." is raised in 0.20.0-pre.1 – 0.20.0-pre.5 with a hand-made
set-up, and unreachable with the standard launcher at main: neither answer is the
entry's, and state_at gives the one for the reader's release.
"""

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime

from django.db import models
from django.db.models import Exists, OuterRef, QuerySet

from errorkb.kb.models import ErrorEntry
from errorkb.kb.record.names import RELEASE_RE
from errorkb.kb.record.release_ranges import NEWEST, release_key, version_ends, version_in

from ..models import Scenario, State
from .judging import ScenarioResult, Verification, verification_of, verifications_of

RAISED = "raised"
NOT_RAISED = "not raised"
# The annotation with_scenario_flag() puts on each entry.
SCENARIO_FLAG = "has_scenarios"


class ReleaseState(models.TextChoices):
    """What errorkb knows of an entry's message at one release, with one set-up."""

    VERIFIED = "verified", "verified: a run reproduced it"
    NOT_YET_REPRODUCED = "not_yet_reproduced", "raised; not yet reproduced"
    UNREACHABLE = "unreachable", "unreachable: a run showed burn prints something else"
    NOT_RAISED = "not_raised", "not raised: burn prints something else"
    DRIFTED = "drifted", "drifted: a run no longer shows what the entry says"
    FLAKY = "flaky", "flaky"
    NOT_REPRODUCING = "not_reproducing", "not reproducing any more"
    NO_CLAIM = "no_claim", "no set-up examined"
    NOT_IN_RELEASE = "not_in_release", "not in this release's source"


# A scenario's state, as a claim's. The ones that break a claim come first: a claim is as
# trustworthy as its least trustworthy scenario, as an entry is (state._ORDER).
_BREAKING = {
    State.DRIFTED: ReleaseState.DRIFTED,
    State.NOT_REPRODUCING: ReleaseState.NOT_REPRODUCING,
    State.FLAKY: ReleaseState.FLAKY,
}
# Of several claims covering one release, the one a reader is told first.
_SHOWN_FIRST = [
    ReleaseState.DRIFTED,
    ReleaseState.NOT_REPRODUCING,
    ReleaseState.FLAKY,
    ReleaseState.VERIFIED,
    ReleaseState.NOT_YET_REPRODUCED,
    ReleaseState.UNREACHABLE,
    ReleaseState.NOT_RAISED,
]


class UnknownRelease(ValueError):
    """A release name that is neither burn's release syntax (0.19.1, 0.22.0-pre.1) nor main."""


@dataclass(frozen=True)
class Proof:
    """The run that decides a claim: its scenario, when it ran, what burn printed."""

    scenario: str
    device: str
    ran_at: datetime | None  # when its run started (what a list has read of it)
    observed: str | None


@dataclass
class Claim:
    """One claim of an entry: with `setup`, in `versions`, burn raises its message or not."""

    versions: str
    setup: str
    outcome: str  # RAISED or NOT_RAISED
    state: ReleaseState
    seen: str = ""  # what burn prints instead, when not raised
    proof: str = ""  # the scenario, when, what it observed; or why burn cannot print it
    note: str = ""  # the row's own note: what the text reads in full there
    run: Proof | None = None  # the deciding run, when a scenario ran

    @property
    def raised(self) -> bool:
        return self.outcome == RAISED

    def covers(self, release: str) -> bool:
        return _versions_hold(self.versions, release)


@dataclass
class AtRelease:
    """The state of an entry's message at one release (None: no release known)."""

    release: str | None
    state: ReleaseState
    label: str
    claims: list[Claim] = field(default_factory=list)


def normalise_release(release: str) -> str:
    """The release as the records name it: "v0.19.1" is 0.19.1; UnknownRelease when no release."""
    name = release.strip()
    if name == NEWEST:
        return name
    name = name.removeprefix("v")
    if not RELEASE_RE.match(name):
        raise UnknownRelease(
            f"{release!r} is not a release: give one such as 0.19.1, 0.22.0-pre.1 or {NEWEST}"
        )
    return name


def release_asked(release: str, known: list[str]) -> str:
    """The release a reader asked for, normalised; UnknownRelease when it is none of
    `known` (the releases scanned, oldest first; any release name when none is)."""
    name = normalise_release(release)
    if known and name != NEWEST and name not in known:
        raise UnknownRelease(
            f"burn has no release {name}: its releases run {known[0]} – {known[-1]} and {NEWEST}."
        )
    return name


def fix_for(solutions: list[str], release: str | None) -> str | None:
    """The first fix to show: at a release, the first solution naming a range of releases
    that holds it, else the first naming none; else the first of all."""
    if not solutions:
        return None
    if release is not None:
        for solution in solutions:
            if any(_versions_hold(versions, release) for versions in _ranges_named(solution)):
                return solution
        for solution in solutions:
            if not _ranges_named(solution):
                return solution
    return solutions[0]


# "0.13.0 – 0.19.1", "0.20.0 – main", "0.22.0-pre.1": a range or a release, in a solution.
_RANGE_IN_TEXT = re.compile(
    r"\b\d+\.\d+\.\d+(?:-pre\.\d+)?(?:\s+[–-]\s+(?:\d+\.\d+\.\d+(?:-pre\.\d+)?|main))?"
)


def _ranges_named(text: str) -> list[str]:
    return _RANGE_IN_TEXT.findall(text)


def claims_for(entry: ErrorEntry, verification: Verification | None = None) -> list[Claim]:
    """One claim per appliesTo row, then one per scenario that matches no row.

    `verification` (state.verification_of's) spares deriving it again.
    """
    if verification is None:
        verification = verification_of(entry)
    results = [(r, r.linked_scenario) for r in verification.scenarios if r.linked_scenario]
    scenarios = {scenario.name: scenario for _, scenario in results}
    rows = list(entry.applies_to or ())
    of_row: list[list[ScenarioResult]] = [[] for _ in rows]
    by_scenario: dict[str, list[ScenarioResult]] = {}
    for result, scenario in results:
        matched = _rows_of(rows, result, scenario)
        for number in matched:
            of_row[number].append(result)
        if not matched and _release_of(scenario) is not None:
            by_scenario.setdefault(scenario.name, []).append(result)
    claims = [_row_claim(row, mine) for row, mine in zip(rows, of_row, strict=True)]
    claims += [_scenario_claim(scenarios[name], mine) for name, mine in by_scenario.items()]
    return claims


def with_scenario_flag(entries: QuerySet) -> QuerySet:
    """The entries, each annotated with whether a scenario is linked to it: claims_of_entries
    derives the runs of those alone (a list of entries nothing verifies reads no runs)."""
    links = Scenario.entries.through.objects.filter(errorentry_id=OuterRef("pk"))
    return entries.annotate(**{SCENARIO_FLAG: Exists(links)})


def claims_of_entries(entries: Iterable[ErrorEntry]) -> dict[str, list[Claim]]:
    """claims_for of many entries, each keyed by id, in a fixed number of queries: none
    when with_scenario_flag says no entry has a scenario."""
    entries = list(entries)
    linked = [e.pk for e in entries if getattr(e, SCENARIO_FLAG, True)]
    verifications = verifications_of(linked) if linked else {}
    nothing = Verification(State.UNVERIFIED)
    return {e.pk: claims_for(e, verifications.get(e.pk, nothing)) for e in entries}


def state_at(
    entry: ErrorEntry, release: str | None, claims: list[Claim] | None = None
) -> AtRelease:
    """The entry's state at `release` (its claims covering it); entry-wide when None.

    UnknownRelease when `release` is no release's name.
    """
    if claims is None:
        claims = claims_for(entry)
    if release is None:
        return AtRelease(None, entry_state(claims), entry_summary(entry, claims), claims)
    release = normalise_release(release)
    covering = [c for c in claims if c.covers(release)]
    if covering:
        state = _first_shown(covering)
        return AtRelease(release, state, _label(release, covering), covering)
    holds = _holds_line(entry, release)
    if holds is False:
        return AtRelease(
            release, ReleaseState.NOT_IN_RELEASE, f"burn {release} has no such line", []
        )
    # Without a scan of burn's releases errorkb does not know whether the line is there.
    where = f"burn {release} has the line; " if holds else ""
    return AtRelease(
        release, ReleaseState.NO_CLAIM, f"{where}errorkb has examined no set-up at {release}", []
    )


def entry_summary(entry: ErrorEntry, claims: list[Claim] | None = None) -> str:
    """The honest entry-wide sentence: where and with what burn raises it, and what not."""
    if claims is None:
        claims = claims_for(entry)
    raised = [c for c in claims if c.raised]
    absent = [c for c in claims if not c.raised]
    parts = [_raised_part(raised)] if raised else []
    if absent:
        parts.append(_absent_part(absent, others=bool(raised)))
    if not parts:
        return "no release or set-up examined yet"
    return "; ".join(parts)


def entry_state(claims: list[Claim]) -> ReleaseState:
    """The entry-wide state: its raised claims' when it has any, else its absences'; a
    claim a run broke (drifted, flaky, not reproducing) whichever it is."""
    broken = [c for c in claims if c.state in _BREAKING.values()]
    deciding = broken or [c for c in claims if c.raised] or claims
    return _first_shown(deciding) if deciding else ReleaseState.NO_CLAIM


def _first_shown(claims: list[Claim]) -> ReleaseState:
    return min((c.state for c in claims), key=_SHOWN_FIRST.index)


def _raised_part(raised: list[Claim]) -> str:
    by_setup: dict[str, list[str]] = {}
    for claim in raised:
        by_setup.setdefault(claim.setup, []).append(claim.versions)
    if len(by_setup) > 2:
        ends = [end for c in raised for end in version_ends(c.versions)]
        first, last = min(ends, key=release_key), max(ends, key=release_key)
        done = f"raised between {first} and {last} with {len(by_setup)} set-ups"
    else:
        done = ", and ".join(
            f"in {_joined(sorted(versions, key=_first_release))} with {setup}"
            for setup, versions in by_setup.items()
        )
        done = f"raised {done}"
    states = {c.state for c in raised}
    if states == {ReleaseState.VERIFIED}:
        return done + " (reproduced)"
    if ReleaseState.VERIFIED in states:
        return done + " (reproduced with some)"
    breaking = [s for s in _SHOWN_FIRST[:3] if s in states]
    if breaking:
        return f"{done} ({breaking[0].label})"
    return done + " (not yet reproduced)"


def _first_release(versions: str):
    return release_key(version_ends(versions)[0])


def _joined(items: list[str]) -> str:
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def _absent_part(absent: list[Claim], *, others: bool) -> str:
    setups = len({c.setup for c in absent})
    if others:
        what = (
            "the other set-up examined" if setups == 1 else f"the {setups} other set-ups examined"
        )
    else:
        what = "the set-up examined" if setups == 1 else f"any of the {setups} set-ups examined"
    proven = {c.setup for c in absent if c.state == ReleaseState.UNREACHABLE}
    if any(c.state == ReleaseState.DRIFTED for c in absent):
        return f"{what}: said never to print it, but a run printed it"
    if others:
        text = f"{what} never {'prints' if setups == 1 else 'print'} it"
    else:
        text = f"burn never prints it with {what}"
    if not proven:
        return text
    if len(proven) == setups:
        return text + " (a run confirmed it)"
    return text + f" (a run confirmed {len(proven)} of them)"


def _label(release: str, covering: list[Claim]) -> str:
    raised = [c for c in covering if c.raised]
    if raised:
        setups = " or ".join(dict.fromkeys(c.setup for c in raised))
        state = _first_shown(raised)
        done = {
            ReleaseState.VERIFIED: "reproduced",
            ReleaseState.NOT_YET_REPRODUCED: "not yet reproduced",
        }.get(state, state.label)
        text = f"raised in {release} with {setups}; {done}"
        if len(raised) < len(covering):
            text += "; not with the other set-ups examined"
        return text
    seen = " or ".join(dict.fromkeys(c.seen for c in covering if c.seen))
    text = f"not raised in {release} with the set-ups examined"
    if seen:
        text += f": burn prints {seen} instead"
    if any(c.state == ReleaseState.UNREACHABLE for c in covering):
        text += " (a run confirmed it)"
    return text


def _row_claim(row: dict, results: list[ScenarioResult]) -> Claim:
    raised = row.get("outcome") == RAISED
    claim = Claim(
        versions=row.get("versions", ""),
        setup=row.get("setup", ""),
        outcome=RAISED if raised else NOT_RAISED,
        state=ReleaseState.NOT_YET_REPRODUCED if raised else ReleaseState.NOT_RAISED,
        seen="" if raised else row.get("seen", ""),
        note=row.get("note") or "",
    )
    _judge(claim, results)
    if not claim.proof and not raised and claim.note:
        claim.proof = f"burn's source at {claim.versions} prints: {claim.note}"
    return claim


def _scenario_claim(scenario: Scenario, results: list[ScenarioResult]) -> Claim:
    absence = results[0].absence
    claim = Claim(
        versions=_release_of(scenario) or "",
        setup=scenario.setup_summary or scenario.setup or f"the set-up of scenario {scenario.name}",
        outcome=NOT_RAISED if absence else RAISED,
        state=ReleaseState.NOT_RAISED if absence else ReleaseState.NOT_YET_REPRODUCED,
        seen=scenario.message if absence else "",
    )
    _judge(claim, results)
    return claim


def _judge(claim: Claim, results: list[ScenarioResult]) -> None:
    """The claim's state and proof from the results of its scenarios (absences for a
    not-raised claim, proofs for a raised one); the others say nothing of it."""
    mine = [r for r in results if r.absence != claim.raised]
    for scenario_state, state in _BREAKING.items():
        if any(r.state == scenario_state for r in mine):
            claim.state = state
            break
    else:
        good = State.VERIFIED if claim.raised else State.UNREACHABLE
        if any(r.state == good for r in mine):
            claim.state = ReleaseState.VERIFIED if claim.raised else ReleaseState.UNREACHABLE
    deciding = _latest([r for r in mine if _decides(r, claim.state)] or mine)
    if deciding is None:
        return
    run = deciding.failure
    claim.run = Proof(
        deciding.scenario, deciding.device, run.started_at if run else None, deciding.message
    )
    claim.proof = _proof_text(claim.run, claim.raised)


def _decides(result: ScenarioResult, state: ReleaseState) -> bool:
    return result.state.value == state.value or (
        state == ReleaseState.NOT_YET_REPRODUCED and result.failure is not None
    )


def _latest(results: list[ScenarioResult]) -> ScenarioResult | None:
    ran = [r for r in results if r.failure is not None]
    if not ran:
        return results[0] if results else None
    return max(ran, key=lambda r: r.failure.started_at)


def _proof_text(run: Proof, raised: bool) -> str:
    if run.ran_at is None:
        return f"scenario {run.scenario} has not run yet"
    when = run.ran_at.strftime("%Y-%m-%d %H:%M UTC")
    if not run.observed:
        return f"scenario {run.scenario} ran on {run.device} at {when}; burn printed nothing"
    verb = "burn printed" if raised else "burn printed instead"
    return f"scenario {run.scenario} ran on {run.device} at {when}; {verb}: {run.observed}"


def _release_of(scenario: Scenario) -> str | None:
    """The release a scenario mirrors, as records name it: v0.19.1 is 0.19.1; None for a
    commit no release holds (main-2785abb3)."""
    if scenario.release in ("", NEWEST):
        return NEWEST
    found = re.match(r"v?(\d+\.\d+\.\d+(?:-pre\.\d+)?)(?:$|-)", scenario.release)
    return found.group(1) if found else None


def _rows_of(rows: list[dict], result: ScenarioResult, scenario: Scenario) -> list[int]:
    """The rows a scenario's result speaks for: those of a range holding its release, with
    its outcome, and with its set-up (the rows naming most of its set-up's words). A proof
    scenario speaks for the one such raised row whatever its set-up is called: the proof
    ran that code, within whichever set-up."""
    release = _release_of(scenario)
    if release is None:
        return []
    outcome = NOT_RAISED if result.absence else RAISED
    candidates = [
        number
        for number, row in enumerate(rows)
        if row.get("outcome") == outcome and _versions_hold(row.get("versions", ""), release)
    ]
    scores = {
        number: _setup_score(scenario, rows[number].get("setup", "")) for number in candidates
    }
    best = max(scores.values(), default=0)
    if best > 0:
        return [number for number in candidates if scores[number] == best]
    if not scenario.setup or (not result.absence and len(candidates) == 1):
        return candidates
    return []


def _versions_hold(versions: str, release: str) -> bool:
    if not versions:
        return False
    try:
        return version_in(release, versions)
    except ValueError:
        return False


def _squashed(text: str) -> str:
    return re.sub(r"[\s_-]+", "", text.lower())


def _setup_score(scenario: Scenario, setup: str) -> int:
    """How well a row's set-up names the scenario's: its whole key (hand-built,
    learner-builder) or a Rust path both name (SupervisedTraining::launch) most, else the
    number of its key's words (supervised, rl) the row holds."""
    if not scenario.setup:
        return 0
    paths = set(re.findall(r"\w+::\w+", scenario.setup_summary or ""))
    if _squashed(scenario.setup) in _squashed(setup) or paths & set(re.findall(r"\w+::\w+", setup)):
        return 100
    words = scenario.setup.lower().split("-")
    return sum(bool(re.search(rf"\b{re.escape(word)}", setup.lower())) for word in words)


def _holds_line(entry: ErrorEntry, release: str) -> bool | None:
    """Whether burn's source at `release` holds the line; None when no scan has said."""
    if entry.raised_in is None:
        return None
    if release == NEWEST:
        return bool(entry.raised_in) and entry.removed_upstream is None
    return any(row.get("release") == release for row in entry.raised_in)


__all__ = [
    "AtRelease",
    "Claim",
    "Proof",
    "ReleaseState",
    "UnknownRelease",
    "claims_for",
    "claims_of_entries",
    "entry_summary",
    "entry_state",
    "fix_for",
    "release_asked",
    "normalise_release",
    "state_at",
    "with_scenario_flag",
]
