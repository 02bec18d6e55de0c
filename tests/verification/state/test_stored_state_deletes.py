"""Deleting runs or scenarios stores the state their entries are left with, in the same
transaction: an instance, a queryset or a cascade alike."""

import pytest
from django.db import transaction

from errorkb.kb.models import ErrorEntry
from errorkb.verification.models import EntryState, Scenario, State, VerificationRun
from errorkb.verification.state import stored as stored_module
from errorkb.verification.state.judging import verification_of
from tests.builders import import_records, make_record
from tests.verification.builders import link_scenario, prove, record_run

pytestmark = pytest.mark.django_db


def state_of(entry) -> State | None:
    row = EntryState.objects.filter(entry=entry).first()
    return None if row is None else State(row.state)


def test_deleting_a_run_stores_the_state_the_others_give(entry, scenario):
    prove(entry, scenario)
    record_run(entry, scenario, "not_reproduced", "training completed")
    assert state_of(entry) == State.NOT_REPRODUCING
    VerificationRun.objects.filter(status="not_reproduced").get().delete()
    assert state_of(entry) == State.VERIFIED == verification_of(entry).state


def test_deleting_runs_as_a_queryset_stores_each_entrys_state_once(entry, scenario, monkeypatch):
    (other,) = import_records(make_record("Can load model checkpoint."))
    prove(entry, scenario)
    prove(other, link_scenario(other, "proves-other"))
    prove(entry, scenario)
    stored = []
    derive = stored_module.verifications_of
    monkeypatch.setattr(
        stored_module, "verifications_of", lambda ids: stored.extend(ids) or derive(ids)
    )
    VerificationRun.objects.all().delete()
    assert sorted(stored) == sorted([entry.pk, other.pk])  # six runs, two entries
    assert state_of(entry) == state_of(other) == State.UNVERIFIED


def test_deleting_the_same_queryset_again_stores_again(entry, scenario):
    runs = VerificationRun.objects.filter(entry=entry)
    prove(entry, scenario)
    runs.delete()
    prove(entry, scenario)
    assert state_of(entry) == State.VERIFIED
    runs.delete()
    assert state_of(entry) == State.UNVERIFIED


def test_deleting_a_scenario_stores_its_entries_states_without_it(entry, scenario):
    prove(entry, scenario)
    (unrun,) = import_records(make_record("Can load model checkpoint."))
    scenario.entries.add(unrun)
    record_run(unrun, scenario, "unsupported")
    VerificationRun.objects.filter(entry=unrun).delete()
    EntryState.objects.filter(entry=unrun).update(state=State.FLAKY)  # an old row, say
    Scenario.objects.filter(pk=scenario.pk).delete()
    assert state_of(entry) == State.UNVERIFIED == verification_of(entry).state
    assert state_of(unrun) == State.UNVERIFIED  # linked, never run: stored from its links


def test_deleting_an_entry_with_runs_leaves_no_state_behind(entry, scenario):
    prove(entry, scenario)
    ErrorEntry.objects.filter(pk=entry.pk).delete()
    assert not EntryState.objects.exists() and not VerificationRun.objects.exists()


def test_deleting_verified_entries_as_a_queryset_leaves_no_state_behind(entry, scenario):
    (other,) = import_records(make_record("Can load model checkpoint."))
    scenario.entries.add(other)
    prove(entry, scenario)
    prove(other, scenario)
    ErrorEntry.objects.all().delete()
    assert not EntryState.objects.exists() and Scenario.objects.filter(pk=scenario.pk).exists()


def test_the_delete_and_the_state_commit_together_or_not_at_all(entry, scenario):
    prove(entry, scenario)
    with pytest.raises(RuntimeError), transaction.atomic():
        VerificationRun.objects.all().delete()
        assert state_of(entry) == State.UNVERIFIED  # in the delete's own transaction
        raise RuntimeError("the delete is rolled back")
    assert state_of(entry) == State.VERIFIED and VerificationRun.objects.count() == 2
