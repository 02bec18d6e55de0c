"""The admin's upload and preview screens, called directly as ErrorEntryAdmin calls them."""

import json

import pytest
from django.contrib import admin
from django.contrib.auth.models import User
from django.contrib.messages import get_messages
from django.contrib.messages.storage.fallback import FallbackStorage
from django.contrib.sessions.middleware import SessionMiddleware
from django.core.exceptions import PermissionDenied, TooManyFilesSent
from django.core.files.uploadedfile import InMemoryUploadedFile, SimpleUploadedFile
from django.http import Http404
from django.test import RequestFactory
from reversion.models import Revision

from errorkb.admin.uploads import preview_view, upload_view
from errorkb.kb.dataset.uploads import MAX_UPLOAD_BYTES, plan_digest, preview, store_upload
from errorkb.kb.ids import ENTRY_ID_LENGTH
from errorkb.kb.models import DatasetUpload, ErrorEntry
from tests.admin.admin_client import client_for
from tests.builders import import_records, make_record
from tests.kb.people import curator, editor

pytestmark = pytest.mark.django_db

MODEL_ADMIN = admin.site._registry[ErrorEntry]
UPLOAD_URL = "/admin/kb/errorentry/upload/"


@pytest.fixture
def superuser():
    return User.objects.create_superuser("root", password="root-password")


@pytest.fixture
def existing():
    (entry,) = import_records(make_record("Engine stalled."))
    return entry


@pytest.fixture
def upload(existing, superuser):
    """A stored file that creates one entry and changes the existing one's documentation."""
    changed = {**make_record("Engine stalled."), "documentation": "Rewritten."}
    data = json.dumps([make_record("Brand new."), changed]).encode()
    return store_upload("two.json", data, superuser)


def request_for(user, method="get", path=UPLOAD_URL, data=None):
    request = getattr(RequestFactory(), method)(path, data or {})
    SessionMiddleware(lambda r: None).process_request(request)
    request._messages = FallbackStorage(request)
    request.user = user
    return request


def render(response) -> str:
    return response.render().content.decode()


def test_it_shows_the_upload_form(superuser):
    response = upload_view(MODEL_ADMIN, request_for(superuser))
    html = render(response)
    assert response.status_code == 200
    assert 'enctype="multipart/form-data"' in html
    assert 'name="csrfmiddlewaretoken"' in html and 'type="file" name="file"' in html
    assert 'href="/admin/kb/errorentry/"' in html  # the breadcrumb back to the list


def test_it_lets_editors_upload_but_not_curators():
    assert upload_view(MODEL_ADMIN, request_for(editor())).status_code == 200
    with pytest.raises(PermissionDenied):
        upload_view(MODEL_ADMIN, request_for(curator()))


def test_it_refuses_curators_the_preview_too(upload):
    with pytest.raises(PermissionDenied):
        preview_view(MODEL_ADMIN, request_for(curator()), upload.pk)


def test_it_stores_a_valid_file_and_redirects_to_its_preview(superuser):
    file = SimpleUploadedFile("one.json", json.dumps([make_record()]).encode())
    response = upload_view(MODEL_ADMIN, request_for(superuser, "post", data={"file": file}))
    upload = DatasetUpload.objects.get()
    assert response.status_code == 303
    assert response["Location"] == f"{UPLOAD_URL}{upload.pk}/"
    assert upload.uploaded_by == superuser


def test_it_shows_why_a_file_was_refused_and_stores_nothing(superuser):
    file = SimpleUploadedFile("bad.json", b'{"records": ')
    response = upload_view(MODEL_ADMIN, request_for(superuser, "post", data={"file": file}))
    assert response.status_code == 400
    assert "the file is not valid JSON" in render(response)
    assert not DatasetUpload.objects.exists()


def test_it_asks_for_a_file_when_none_was_sent(superuser):
    response = upload_view(MODEL_ADMIN, request_for(superuser, "post"))
    assert response.status_code == 400
    assert not DatasetUpload.objects.exists()


def test_it_previews_what_will_be_created_and_changed(upload, superuser, existing):
    response = preview_view(MODEL_ADMIN, request_for(superuser), upload.pk)
    html = render(response)
    assert response.status_code == 200
    assert "1 to create, 1 to update, 0 unchanged." in html
    assert 'class="plan-created"' in html and "Brand new." in html
    assert f'<tr class="plan-updated" data-entry="{existing.id}">' in html
    assert "<td>documentation</td>" in html
    assert f'name="digest" value="{plan_digest(preview(upload)[1])}"' in html


