"""runs.record_outcome keeps the signal that ended a run: burn printed nothing, the kernel spoke."""

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
