"""The real trainer proves a demo entry unreachable: supervised training never prints it."""

import pytest

from errorkb.kb.models import ErrorEntry
from errorkb.verification.models import Scenario, VerificationRun
from errorkb.verification.state.judging import State, verification_of
from errorkb.verification.sync import sync_scenarios
from errorkb.verification.tasks import verify_entries
from tests.builders import load_demo

pytestmark = pytest.mark.django_db

ABSENCE = "supervised-dev-full-model"  # disproves "Can save model checkpoint."


def test_a_supervised_run_shows_the_save_panic_unreachable_and_what_is_printed(eager):
    load_demo()
    sync_scenarios()
    scenario = Scenario.objects.get(name=ABSENCE)
    entry = ErrorEntry.objects.get(error_message="Can save model checkpoint.")
    assert scenario.proves_absence_of(entry)
    entry.scenarios.set([scenario])  # this one alone: one failure run, no fix run

    assert verify_entries.apply(kwargs={"entry_ids": [entry.id]}).get() == 1
    run = VerificationRun.objects.get(entry=entry)
    assert (run.status, run.pattern_matched) == ("reproduced", False)
    verification = verification_of(entry)
    assert verification.state == State.UNREACHABLE
    assert verification.seen_instead.text.startswith("Training interrupted: ")
    assert verification.seen_instead.text == run.texts[0]
    assert verification.seen_instead.setup.endswith("(main)")
