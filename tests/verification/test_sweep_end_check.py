"""The end of every sweep: its entries' stored and derived states compared, differences logged."""

import logging
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from errorkb.kb.models import ErrorEntry
from errorkb.verification.models import Sweep
from errorkb.verification.tasks import CHECK_EVERY_S, check_sweep, enqueue
from tests.builders import import_records, make_record
from tests.verification.builders import link_scenario, sweep_in_progress

pytestmark = pytest.mark.django_db

LOGGER = "errorkb.verification.state.stored"


@pytest.fixture
def entries():
    return import_records(
        make_record("Can save model checkpoint."),
        make_record("Can load model checkpoint.", filePath="src/load.rs"),
    )


@pytest.fixture
def finished(entries):
    """A sweep whose runs have all finished: each entry reproduced, its pattern matched."""
    scenario = link_scenario(entries[0])
    scenario.entries.add(entries[1])
    return sweep_in_progress(entries, scenario, finished=2, running=0)


def test_enqueueing_a_sweep_schedules_its_check(settings, sent, entries):
    settings.VERIFY_GPU = "never"
    link_scenario(entries[0])
    fanout = enqueue(ErrorEntry.objects.filter(pk=entries[0].pk), source="sweep")
    assert sent["checks"] == [fanout.sweep.pk]


def test_a_finished_sweep_whose_states_match_logs_no_difference(finished, caplog):
    with caplog.at_level(logging.INFO, logger=LOGGER):
        assert check_sweep.run(sweep_id=finished.pk) == 0
    assert [r.levelname for r in caplog.records] == ["INFO"]
    assert "2 of 2 runs finished, 0 stored states differ" in caplog.text


def test_a_finished_sweep_logs_each_entry_whose_stored_state_differs(finished, entries, caplog):
    # A raw write of the pattern, which none of kb's write paths saw: not judged again.
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {ErrorEntry._meta.db_table} SET message_pattern = 'Elsewhere' WHERE id = %s",
            [entries[1].pk],
        )
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        assert check_sweep.run(sweep_id=finished.pk) == 1
    (warning,) = caplog.records
    assert f"{entries[1].pk}: stored unverified, derived drifted" in warning.getMessage()


def test_an_unfinished_sweep_is_checked_again_later(sent, entries):
    scenario = link_scenario(entries[0])
    sweep = sweep_in_progress(entries[:1], scenario, finished=1, running=1)
    assert check_sweep.run(sweep_id=sweep.pk) is None
    assert sent["checks"] == [sweep.pk]
    assert CHECK_EVERY_S > 0


def test_a_sweep_unfinished_for_a_day_is_compared_all_the_same(sent, entries, caplog):
    scenario = link_scenario(entries[0])
    sweep = sweep_in_progress(entries[:1], scenario, finished=1, running=1)
    Sweep.objects.filter(pk=sweep.pk).update(started_at=timezone.now() - timedelta(days=2))
    with caplog.at_level(logging.INFO, logger=LOGGER):
        assert check_sweep.run(sweep_id=sweep.pk) == 0
    assert sent["checks"] == []
    assert "1 of 2 runs finished" in caplog.text


def test_it_returns_quietly_when_the_sweep_is_gone(sent):
    assert check_sweep.run(sweep_id=999_999) is None
    assert sent["checks"] == []
