"""Two runs of one entry finishing at once: the stored state sees both."""

import threading

import pytest
from django.db import connection

from errorkb.verification.models import State
from errorkb.verification.runs import claim_run, record_outcome
from errorkb.verification.state import stored
from errorkb.verification.state.judging import verification_of
from errorkb.verification.state.stored import stored_state
from tests.verification.builders import outcome

pytestmark = pytest.mark.django_db(transaction=True)


def test_two_runs_finishing_together_store_the_state_of_both(entry, scenario, monkeypatch):
    derive = stored.verification_of

    def slow_derive(entry):
        verification = derive(entry)
        threading.Event().wait(0.5)  # the other run commits now, if nothing orders them
        return verification

    monkeypatch.setattr(stored, "verification_of", slow_derive)
    failure, _ = claim_run("task-failure", entry, scenario, "failure", "cpu")
    fix, _ = claim_run("task-fix", entry, scenario, "fixed", "cpu")
    payloads = {
        failure.pk: outcome("reproduced", f"{entry.error_message}: Io(..)"),
        fix.pk: outcome("fixed", variant="fixed"),
    }
    errors = []

    def finish(run):
        try:
            record_outcome(run, payloads[run.pk])
        except Exception as err:  # noqa: BLE001 - reported below
            errors.append(err)
        finally:
            connection.close()

    threads = [threading.Thread(target=finish, args=(run,)) for run in (failure, fix)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    # Alone, each run leaves the entry unverified; together they verify it.
    assert verification_of(entry).state == State.VERIFIED == stored_state(entry)
