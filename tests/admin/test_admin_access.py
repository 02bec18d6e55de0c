"""Who reaches the admin and what each role may do: owner, teammate, editor, outsider."""

from urllib.parse import urlencode

import pytest
from django.contrib.auth.models import AnonymousUser
from django.core.exceptions import PermissionDenied
from django.test import Client, override_settings

from errorkb.kb import revisions, workflow
from errorkb.kb.models import ErrorEntry
from tests.admin.admin_client import change_post, client_for
from tests.builders import import_records, make_record
from tests.kb.people import curator, editor, make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def people():
    return {
        "owner": curator("owner"),
        "teammate": curator("teammate"),
        "editor": editor("editor"),
        "outsider": make_user("outsider"),  # staff, but in no group
        "reader": make_user("reader", staff=False),
    }


@pytest.fixture
def draft(people):
    entry = import_records(make_record("Can save model checkpoint.", status="draft"))[0]
    ErrorEntry.objects.filter(pk=entry.pk).update(owner=people["owner"])
    return ErrorEntry.objects.get(pk=entry.pk)


def change_url(entry):
    return f"/admin/kb/errorentry/{entry.pk}/change/"


def test_anonymous_readers_never_reach_the_admin(draft):
    for url in ("/admin/", "/admin/kb/errorentry/", change_url(draft), "/admin/kb/report/"):
        response = Client().get(url)
        assert response.status_code == 302
        assert response["Location"].startswith("/admin/login/")


def test_a_logged_in_reader_without_staff_status_is_sent_to_the_login(people, draft):
    response = client_for(people["reader"]).get("/admin/kb/errorentry/")
    assert response.status_code == 302
    assert response["Location"].startswith("/admin/login/")


def test_an_outsider_with_staff_status_sees_no_entries(people, draft):
    client = client_for(people["outsider"])
    assert client.get("/admin/kb/errorentry/").status_code == 403
    assert client.get(change_url(draft)).status_code == 403
    response = client.post(change_url(draft), change_post(draft, documentation="Vandal."))
    assert response.status_code == 403
    response = client.post(f"/admin/kb/errorentry/{draft.pk}/transition/submit/")
    assert response.status_code == 403
    assert ErrorEntry.objects.get(pk=draft.pk).documentation == "The engine gave up."


@pytest.mark.parametrize("who", ["owner", "teammate", "editor"])
def test_curators_and_editors_edit_a_draft(people, draft, who):
    response = client_for(people[who]).post(
        change_url(draft), change_post(draft, documentation=f"By {who}.")
    )
    assert response.status_code == 302
    assert ErrorEntry.objects.get(pk=draft.pk).documentation == f"By {who}."


@pytest.mark.parametrize("who", ["owner", "teammate"])
def test_curators_cannot_edit_what_is_in_review_or_published(people, who):
    for status in ("in_review", "published"):
        entry = import_records(make_record(f"Entry {status[:2]}.", status=status))[0]
        client = client_for(people[who])
        assert client.get(change_url(entry)).status_code == 200  # shown read-only
        response = client.post(change_url(entry), change_post(entry, documentation="Sneaky."))
        assert response.status_code == 403
        assert ErrorEntry.objects.get(pk=entry.pk).documentation == "The engine gave up."


def test_the_editor_edits_a_published_entry(people):
    entry = import_records(make_record("Published."))[0]
    response = client_for(people["editor"]).post(
        change_url(entry), change_post(entry, documentation="Fixed.")
    )
    assert response.status_code == 302


# (who, transition, starting status) -> allowed
MATRIX = [
    ("owner", "submit", "draft", True),
    ("teammate", "submit", "draft", True),
    ("editor", "submit", "draft", True),
    ("outsider", "submit", "draft", False),
    ("owner", "withdraw", "in_review", True),
    ("teammate", "withdraw", "in_review", False),
    ("editor", "withdraw", "in_review", True),
    ("owner", "publish", "in_review", False),
    ("teammate", "publish", "in_review", False),
    ("editor", "publish", "in_review", True),
    ("owner", "retire", "published", False),
    ("editor", "retire", "published", True),
    ("editor", "reopen", "retired", True),
    ("teammate", "reopen", "retired", False),
    ("editor", "publish", "draft", False),  # nothing is published without review
]


@pytest.mark.parametrize("who, name, status, allowed", MATRIX)
def test_the_workflow_permission_matrix(people, draft, who, name, status, allowed):
    ErrorEntry.objects.filter(pk=draft.pk).update(status=status)
    response = client_for(people[who]).post(
        f"/admin/kb/errorentry/{draft.pk}/transition/{name}/", {"confirmed": "1"}
    )
    expected = workflow.TRANSITIONS[name].target if allowed else status
    assert response.status_code == (302 if allowed else 403)
    assert ErrorEntry.objects.get(pk=draft.pk).status == expected


def test_the_change_page_offers_only_the_steps_the_user_may_take(people, draft):
    ErrorEntry.objects.filter(pk=draft.pk).update(status="in_review")
    owner_page = client_for(people["owner"]).get(change_url(draft)).content.decode()
    teammate_page = client_for(people["teammate"]).get(change_url(draft)).content.decode()
    editor_page = client_for(people["editor"]).get(change_url(draft)).content.decode()
    assert 'id="transition-withdraw"' in owner_page
    assert 'id="transition-withdraw"' not in teammate_page
    assert 'id="transition-publish"' in editor_page
    assert 'id="transition-publish"' not in owner_page


