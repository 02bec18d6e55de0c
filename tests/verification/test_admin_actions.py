"""The entry admin's verification tools: re-verify now, and the runs shown read-only."""

import pytest

from errorkb.kb.models import ErrorEntry
from errorkb.verification.models import Scenario, VerificationRun
from errorkb.verification.runs import claim_run, record_outcome
from errorkb.verification.tasks import enqueue
from tests.admin.admin_client import client_for
from tests.builders import import_records, load_demo, make_record
from tests.kb.people import curator
from tests.verification.builders import outcome
from tests.verification.test_tasks import FAST, demo  # noqa: F401 (a fixture)

pytestmark = pytest.mark.django_db


def test_reverify_selected_runs_the_entrys_scenarios_now(eager, demo):  # noqa: F811
    scenario = Scenario.objects.get(name=FAST)
    entry = scenario.entries.get(error_message=scenario.message)
    entry.scenarios.set([scenario])  # only the fast one
    response = client_for(curator()).post(
        "/admin/kb/errorentry/",
        {"action": "reverify_selected", "_selected_action": [entry.pk]},
        follow=True,
    )
    assert response.status_code == 200
    runs = VerificationRun.objects.filter(entry=entry)
    assert runs.count() >= 2  # the failure and its fix, on the CPU
    assert "Queued" in response.content.decode()
    page = client_for(curator("other")).get(f"/admin/kb/errorentry/{entry.pk}/change/")
    html = page.content.decode()
    assert FAST in html  # the runs, listed on the entry's page
    assert f"?entry__id__exact={entry.pk}" in html
    runs_page = client_for(curator("third")).get(
        "/admin/verification/verificationrun/", {"entry__id__exact": entry.pk}
    )
    assert runs_page.status_code == 200
    assert f"{runs.count()} verification runs" in runs_page.content.decode()


def test_reverify_sends_the_selected_entries_runs_as_one_group(settings, sent):
    settings.VERIFY_GPU = "auto"
    load_demo()  # no sync_scenarios: the re-verify links them
    unlinked = import_records(make_record("Nothing reproduces this.", repo="tracel-ai/burn"))[0]
    chosen = list(ErrorEntry.objects.values_list("pk", flat=True))
    response = client_for(curator()).post(
        "/admin/kb/errorentry/",
        {"action": "reverify_selected", "_selected_action": chosen},
        follow=True,
    )
    html = response.content.decode()
    assert sent["inspects"] == 1 and sent["batches"] == [len(sent["tasks"])]
    assert f"Queued {len(sent['tasks'])} verification runs for {len(chosen) - 1} entries" in html
    assert f"Not verified: {unlinked}: no scenario is linked to it." in html


def test_the_runs_page_shows_a_running_sweeps_progress(sent):
    load_demo()
    entry = ErrorEntry.objects.for_repo("tracel-ai/burn").first()
    fanout = enqueue(ErrorEntry.objects.filter(pk=entry.pk), ["cpu"], source="admin")
    total = len(fanout.runs)
    assert total >= 2
    # A worker finishes the first run of the sweep.
    planned = fanout.runs[0]
    scenario = Scenario.objects.get(name=planned.scenario_name)
    run, _ = claim_run(fanout.task_ids[0], entry, scenario, planned.variant, "cpu")
    record_outcome(run, outcome("reproduced", entry.error_message))
    progress = f'<progress value="1" max="{total}"></progress> 1 of {total} runs finished'
    runs_page = client_for(curator()).get("/admin/verification/verificationrun/")
    assert "Running: the admin of" in runs_page.content.decode()
    assert progress in runs_page.content.decode()
    sweeps_page = client_for(curator("other")).get("/admin/verification/sweep/")
    assert progress in sweeps_page.content.decode()
    assert f"{total} asked for" in sweeps_page.content.decode()  # why its runs were needed


def test_a_finished_sweep_is_no_longer_shown_as_running(eager):
    load_demo()
    scenario = Scenario.objects.get(name=FAST)
    entry = ErrorEntry.objects.get(error_message=scenario.message)
    entry.scenarios.set([scenario])  # only the fast one: two runs
    enqueue(ErrorEntry.objects.filter(pk=entry.pk), ["cpu"], source="admin")
    runs_page = client_for(curator()).get("/admin/verification/verificationrun/")
    assert "Running:" not in runs_page.content.decode()
    assert (
        "2 of 2 runs finished"
        in client_for(curator("x")).get("/admin/verification/sweep/").content.decode()
    )


def test_the_admin_shows_what_each_devices_workers_announced():
    from errorkb.verification.fingerprints import announce, trainer_digest

    announce(["cpu"], host="worker-7")
    page = client_for(curator()).get("/admin/verification/workerenvironment/")
    assert page.status_code == 200
    assert "worker-7" in page.content.decode() and trainer_digest() in page.content.decode()
