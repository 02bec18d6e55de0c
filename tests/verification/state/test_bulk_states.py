"""store_states at scale: a chunk of entries derived together, stored in one upsert."""

from datetime import timedelta

import pytest
from django.utils import timezone

from errorkb.verification.models import EntryState, State, VerificationRun
from errorkb.verification.state import judging as derivation
from errorkb.verification.state import stored
from errorkb.verification.state.judging import verification_of, verifications_of
from errorkb.verification.state.stored import store_states
from tests.builders import import_records, make_record
from tests.verification.builders import link_absence, link_scenario, prove, record_run

pytestmark = pytest.mark.django_db

INTERRUPTED = "Training interrupted: Record error: `Record I/O error: No space left on device`"


def _make(state: str, number: int):
    entry = import_records(make_record(f"Can save checkpoint {number}."))[0]
    if state == "unlinked":
        return entry
    if state == "unreachable":
        record_run(entry, link_absence(entry, f"absent-{number}"), "reproduced", INTERRUPTED)
        return entry
    scenario = link_scenario(entry, f"proves-{number}")
    matching = f"{entry.error_message}: Io(..)"
    if state == "verified":
        prove(entry, scenario)
    elif state == "flaky":  # reproduced, not, reproduced: two flips in the recent window
        for minutes_ago, status in ((3, "reproduced"), (2, "not_reproduced"), (1, "reproduced")):
            record_run(entry, scenario, status, matching, minutes_ago=minutes_ago)
    elif state == "drifted":
        record_run(entry, scenario, "reproduced", "Something else entirely.")
    elif state == "not_reproducing":
        record_run(entry, scenario, "reproduced", matching, minutes_ago=5)
        record_run(entry, scenario, "not_reproduced")
    elif state == "unsupported":
        record_run(entry, scenario, "unsupported")
    return entry  # "unverified": linked, never run


KINDS = [
    "verified", "flaky", "drifted", "not_reproducing", "unreachable", "unsupported",
    "unverified", "unlinked",
]  # fmt: skip


@pytest.fixture
def mix():
    return {kind: _make(kind, number) for number, kind in enumerate(KINDS)}


def _stored() -> dict[str, str]:
    return dict(EntryState.objects.values_list("entry_id", "state"))


def test_bulk_derivation_gives_each_entry_what_verification_of_gives(mix):
    derived = verifications_of(e.pk for e in mix.values())
    assert {kind: derived[e.pk].state for kind, e in mix.items()} == {
        kind: verification_of(e).state for kind, e in mix.items()
    }
    assert derived[mix["flaky"].pk].state == State.FLAKY
    assert derived[mix["unreachable"].pk].state == State.UNREACHABLE
    assert derived[mix["not_reproducing"].pk].state == State.NOT_REPRODUCING


def test_bulk_store_states_stores_what_store_state_stores_for_each_entry(mix):
    for entry in mix.values():  # one at a time, as a run finishing stores it
        stored.store_state(entry.pk)
    per_entry = _stored()
    EntryState.objects.all().delete()
    store_states([e.pk for e in mix.values()] + ["0123456789abcdef"])  # and one that is gone
    assert _stored() == per_entry
    assert {State(per_entry[e.pk]) for e in mix.values()} == {State(k) for k in KINDS[:-1]}


def test_bulk_store_states_keeps_changed_at_of_an_unchanged_state(mix):
    long_ago = timezone.now() - timedelta(days=30)
    verified, drifted = mix["verified"], mix["drifted"]
    EntryState.objects.update(changed_at=long_ago, computed_at=long_ago)
    EntryState.objects.filter(entry=drifted).update(state=State.FLAKY)  # stale, say
    store_states(e.pk for e in mix.values())
    kept, moved = EntryState.objects.get(entry=verified), EntryState.objects.get(entry=drifted)
    assert kept.changed_at == long_ago and kept.computed_at > long_ago
    assert (moved.state, moved.changed_at > long_ago) == (State.DRIFTED, True)


def test_bulk_store_states_works_a_chunk_at_a_time(mix, monkeypatch):
    monkeypatch.setattr(stored, "CHUNK", 3)
    chunks = []
    derive = stored.verifications_of
    monkeypatch.setattr(stored, "verifications_of", lambda ids: chunks.append(ids) or derive(ids))
    for entry in mix.values():
        stored.store_state(entry.pk)
    expected = _stored()
    EntryState.objects.all().delete()
    store_states(e.pk for e in mix.values())
    assert [len(chunk) for chunk in chunks] == [3, 3, 2]
    assert _stored() == expected


def test_bulk_derivation_reads_the_texts_only_of_the_runs_it_judges(monkeypatch):
    entry = import_records(make_record("Can save checkpoint 9."))[0]
    scenario = link_scenario(entry, "proves-9")
    matching = f"{entry.error_message}: Io(..)"
    for minutes_ago in range(10, 2, -1):  # eight old decisive failures, none read
        record_run(entry, scenario, "reproduced", matching, minutes_ago=minutes_ago)
    decisive = record_run(entry, scenario, "reproduced", matching, minutes_ago=2)
    newest = record_run(entry, scenario, "unsupported", minutes_ago=1)
    record_run(entry, scenario, "fixed", variant="fixed")
    read = []
    printed = derivation._printed
    monkeypatch.setattr(derivation, "_printed", lambda ids: read.append(set(ids)) or printed(ids))
    assert verifications_of([entry.pk])[entry.pk].state == State.UNSUPPORTED
    assert read == [{decisive.pk, newest.pk}]


def test_bulk_derivation_makes_five_queries_however_many_entries(mix, django_assert_num_queries):
    with django_assert_num_queries(5):
        verifications_of(e.pk for e in mix.values())


def test_the_state_judges_the_runs_texts_not_the_verdict_recorded_with_them(mix):
    verified, drifted = mix["verified"], mix["drifted"]
    VerificationRun.objects.filter(entry=verified).update(pattern_matched=False)
    VerificationRun.objects.filter(entry=drifted).update(pattern_matched=True)
    derived = verifications_of([verified.pk, drifted.pk])
    assert derived[verified.pk].state == State.VERIFIED == verification_of(verified).state
    assert derived[drifted.pk].state == State.DRIFTED == verification_of(drifted).state