def test_publish_asks_for_confirmation_and_says_why(people):
    entry = import_records(
        make_record(
            "Can save model checkpoint.", status="in_review", messagePattern="^Something else$"
        )
    )[0]
    client = client_for(people["editor"])
    response = client.post(f"/admin/kb/errorentry/{entry.pk}/transition/publish/")
    assert response.status_code == 200
    page = response.content.decode()
    assert "does not match its own error message" in page
    assert "no verification yet" in page
    assert ErrorEntry.objects.get(pk=entry.pk).status == "in_review"
    response = client.post(
        f"/admin/kb/errorentry/{entry.pk}/transition/publish/", {"confirmed": "1"}
    )
    assert response.status_code == 302
    assert ErrorEntry.objects.get(pk=entry.pk).status == "published"


def test_bulk_publish_asks_for_confirmation_first(people):
    entry = import_records(make_record("Unverified.", status="in_review"))[0]
    client = client_for(people["editor"])
    response = client.post(
        "/admin/kb/errorentry/", {"action": "publish_selected", "_selected_action": [entry.pk]}
    )
    assert response.status_code == 200
    assert "Publish all 1 anyway" in response.content.decode()
    assert ErrorEntry.objects.get(pk=entry.pk).status == "in_review"


def test_curators_get_no_publish_or_upload_tools(people, draft):
    client = client_for(people["owner"])
    page = client.get("/admin/kb/errorentry/").content.decode()
    assert "publish_selected" not in page and "upload-dataset" not in page
    assert "submit_selected" in page and "reverify_selected" in page
    assert client.get("/admin/kb/errorentry/upload/").status_code == 403
    editor_page = client_for(people["editor"]).get("/admin/kb/errorentry/").content.decode()
    assert "publish_selected" in editor_page and "upload-dataset" in editor_page


def test_nobody_deletes_entries(people, draft):
    response = client_for(people["editor"]).post(
        f"/admin/kb/errorentry/{draft.pk}/delete/", {"post": "yes"}
    )
    assert response.status_code == 403
    assert ErrorEntry.objects.filter(pk=draft.pk).exists()


def test_only_editors_and_curators_act_on_entries_in_code(people, draft):
    with pytest.raises(PermissionDenied):
        revisions.revert(draft, revisions.history(draft)[0], people["outsider"])
    with pytest.raises(PermissionDenied):
        workflow.transition(draft, "submit", AnonymousUser())


@override_settings(AXES_FAILURE_LIMIT=3)
def test_repeated_failed_logins_are_locked_out(people):
    client = Client()
    for _ in range(3):
        response = client.post("/admin/login/", {"username": "owner", "password": "wrong"})
        assert response.status_code in (200, 429)
    response = client.post("/admin/login/", {"username": "owner", "password": "owner-password"})
    assert response.status_code == 429  # even the right password waits out the cool-off
    assert "_auth_user_id" not in client.session
    other = Client(REMOTE_ADDR="10.0.0.2")
    response = other.post(
        "/admin/login/", {"username": "teammate", "password": "teammate-password"}
    )
    assert response.status_code == 302  # another user from elsewhere is not affected


def log_in(username: str, password: str, remote_addr: str = "192.0.2.10") -> int:
    data = {"username": username, "password": password}
    return Client(REMOTE_ADDR=remote_addr).post("/admin/login/", data).status_code


@override_settings(AXES_FAILURE_LIMIT=3)
def test_one_address_is_locked_out_after_the_limit_whichever_usernames_it_tried(people):
    for username in ("owner", "teammate", "editor"):
        assert log_in(username, "wrong") in (200, 429)
    for username in ("owner", "teammate", "editor", "outsider"):
        assert log_in(username, f"{username}-password") == 429
    assert log_in("teammate", "teammate-password", remote_addr="198.51.100.20") == 302


@override_settings(AXES_FAILURE_LIMIT=3)
def test_a_login_that_succeeds_does_not_clear_its_address_failures(people):
    assert log_in("owner", "wrong") == 200
    assert log_in("teammate", "wrong") == 200
    assert log_in("editor", "editor-password") == 302  # the guesser's own account
    assert log_in("owner", "wrong") in (200, 429)
    assert log_in("owner", "owner-password") == 429


@pytest.mark.parametrize(
    "next_url", ["https://evil.example/", "//evil.example", "/\\evil.example", "javascript:x"]
)
@pytest.mark.parametrize("in_query", [False, True])
def test_a_login_that_names_an_off_site_next_lands_on_the_admin_index(people, next_url, in_query):
    data = {"username": "owner", "password": "owner-password"}
    url = "/admin/login/"
    if in_query:
        url = f"{url}?{urlencode({'next': next_url})}"
    else:
        data["next"] = next_url

    response = Client().post(url, data, follow=True)

    assert response.redirect_chain == [("/admin/", 302)]
    assert response.status_code == 200
    assert response.request["PATH_INFO"] == "/admin/"


def test_a_login_that_names_a_page_on_this_site_lands_there(people):
    data = {"username": "owner", "password": "owner-password", "next": "/admin/kb/report/"}

    response = Client().post("/admin/login/", data, follow=True)

    assert response.redirect_chain == [("/admin/kb/report/", 302)]
    assert response.status_code == 200
