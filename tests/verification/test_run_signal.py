"""runs.record_outcome keeps the signal that ended a run, and the run says how it ended."""

import pytest

from errorkb.verification.models import VerificationRun
from errorkb.verification.runs import claim_run, record_outcome
from tests.verification.builders import outcome

pytestmark = pytest.mark.django_db


def test_it_stores_the_signal_of_a_run_killed_past_the_file_size_limit(entry, scenario):
    run, _ = claim_run("t-sigxfsz", entry, scenario, "failure", "cpu")
    result = outcome("reproduced", None, texts=[], errno=None, signal="SIGXFSZ")
    record_outcome(run, result)
    run = VerificationRun.objects.get(pk=run.pk)
    assert (run.status, run.signal, run.texts, run.message) == ("reproduced", "SIGXFSZ", [], None)
    assert run.pattern_matched is None  # nothing printed: nothing for the pattern to match


def test_it_stores_no_signal_for_a_run_that_ended_by_itself(entry, scenario):
    run, _ = claim_run("t-plain", entry, scenario, "failure", "cpu")
    record_outcome(run, outcome("reproduced", "Can save model checkpoint.: Io(..)"))
    assert VerificationRun.objects.get(pk=run.pk).signal == ""


def test_it_reads_an_abort_after_burns_panics_as_an_abort(entry, scenario):
    run, _ = claim_run("t-sigabrt", entry, scenario, "failure", "cpu")
    texts = ["Can send the end message to the checkpointer thread.: SendError { .. }"]
    texts += ["panic in a destructor during cleanup"]
    texts += ["thread caused non-unwinding panic. aborting."]
    record_outcome(run, outcome("reproduced", texts[0], texts=texts, signal="SIGABRT"))
    run = VerificationRun.objects.get(pk=run.pk)
    assert (run.signal, run.texts) == ("SIGABRT", texts)
    assert run.ended_by == "aborted (SIGABRT)"


def test_it_says_that_a_run_killed_past_the_file_size_limit_printed_nothing():
    killed = VerificationRun(signal="SIGXFSZ", texts=[])
    assert killed.ended_by == "killed by SIGXFSZ with nothing printed"
    assert VerificationRun(signal="", texts=["x"]).ended_by == ""
