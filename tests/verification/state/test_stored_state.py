"""The stored verification state: written with each run, link and text change, equal to the
derived."""

from io import StringIO

import pytest
from django.core.management import call_command
from django.db import transaction
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from errorkb.kb.dataset.import_export import export_dataset
from errorkb.kb.models import ErrorEntry
from errorkb.kb.record.schema import message_matches
from errorkb.verification import runs
from errorkb.verification.models import EntryState, Scenario, State
from errorkb.verification.runs import claim_run, fail_run
from errorkb.verification.state.judging import verification_of
from errorkb.verification.state.stored import stored_state, with_stored_state
from errorkb.verification.sync import sync_scenarios
from tests.builders import import_records, make_record
from tests.kb.edits import edit
from tests.verification.builders import link_absence, link_scenario, prove, record_run

pytestmark = pytest.mark.django_db


def stored_row(entry) -> EntryState | None:
    return EntryState.objects.filter(entry=entry).first()


def test_an_entry_without_a_stored_row_reads_as_unverified(entry):
    assert stored_row(entry) is None
    assert stored_state(entry) == State.UNVERIFIED
    assert with_stored_state(type(entry).objects.filter(pk=entry.pk)).get().stored_state == (
        "unverified"
    )


def test_recording_a_run_stores_the_state_it_gives(entry, scenario):
    prove(entry, scenario)
    assert stored_row(entry).state == State.VERIFIED == verification_of(entry).state


def test_changed_at_moves_only_when_the_state_changes(entry, scenario):
    prove(entry, scenario)
    first = stored_row(entry)
    record_run(entry, scenario, "fixed", variant="fixed")  # still verified
    again = stored_row(entry)
    assert again.changed_at == first.changed_at and again.computed_at > first.computed_at
    record_run(entry, scenario, "not_reproduced", "training completed")
    changed = stored_row(entry)
    assert changed.state == State.NOT_REPRODUCING and changed.changed_at > first.changed_at


def test_a_harness_failure_recorded_by_fail_run_stores_the_state(entry, scenario):
    record_run(entry, scenario, "unsupported")
    run, _ = claim_run("timed-out-task", entry, scenario, "failure", "cpu")
    fail_run("timed-out-task", "the task ran past its limit")
    run.refresh_from_db()
    assert run.status == "error"
    assert stored_row(entry).computed_at >= run.finished_at
    assert stored_state(entry) == verification_of(entry).state == State.UNSUPPORTED


def test_the_run_and_its_state_commit_together_or_not_at_all(entry, scenario, monkeypatch):
    def broken(entry_id):
        raise RuntimeError("the database went away")

    monkeypatch.setattr(runs, "store_state", broken)
    run, _ = claim_run("doomed-task", entry, scenario, "failure", "cpu")
    with pytest.raises(RuntimeError):
        fail_run("doomed-task", "time limit")
    run.refresh_from_db()
    assert run.status == "running"  # the run's finish was rolled back with the state


def test_unlinking_a_scenario_stores_the_state_without_it(entry, scenario):
    prove(entry, scenario)
    scenario.entries.remove(entry)
    assert stored_state(entry) == State.UNVERIFIED == verification_of(entry).state
    entry.scenarios.add(scenario)  # from the entry's side
    assert stored_state(entry) == State.VERIFIED


def test_clearing_a_scenarios_links_stores_each_entrys_state(entry, scenario):
    prove(entry, scenario)
    scenario.entries.clear()
    assert stored_state(entry) == State.UNVERIFIED


def test_a_sync_that_retires_a_scenario_stores_its_entries_states(entry, scenario):
    prove(entry, scenario)
    sync_scenarios([])  # the registry no longer has it
    assert not Scenario.objects.get(pk=scenario.pk).active
    assert stored_state(entry) == State.UNVERIFIED == verification_of(entry).state


# --- stored equals derived, whatever the runs ---------------------------------------


MESSAGES = [
    "Can save model checkpoint.",
    "Could not load the checkpoint.",
    "Training interrupted.",
    "Renamed.",
]
# Patterns a text change may give: each matches some of the texts runs print below.
PATTERNS = [r"Can save model checkpoint\.", "checkpoint", "Something", r"Could not load"]


@pytest.fixture
def entries():
    return import_records(
        make_record(MESSAGES[0]),
        make_record(MESSAGES[1], filePath="src/load.rs"),
        make_record(MESSAGES[2], filePath="src/train.rs"),
    )


STEP = st.one_of(
    st.tuples(
        st.just("run"),
        st.integers(0, 2),  # entry
        st.integers(0, 1),  # scenario
        st.sampled_from(["failure", "fixed"]),
        st.sampled_from(["cpu", "cuda"]),
        st.sampled_from(
            ["reproduced", "reproduced", "not_reproduced", "fixed", "unsupported", "error"]
        ),
        st.sampled_from(["matching", "other", None]),
        st.integers(0, 90),  # minutes ago
    ),
    st.tuples(st.just("lost"), st.integers(0, 2), st.integers(0, 1)),  # fail_run
    st.tuples(st.just("toggle-link"), st.integers(0, 2), st.integers(0, 1)),
    # A new message: another entry's (which a scenario may disprove) or a fresh one; a new
    # pattern; both from a dataset file. Through editing and an import.
    st.tuples(st.just("rename"), st.integers(0, 2), st.integers(0, 3)),
    st.tuples(st.just("repattern"), st.integers(0, 2), st.integers(0, 3)),
    st.tuples(st.just("import"), st.integers(0, 2), st.integers(0, 3), st.integers(0, 3)),
)


