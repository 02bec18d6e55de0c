"""A curator and an editor take a draft to publication in a real browser, through the admin."""

import uuid

import pytest
from reversion.models import Version

from errorkb.kb.models import ErrorEntry
from tests.builders import import_records, make_record
from tests.e2e.chromium import BROWSER_TEST, chromium
from tests.kb.people import curator, editor

pytestmark = BROWSER_TEST

PASSWORD = "correct horse battery staple"


@pytest.fixture
def entry():
    [entry] = import_records(make_record("Can save model checkpoint.", status="draft"))
    return entry


@pytest.fixture
def staff():
    """A curator and an editor, each in the group the roles migration made."""
    curator("curator", password=PASSWORD)
    editor("editor", password=PASSWORD)


@pytest.fixture
def browser(entry, staff):
    with chromium() as browser:
        yield browser


def logged_in_page(browser, base_url: str, username: str):
    """A page in a fresh browser context, logged in to the admin through its form."""
    page = browser.new_context().new_page()
    page.goto(f"{base_url}/admin/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.click("input[type=submit]")
    page.wait_for_url(f"{base_url}/admin/")
    return page


def test_it_takes_a_draft_through_review_to_publication(live_server, entry, browser):
    base = live_server.url
    change_url = f"{base}/admin/kb/errorentry/{entry.pk}/change/"
    public_url = f"{base}/errors/{entry.pk}/"
    documentation = f"The checkpoint could not be written ({uuid.uuid4().hex})."

    # The curator edits the draft and submits it for review.
    curator = logged_in_page(browser, base, "curator")
    curator.goto(change_url)
    curator.fill("#id_documentation", documentation)
    curator.click("input[name=_continue]")
    curator.wait_for_selector(".messagelist .success")
    assert curator.input_value("#id_documentation") == documentation
    curator.click("#transition-submit")
    curator.wait_for_url(change_url)
    assert curator.inner_text("#entry-status").lower() == "in review"
    assert curator.goto(public_url).status == 404

    # The editor publishes it, confirming past the missing verification.
    editor = logged_in_page(browser, base, "editor")
    editor.goto(change_url)
    editor.click("#transition-publish")
    reasons = editor.locator(".publish-reason").all_inner_texts()
    assert any("no verification" in reason for reason in reasons), reasons
    editor.click("#publish-anyway")
    editor.wait_for_url(change_url)
    # The status is shown by its label, whose case varies (see the Status choices).
    assert editor.inner_text("#entry-status").lower() == "published"

    # A reader sees the curator's words.
    reader = browser.new_context().new_page()
    response = reader.goto(public_url)
    assert response.status == 200
    assert documentation in reader.inner_text("#meaning")

    entry.refresh_from_db()
    assert entry.status == ErrorEntry.Status.PUBLISHED
    assert entry.documentation == documentation
    versions = Version.objects.get_for_object(entry).order_by("revision__date_created", "pk")
    assert [v.revision.user and v.revision.user.username for v in versions] == [
        None,
        "curator",
        "curator",
        "editor",
    ]
    assert [v.field_dict["status"] for v in versions] == [
        "draft",
        "draft",
        "in_review",
        "published",
    ]
    assert versions[1].field_dict["documentation"] == documentation
