"""runs.record_outcome with every text a run printed: which one is about the entry."""

import pytest

from errorkb.verification.models import VerificationRun
from errorkb.verification.runs import claim_run, record_outcome
from tests.verification.builders import outcome

pytestmark = pytest.mark.django_db

SAVE = "Can save model checkpoint.: Io(..)"
DELETE = 'Can delete model checkpoint.: Unknown("sending on a closed channel")'
WORKER = "Can save the state.: RecorderError(Unknown(..))"


def recorded(entry, scenario, result: dict, variant: str = "failure") -> VerificationRun:
    run, _ = claim_run(f"t-{variant}-{id(result)}", entry, scenario, variant, "cpu")
    record_outcome(run, result)
    return VerificationRun.objects.get(pk=run.pk)


def test_it_keeps_every_text_and_takes_the_one_the_pattern_matches(entry, scenario):
    run = recorded(entry, scenario, outcome("reproduced", WORKER, texts=[WORKER, SAVE, DELETE]))
    assert run.texts == [WORKER, SAVE, DELETE]
    assert run.message == SAVE
    assert run.pattern_matched is True


def test_it_takes_the_first_text_when_the_pattern_matches_none(entry, scenario):
    run = recorded(entry, scenario, outcome("reproduced", WORKER, texts=[WORKER, DELETE]))
    assert (run.message, run.pattern_matched) == (WORKER, False)


def test_it_falls_back_to_the_message_when_the_outcome_has_no_texts(entry, scenario):
    run = recorded(entry, scenario, outcome("reproduced", SAVE))
    assert (run.texts, run.message, run.pattern_matched) == ([SAVE], SAVE, True)


def test_a_run_that_printed_nothing_has_no_message_and_no_match(entry, scenario):
    run = recorded(entry, scenario, outcome("not_reproduced", None, texts=[]))
    assert (run.texts, run.message, run.pattern_matched) == ([], None, None)


def test_a_fix_run_keeps_its_texts_but_is_not_matched(entry, scenario):
    result = outcome("fixed", None, texts=["training completed"])
    run = recorded(entry, scenario, result, variant="fixed")
    assert (run.texts, run.message, run.pattern_matched) == (
        ["training completed"],
        "training completed",
        None,
    )
