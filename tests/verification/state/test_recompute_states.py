"""manage.py recompute_states: derives every entry's state again and reports differences."""

from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection

from errorkb.kb.models import ErrorEntry
from errorkb.verification.models import EntryState, State, VerificationRun
from errorkb.verification.state.stored import stored_state
from tests.verification.builders import prove

pytestmark = pytest.mark.django_db


def recompute(*args) -> str:
    out = StringIO()
    call_command("recompute_states", *args, stdout=out)
    return out.getvalue()


def test_it_says_so_when_every_stored_state_matches(entry, scenario):
    prove(entry, scenario)
    assert recompute() == "every stored state matches its runs\n"


def test_it_reports_a_difference_and_fails_without_fix(entry, scenario):
    prove(entry, scenario)
    EntryState.objects.filter(entry=entry).update(state=State.FLAKY)
    with pytest.raises(CommandError, match="1 entry differs: run with --fix"):
        call_command("recompute_states", stdout=(out := StringIO()))
    assert out.getvalue() == f"{entry.pk}: stored flaky, derived verified\n"
    assert stored_state(entry) == State.FLAKY  # reported, not written


def test_with_fix_it_stores_the_derived_state(entry, scenario):
    prove(entry, scenario)
    EntryState.objects.filter(entry=entry).update(state=State.DRIFTED)
    assert recompute("--fix") == f"{entry.pk}: stored drifted, derived verified\nfixed 1 entry\n"
    assert stored_state(entry) == State.VERIFIED
    assert recompute() == "every stored state matches its runs\n"


def test_it_finds_runs_whose_state_was_never_stored(entry, scenario):
    prove(entry, scenario)
    EntryState.objects.all().delete()  # as after upgrading a database that has runs
    assert recompute("--fix").startswith(f"{entry.pk}: stored unverified, derived verified\n")
    assert stored_state(entry) == State.VERIFIED


def test_it_finds_a_stored_state_left_on_an_entry_without_runs(entry):
    EntryState.objects.create(
        entry=entry,
        state=State.VERIFIED,
        changed_at="2026-01-01T00:00Z",
        computed_at="2026-01-01T00:00Z",
    )
    assert recompute("--fix") == f"{entry.pk}: stored verified, derived unverified\nfixed 1 entry\n"
    assert stored_state(entry) == State.UNVERIFIED


def test_it_judges_the_runs_against_the_pattern_as_it_is_now(entry, scenario):
    # A raw SQL write of the pattern, which none of kb's write paths saw: the verified
    # state is left standing on a pattern that what the runs printed no longer matches.
    prove(entry, scenario)
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {ErrorEntry._meta.db_table} SET message_pattern = 'Elsewhere' WHERE id = %s",
            [entry.pk],
        )
    assert stored_state(entry) == State.VERIFIED
    assert VerificationRun.objects.filter(entry=entry, variant="failure").get().pattern_matched
    with pytest.raises(CommandError, match="1 entry differs"):
        call_command("recompute_states", stdout=(out := StringIO()))
    assert out.getvalue() == f"{entry.pk}: stored verified, derived drifted\n"
