"""terms.state_rank(): an entry's rank within a tier of matches, as the ORM reads it on
either database (verified first, never raised last)."""

import pytest
from django.utils import timezone

from errorkb.kb.models import ErrorEntry
from errorkb.search.terms import HasRaisedRow, HasRows, state_rank
from errorkb.verification.models import EntryState, State
from tests.builders import applies_to_row, import_records, make_record, raised_row

pytestmark = pytest.mark.django_db


def store(entry: ErrorEntry, state: State) -> None:
    now = timezone.now()
    EntryState.objects.update_or_create(
        entry=entry, defaults={"state": state, "changed_at": now, "computed_at": now}
    )


def test_it_ranks_verified_first_never_raised_last_and_the_others_between():
    verified, _, _, unreachable, _, raised_elsewhere = import_records(
        make_record("Verified.", appliesTo=[applies_to_row()]),
        make_record("Raised.", appliesTo=[raised_row()]),
        make_record("Never raised.", appliesTo=[applies_to_row()]),
        make_record("Unreachable."),
        make_record("Unknown."),
        make_record("Raised elsewhere.", appliesTo=[applies_to_row(), raised_row()]),
    )
    store(verified, State.VERIFIED)
    store(unreachable, State.UNREACHABLE)
    store(raised_elsewhere, State.UNREACHABLE)
    ranked = ErrorEntry.objects.annotate(rank=state_rank()).values_list("error_message", "rank")
    assert dict(ranked) == {
        "Verified.": 0,
        "Raised.": 1,
        "Never raised.": 2,
        "Unreachable.": 2,
        "Unknown.": 1,
        "Raised elsewhere.": 1,
    }


def test_it_reads_appliesto_rows_null_empty_or_listed():
    entries = import_records(*(make_record(f"Entry {n}.") for n in range(4)))
    rows = [None, [], [applies_to_row()], [applies_to_row(), raised_row()]]
    for entry, applies_to in zip(entries, rows, strict=True):
        ErrorEntry.objects.filter(pk=entry.pk).update(applies_to=applies_to)
    flags = ErrorEntry.objects.annotate(
        raised=HasRaisedRow("applies_to"), any_row=HasRows("applies_to")
    ).values_list("error_message", "raised", "any_row")
    assert sorted(flags) == [
        ("Entry 0.", False, False),
        ("Entry 1.", False, False),
        ("Entry 2.", False, True),
        ("Entry 3.", True, True),
    ]
