"""The entry admin's verification tools: re-verify now, and the runs shown read-only."""

import pytest

from errorkb.verification.models import Scenario, VerificationRun
from tests.admin.admin_client import client_for
from tests.kb.people import curator
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
