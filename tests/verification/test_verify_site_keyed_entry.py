"""manage.py verify on the entry keyed by a site: the resume scenario proves Rust's message."""

from io import StringIO

import pytest
from django.core.management import call_command

from errorkb.kb.models import ErrorEntry
from errorkb.verification.models import Scenario, State
from errorkb.verification.state.stored import stored_state
from errorkb.verification.sync import sync_scenarios
from tests.builders import load_demo

pytestmark = pytest.mark.django_db

ENTRY_ID = "395a33d9cd6d7002"


def test_the_resume_scenario_links_to_the_entry_and_verifies_it(eager):
    load_demo()
    sync_scenarios()
    entry = ErrorEntry.objects.get(pk=ENTRY_ID)
    scenario = Scenario.objects.get(name="resume-tui-estimate-underflow")
    assert list(entry.scenarios.all()) == [scenario]  # linked by its errorMessage
    out = StringIO()
    call_command("verify", "--entry", entry.id, "--wait", stdout=out)
    text = out.getvalue()
    assert "2/2 finished: 1 fixed, 1 reproduced" in text
    assert f"verified          {entry.error_message}" in text
    assert stored_state(ErrorEntry.objects.get(pk=ENTRY_ID)) == State.VERIFIED
