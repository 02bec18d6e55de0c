"""Verification on the entry page and in the API."""

import pytest

from errorkb.verification.models import VerificationRun
from errorkb.verification.runs import claim_run, record_outcome
from tests.verification.builders import outcome, prove, record_run

pytestmark = pytest.mark.django_db


def test_its_api_adds_a_verification_object_beside_the_record(client, entry, scenario):
    prove(entry, scenario)
    body = client.get(f"/api/errors/{entry.id}").json()
    verification = body["verification"]
    assert verification["state"] == "verified" and verification["fixVerified"] is True
    assert verification["devices"] == ["cpu"] and verification["lastVerifiedAt"]
    assert verification["scenarios"][0]["scenario"] == "disk-full"
    assert verification["scenarios"][0]["patternMatched"] is True
    assert body["runsUrl"] == f"/api/errors/{entry.id}/runs"
    assert "verification" not in body["record"]


def test_it_lists_an_entrys_runs_newest_first(client, entry, scenario):
    prove(entry, scenario, minutes_ago=5)
    record_run(entry, scenario, "not_reproduced")
    body = client.get(f"/api/errors/{entry.id}/runs?page=1").json()
    assert body["count"] == 3
    first = body["results"][0]
    assert first["status"] == "not_reproduced" and first["variant"] == "failure"
    assert {"taskId", "errno", "torchVersion", "host", "attempts", "logTail"} <= set(first)


def test_its_runs_are_404_for_an_unknown_entry(client):
    response = client.get("/api/errors/0123456789abcdef/runs")
    assert response.status_code == 404 and "detail" in response.json()


@pytest.mark.parametrize("value", ["0", "abc", ""])
def test_its_runs_refuse_a_page_number_the_schema_forbids(client, entry, value):
    response = client.get(f"/api/errors/{entry.id}/runs?page={value}")
    assert response.status_code == 400
    assert list(response.json()["errors"]) == ["page"]


def test_the_page_shows_a_verified_entry(client, entry, scenario):
    prove(entry, scenario)
    html = client.get(f"/errors/{entry.id}/").content.decode()
    panel = html[html.index('id="verification"') :]
    assert '<span class="state state-verified">verified</span>' in panel
    assert "last verified" in panel and "on cpu" in panel and "fix verified" in panel
    assert "Can save model checkpoint.: Io(..)" in panel
    assert panel.count('<li class="run run-') == 2


@pytest.mark.parametrize(
    "status, message, shown",
    [
        ("not_reproduced", "training completed", "not reproducing"),
        ("reproduced", "Could not write the model checkpoint", "drifted"),
    ],
)
def test_the_page_shows_an_entry_that_stopped_being_true(
    client, entry, scenario, status, message, shown
):
    prove(entry, scenario, minutes_ago=10)
    url = f"/errors/{entry.id}/"
    etag = client.get(url)["ETag"]
    record_run(entry, scenario, status, message)
    response = client.get(url, HTTP_IF_NONE_MATCH=etag)
    assert response.status_code == 200, "a new run must make cached copies stale"
    html = response.content.decode()
    assert f'class="state state-{shown.replace(" ", "_")}">{shown}</' in html
    if shown == "drifted":
        assert "(message changed)" in html


def test_the_page_says_so_when_no_scenario_proves_the_entry(client, entry):
    html = client.get(f"/errors/{entry.id}/").content.decode()
    assert "No reproduction scenario proves this entry yet." in html
    assert ">unverified<" in html
    assert not VerificationRun.objects.exists()


def test_a_run_the_kernel_killed_shows_its_signal_on_the_page_and_in_the_api(
    client, entry, scenario
):
    # Past `ulimit -f` burn dies by SIGXFSZ and prints nothing: the run says what ended it.
    run, _ = claim_run("task-sigxfsz", entry, scenario, "failure", "cpu")
    record_outcome(run, outcome("reproduced", None, texts=[], errno=None, signal="SIGXFSZ"))

    html = client.get(f"/errors/{entry.id}/").content.decode()
    assert "killed by SIGXFSZ with nothing printed" in html
    first = client.get(f"/api/errors/{entry.id}/runs").json()["results"][0]
    assert (first["signal"], first["texts"], first["message"]) == ("SIGXFSZ", [], None)
