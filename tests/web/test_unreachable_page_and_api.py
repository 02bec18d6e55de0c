"""An unreachable entry on its page, in the API and in the admin: what the reader sees instead."""

import pytest
from rest_framework.fields import DateTimeField

from errorkb.verification.runs import plan_entry
from tests.admin.admin_client import client_for
from tests.builders import import_records, make_record
from tests.kb.people import curator
from tests.verification.builders import link_absence, link_scenario, prove, record_run

pytestmark = pytest.mark.django_db

INTERRUPTED = "Training interrupted: Record error: `Record I/O error: No space left on device`"
SETUP = "SupervisedTraining::launch with its default checkpointers (main)"


@pytest.fixture
def unreachable(entry):
    record_run(entry, link_absence(entry), "reproduced", texts=[INTERRUPTED])
    return entry


def panel_of(client, entry) -> str:
    html = client.get(f"/errors/{entry.id}/").content.decode()
    start = html.index('<section id="verification"')
    return html[start : html.index("</section>", start)]


def test_the_api_says_unreachable_and_what_is_seen_instead(client, unreachable):
    verification = client.get(f"/api/errors/{unreachable.id}").json()["verification"]
    assert verification["state"] == "unreachable"
    assert verification["seenInstead"] == {"text": INTERRUPTED, "setup": SETUP}
    assert verification["fixVerified"] is False
    # The time of the absence run that held: the last decisive run.
    finished = DateTimeField().to_representation(unreachable.runs.get().finished_at)
    assert verification["lastVerifiedAt"] == finished
    assert verification["devices"] == ["cpu"]
    result = verification["scenarios"][0]
    assert result["provesAbsence"] is True and result["setup"] == SETUP
    assert result["patternMatched"] is False


def test_the_api_has_no_seen_instead_for_a_verified_entry(client, entry, scenario):
    prove(entry, scenario)
    verification = client.get(f"/api/errors/{entry.id}").json()["verification"]
    assert verification["seenInstead"] is None
    assert verification["scenarios"][0]["provesAbsence"] is False


def test_the_page_shows_unreachable_with_the_text_seen_instead(client, unreachable):
    panel = panel_of(client, unreachable)
    assert 'data-state="unreachable"' in panel
    assert '<span class="state state-unreachable">unreachable: burn never prints it</span>' in panel
    assert "burn does not print this message; with" in panel and SETUP in panel
    assert f'<div class="message seen-instead">{INTERRUPTED}</div>' in panel
    assert "Observed by the reference trainer" not in panel
    assert "fix not verified" not in panel and "not needed" in panel


def test_the_page_lists_every_text_a_run_printed(client, entry, scenario):
    texts = ["Can save the state.: RecorderError(..)", "Can save model checkpoint.: Io(..)"]
    record_run(entry, scenario, "reproduced", texts=texts)
    panel = panel_of(client, entry)
    assert "printed 2 texts" in panel
    assert all(f"<li><code>{text}</code></li>" in panel for text in texts)


def test_the_runs_api_serves_the_texts(client, unreachable):
    run = client.get(f"/api/errors/{unreachable.id}/runs").json()["results"][0]
    assert run["texts"] == [INTERRUPTED] and run["message"] == INTERRUPTED


def test_the_admin_filters_and_labels_unreachable_entries(unreachable):
    verified = import_records(make_record("Can load model checkpoint."))[0]
    prove(verified, link_scenario(verified, "load"))
    client = client_for(curator())
    page = client.get("/admin/kb/errorentry/", {"verification": "unreachable"}).content.decode()
    assert "unreachable: burn never prints it" in page
    assert unreachable.error_message in page and verified.error_message not in page


def test_an_absence_scenario_plans_no_fix_run(entry):
    link_scenario(entry)
    link_absence(entry)
    planned = {(p.scenario_name, p.variant) for p in plan_entry(entry, ["cpu"])}
    assert planned == {
        ("disk-full", "failure"),
        ("disk-full", "fixed"),
        ("supervised-disk-full", "failure"),
    }
