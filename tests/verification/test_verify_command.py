"""manage.py verify: enqueue runs; with --wait, follow them and print outcomes."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from errorkb.kb.models import ErrorEntry
from errorkb.verification.management.commands.verify import Command
from errorkb.verification.models import EntryState, Scenario, State, VerificationRun
from errorkb.verification.sync import sync_scenarios
from tests.builders import import_records, load_demo, make_record
from tests.verification.builders import link_scenario, prove

pytestmark = pytest.mark.django_db


class Terminal(StringIO):
    def isatty(self) -> bool:
        return True


def test_it_verifies_an_entry_and_waits_for_the_outcome(eager, monkeypatch):
    terminal = Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
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
    # On a terminal, a progress bar of the finished runs.
    assert "runs: 100%" in terminal.getvalue() and "2/2" in terminal.getvalue()


def test_it_needs_entries_or_all():
    with pytest.raises(CommandError, match="--entry ID, or use --all"):
        call_command("verify", stdout=StringIO())


def test_it_refuses_an_unknown_entry():
    with pytest.raises(CommandError, match="no entry has the id"):
        call_command("verify", "--entry", "0123456789abcdef", stdout=StringIO())


def _imported(message: str, **record) -> ErrorEntry:
    return import_records(make_record(message, repo="tracel-ai/burn", **record))[0]


def test_it_names_an_entry_without_a_scenario_and_fails():
    entry = _imported("Nothing reproduces this.")
    out = StringIO()
    with pytest.raises(CommandError, match="none of the entries named can be verified"):
        call_command("verify", "--entry", entry.id, stdout=out)
    assert "not verified, no scenario is linked to it: 1 entries" in out.getvalue()
    assert f"  {entry.id}  Nothing reproduces this." in out.getvalue()
    assert "enqueued 0 runs for 0 entries" in out.getvalue()


def test_it_names_an_entry_whose_scenarios_are_retired():
    entry = _imported("Only a retired scenario shows this.")
    link_scenario(entry, "gone-from-the-registry", active=False)
    out = StringIO()
    with pytest.raises(CommandError):
        call_command("verify", "--entry", entry.id, stdout=out)
    assert "its scenarios are retired: gone-from-the-registry: 1 entries" in out.getvalue()
    assert entry.id in out.getvalue()


def test_all_names_the_unpublished_and_the_unlinked_and_enqueues_the_rest(monkeypatch):
    from errorkb.verification.tasks import run_scenario

    monkeypatch.setattr(run_scenario, "apply_async", lambda *a, task_id=None, **k: None)
    load_demo()  # after the mirror made by migrate: nobody runs sync_scenarios
    unlinked = _imported("Nothing reproduces this.")
    draft = ErrorEntry.objects.for_repo("tracel-ai/burn").exclude(pk=unlinked.pk).first()
    ErrorEntry.objects.filter(pk=draft.pk).update(status=ErrorEntry.Status.DRAFT)
    out = StringIO()
    call_command("verify", "--all", stdout=out)
    text = out.getvalue()
    assert f"not verified, no scenario is linked to it: 1 entries\n  {unlinked.id}" in text
    assert "not verified, not published: --all verifies published entries: 1 entries" in text
    assert f"  {draft.id}  {draft.error_message}" in text
    verifiable = ErrorEntry.objects.published().filter(scenarios__active=True).distinct()
    assert f"runs for {verifiable.count()} entries" in text
    assert "enqueued 0 runs" not in text


def test_the_report_shows_each_entrys_stored_state(entry, scenario):
    prove(entry, scenario)
    EntryState.objects.filter(entry=entry).update(state=State.FLAKY)  # as lists show it
    out = StringIO()
    runs = list(VerificationRun.objects.select_related("entry", "scenario"))
    Command(stdout=out).report(runs, 1.0)
    assert f"flaky             {entry.error_message}" in out.getvalue()
    assert f"{scenario.name:42} failure  cpu   reproduced" in out.getvalue()  # runs as read
