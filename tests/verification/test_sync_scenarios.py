"""manage.py sync_scenarios: the trainer's registry mirrored, and entries linked."""

from io import StringIO

import pytest
from django.core.management import call_command

from errorkb.kb.models import ErrorEntry
from errorkb.verification.models import Scenario
from errorkb.verification.sync import sync_scenarios
from tests.builders import load_demo
from tests.verification.builders import registry_item
from trainer.scenarios import registry

pytestmark = pytest.mark.django_db


def test_the_test_database_starts_with_the_registry_mirrored():
    # tests/conftest.py runs sync_scenarios once the test database is migrated, as
    # bin/setup does after migrate.
    assert set(Scenario.objects.active().values_list("name", flat=True)) == {
        item["name"] for item in registry()
    }


def test_it_mirrors_the_registry_and_links_the_demo_entries():
    Scenario.objects.all().delete()  # as on a database only migrated
    load_demo()
    out = StringIO()
    call_command("sync_scenarios", stdout=out)
    assert Scenario.objects.active().count() == len(registry())
    assert "22 created" in out.getvalue() or f"{len(registry())} created" in out.getvalue()
    for entry in ErrorEntry.objects.all():
        assert entry.scenarios.exists(), entry.error_message


def test_it_is_idempotent():
    load_demo()
    sync_scenarios()
    result = sync_scenarios()
    assert (result.created, result.retired) == (0, 0)
    assert Scenario.objects.count() == len(registry())


def test_it_retires_a_scenario_the_registry_dropped_but_keeps_it():
    sync_scenarios([registry_item("old", "Can save model checkpoint.")])
    result = sync_scenarios([registry_item("new", "Can save model checkpoint.")])
    assert result.retired == 1
    assert not Scenario.objects.get(name="old").active
    assert Scenario.objects.get(name="new").active
