"""Readers' reports reach curators: on the entry's admin page, in the list, resolvable."""

import pytest
from django.test import Client

from errorkb.kb.models import Report
from tests.admin.admin_client import client_for
from tests.builders import import_records, make_record
from tests.kb.people import curator

pytestmark = pytest.mark.django_db


@pytest.fixture
def reported():
    entry = import_records(make_record("Can save model checkpoint."))[0]
    response = Client().post(
        f"/errors/{entry.pk}/report/", {"message": "The fix names the wrong flag."}
    )
    assert response.status_code == 303
    return entry


def test_a_readers_report_shows_next_to_the_entry_in_the_admin(reported):
    client = client_for(curator())
    page = client.get(f"/admin/kb/errorentry/{reported.pk}/change/").content.decode()
    assert "reports from readers" in page.lower()
    assert "The fix names the wrong flag." in page
    listing = client.get("/admin/kb/errorentry/").content.decode()
    assert 'class="field-open_reports">1<' in listing


def test_curators_mark_reports_resolved(reported):
    user = curator()
    report = Report.objects.get()
    response = client_for(user).post(
        "/admin/kb/report/", {"action": "resolve_selected", "_selected_action": [report.pk]}
    )
    assert response.status_code == 302
    report.refresh_from_db()
    assert report.resolved_at is not None and report.resolved_by == user
    assert not Report.objects.open().exists()


def test_the_view_on_site_link_appears_only_for_published_entries(reported):
    client = client_for(curator())
    page = client.get(f"/admin/kb/errorentry/{reported.pk}/change/").content.decode()
    assert "viewsitelink" in page
    draft = import_records(make_record("Draft one.", status="draft"))[0]
    page = client.get(f"/admin/kb/errorentry/{draft.pk}/change/").content.decode()
    assert "viewsitelink" not in page
