"""manage.py verify: enqueue runs; with --wait, follow them and print outcomes."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from errorkb.verification.models import Scenario
from errorkb.verification.sync import sync_scenarios
from tests.builders import load_demo

pytestmark = pytest.mark.django_db


def test_it_verifies_an_entry_and_waits_for_the_outcome(eager):
    load_demo()
    sync_scenarios()
    scenario = Scenario.objects.get(name="init-changed-architecture")
    entry = scenario.entries.get(error_message=scenario.message)
    entry.scenarios.set([scenario])  # only this fast one: two runs
    out = StringIO()
    call_command("verify", "--entry", entry.id, "--wait", stdout=out)
    text = out.getvalue()
    assert "enqueued 2 runs for 1 entries" in text
    assert "2/2 finished: 1 fixed, 1 reproduced" in text
    assert f"verified          {entry.error_message}" in text
    assert "runs in" in text and "wall time" in text


def test_it_needs_entries_or_all():
    with pytest.raises(CommandError, match="--entry ID, or use --all"):
        call_command("verify", stdout=StringIO())


def test_it_refuses_an_unknown_entry():
    with pytest.raises(CommandError, match="no entry has the id"):
        call_command("verify", "--entry", "0123456789abcdef", stdout=StringIO())