def _verified_only_on_texts_its_runs_printed(entry) -> bool:
    """Shown verified, the entry's pattern as it is now matches what each proof printed."""
    if stored_state(entry) != State.VERIFIED:
        return True
    return all(
        any(message_matches(entry.message_pattern, text) for text in result.failure.texts)
        for result in verification_of(entry).deciding
    )


class _Rollback(Exception):
    pass


def _link(entries) -> list[Scenario]:
    """A proof of the first entry, and a proof of the second's absence linked to both.

    The third starts unlinked. Renamed to the second's message, an entry's runs of the
    absence scenario count the other way; renamed away from it, back again.
    """
    first, second, _ = entries
    absence = link_absence(second, "supervised")
    absence.entries.add(first)
    return [link_scenario(first, "disk-full"), absence]


def _apply(step, entries, scenarios, task_ids) -> None:
    kind, entry = step[0], entries[step[1]]
    if kind == "rename":
        edit(entry, {"error_message": MESSAGES[step[2]]}, None)
        return
    if kind == "repattern":
        edit(entry, {"message_pattern": PATTERNS[step[2]]}, None)
        return
    if kind == "import":
        record = export_dataset(ErrorEntry.objects.filter(pk=entry.pk))["records"][0]
        import_records(
            {**record, "errorMessage": MESSAGES[step[2]]} | {"messagePattern": PATTERNS[step[3]]}
        )
        return
    scenario = scenarios[step[2]]
    if kind == "toggle-link":
        if scenario.entries.filter(pk=entry.pk).exists():
            scenario.entries.remove(entry)
        else:
            scenario.entries.add(entry)
    elif kind == "lost":
        task_id = f"lost-{next(task_ids)}"
        claim_run(task_id, entry, scenario, "failure", "cpu")
        fail_run(task_id, "its worker was lost")
    else:
        variant, device, status, message, minutes_ago = step[3:]
        text = {"matching": f"{entry.error_message}: Io(..)", "other": "Something else."}
        record_run(
            entry, scenario, status, text.get(message),
            variant=variant, device=device, minutes_ago=minutes_ago,
        )  # fmt: skip


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(steps=st.lists(STEP, min_size=3, max_size=25))
# Rare at random, so always tried: a proof of absence that stops being one, and one begun.
@example(steps=[("run", 1, 1, "failure", "cpu", "reproduced", "other", 0), ("rename", 1, 3)])
@example(steps=[("run", 0, 1, "failure", "cuda", "reproduced", None, 5), ("rename", 0, 1)])
@example(steps=[("run", 1, 1, "failure", "cpu", "reproduced", None, 0), ("toggle-link", 1, 1)])
# A proof, then a pattern its run's text no longer matches; an absence,
# then a pattern that matches what its set-up printed.
@example(
    steps=[
        ("run", 0, 0, "failure", "cpu", "reproduced", "matching", 1),
        ("run", 0, 0, "fixed", "cpu", "fixed", None, 0),
        ("repattern", 0, 2),
    ]
)
@example(steps=[("run", 1, 1, "failure", "cpu", "reproduced", "other", 0), ("import", 1, 1, 2)])
def test_the_stored_state_equals_the_derived_state_after_any_runs_links_and_text_changes(
    entries, steps
):
    task_ids = iter(range(10**6))
    try:
        with transaction.atomic():  # each example starts from the same three entries
            for entry in entries:
                entry.refresh_from_db()
            scenarios = _link(entries)
            for step in steps:
                _apply(step, entries, scenarios, task_ids)
                for entry in entries:
                    entry.refresh_from_db()
                    assert stored_state(entry) == verification_of(entry).state, (entry, steps)
                    assert _verified_only_on_texts_its_runs_printed(entry), (entry, steps)
            raise _Rollback
    except _Rollback:
        pass


def test_the_stored_state_is_not_moved_by_an_old_run_recorded_late(entry, scenario):
    prove(entry, scenario, minutes_ago=5)
    # A failure that started earlier than the proof, recorded after it: still verified.
    record_run(entry, scenario, "not_reproduced", minutes_ago=60)
    assert stored_state(entry) == State.VERIFIED == verification_of(entry).state


def test_changing_the_message_stores_the_state_its_scenarios_now_give(entry):
    absence = link_absence(entry)
    record_run(entry, absence, "reproduced", "Training interrupted: disk full")
    assert stored_state(entry) == State.UNREACHABLE
    # Renamed, the message is no longer what the scenario disproves: it must prove it now.
    edit(entry, {"error_message": "Can save the model checkpoint."}, None)
    assert verification_of(entry).state == State.DRIFTED == stored_state(entry)


def test_changing_an_entry_without_scenarios_stores_nothing(entry):
    edit(entry, {"error_message": "Renamed.", "message_pattern": "Renamed"}, None)
    assert stored_row(entry) is None


def test_a_save_outside_editing_that_changes_the_texts_is_set_right_by_recompute_states(
    entry, scenario
):
    prove(entry, scenario)
    entry.message_pattern = "Renamed"
    entry.save()  # no change through editing: nothing says the texts changed
    assert stored_state(entry) == State.VERIFIED != verification_of(entry).state
    call_command("recompute_states", "--fix", stdout=StringIO())
    assert stored_state(entry) == verification_of(entry).state == State.DRIFTED