def test_it_answers_404_for_an_unknown_upload(superuser):
    with pytest.raises(Http404):
        preview_view(MODEL_ADMIN, request_for(superuser), 999)


def test_it_applies_the_previewed_file_and_goes_back_to_the_list(upload, superuser):
    digest = plan_digest(preview(upload)[1])
    request = request_for(superuser, "post", data={"digest": digest})
    response = preview_view(MODEL_ADMIN, request, upload.pk)
    assert response.status_code == 303
    assert response["Location"] == "/admin/kb/errorentry/"
    assert [str(m) for m in get_messages(request)] == [
        "Applied two.json: 1 created, 1 updated, 0 unchanged."
    ]
    assert ErrorEntry.objects.filter(error_message="Brand new.").exists()


def test_it_shows_the_new_preview_when_the_knowledge_base_changed(upload, superuser):
    stale = plan_digest(preview(upload)[1])
    import_records({**make_record("Engine stalled."), "documentation": "Someone else's."})
    revisions = Revision.objects.count()
    response = preview_view(
        MODEL_ADMIN, request_for(superuser, "post", data={"digest": stale}), upload.pk
    )
    html = render(response)
    assert response.status_code == 409
    assert "the knowledge base changed since the preview" in html
    assert f'name="digest" value="{plan_digest(preview(upload)[1])}"' in html
    assert Revision.objects.count() == revisions


def test_it_refuses_a_second_apply_and_says_when_the_first_was(upload, superuser):
    digest = plan_digest(preview(upload)[1])
    preview_view(MODEL_ADMIN, request_for(superuser, "post", data={"digest": digest}), upload.pk)
    response = preview_view(
        MODEL_ADMIN, request_for(superuser, "post", data={"digest": digest}), upload.pk
    )
    html = render(response)
    assert response.status_code == 409
    assert "this upload was already applied on" in html
    assert 'id="apply-form"' not in html


def test_it_shows_a_database_refusal_without_an_apply_button(superuser):
    record = make_record("Links nowhere.", related=["0" * ENTRY_ID_LENGTH])
    upload = store_upload("broken.json", json.dumps([record]).encode(), superuser)
    response = preview_view(MODEL_ADMIN, request_for(superuser), upload.pk)
    html = render(response)
    assert response.status_code == 409
    assert "field &#x27;related&#x27;: unknown entry" in html
    assert 'id="apply-form"' not in html


def test_editors_find_past_uploads_in_their_own_list(upload):
    client = client_for(editor("uploads-editor"))
    page = client.get("/admin/kb/datasetupload/").content.decode()
    assert upload.file_name in page
    assert f"/admin/kb/errorentry/upload/{upload.pk}/" in page


def test_a_file_past_the_bound_is_refused_by_its_size_without_being_kept_whole(superuser):
    # Through Django's own multipart parsing and the site's upload handler: no nginx in
    # front to bound the body, as under runserver or gunicorn alone.
    sent = MAX_UPLOAD_BYTES + 3 * 2**20
    file = SimpleUploadedFile("huge.json", b" " * sent)
    response = client_for(superuser).post(UPLOAD_URL, {"file": file})
    assert response.status_code == 400
    assert f"the file is larger than {MAX_UPLOAD_BYTES // 2**20} MB" in response.content.decode()
    assert not DatasetUpload.objects.exists()


def test_the_upload_handler_keeps_one_byte_past_the_bound_in_memory():
    file = SimpleUploadedFile("huge.json", b"x" * 2**25)
    kept = RequestFactory().post(UPLOAD_URL, {"file": file}).FILES["file"]  # parsed here
    assert isinstance(kept, InMemoryUploadedFile)
    assert kept.size == 2**25  # what was sent, for a form that checks sizes
    assert len(kept.read()) == MAX_UPLOAD_BYTES + 1


def test_an_upload_of_two_files_is_refused():
    files = {"a": SimpleUploadedFile("a.json", b"[]"), "b": SimpleUploadedFile("b.json", b"[]")}
    with pytest.raises(TooManyFilesSent):
        RequestFactory().post(UPLOAD_URL, files).FILES  # noqa: B018 - parsing is the test
