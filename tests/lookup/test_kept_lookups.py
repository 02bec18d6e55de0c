"""A lookup is kept, with an address to share, only when its reader asks."""

import pytest

from errorkb.lookup.lookups import MAX_TEXT_BYTES
from errorkb.lookup.models import KeptLookup
from tests.builders import import_records, make_record

pytestmark = pytest.mark.django_db

TEXT = "Valve stuck.\nthen Engine stalled."


@pytest.fixture
def entries():
    return import_records(
        make_record("Valve stuck.", filePath="a.rs"),
        make_record("Engine stalled.", filePath="b.rs"),
    )


def test_its_page_stores_nothing_unless_asked(client, entries):
    response = client.post("/lookup/", {"text": TEXT})
    assert response.status_code == 200
    assert KeptLookup.objects.count() == 0
    assert 'name="keep"' in response.content.decode()


def test_its_page_keeps_the_text_when_asked_and_sends_the_reader_to_its_address(client, entries):
    response = client.post("/lookup/", {"text": TEXT, "keep": "1"})
    assert response.status_code == 303
    (kept,) = KeptLookup.objects.all()
    assert kept.text == TEXT and response["Location"] == f"/lookup/{kept.key}/"
    page = client.get(response["Location"]).content.decode()
    assert f'This lookup is kept at <a href="http://testserver/lookup/{kept.key}/">' in page
    assert entries[0].get_absolute_url() in page and entries[1].get_absolute_url() in page


def test_a_kept_lookup_of_one_entry_is_shown_not_redirected(client, entries):
    client.post("/lookup/", {"text": "Valve stuck.", "keep": "1"})
    response = client.get(KeptLookup.objects.get().get_absolute_url())
    assert response.status_code == 200
    assert entries[0].get_absolute_url() in response.content.decode()


@pytest.mark.parametrize("key", ["AAAAAAAAAAAAAAAA", "short", "a" * 40, "bad!key~~~~~~~~~"])
def test_an_unknown_key_is_404(client, entries, key):
    assert client.get(f"/lookup/{key}/").status_code == 404


def test_its_api_keeps_only_when_asked_and_gives_the_address(client, entries):
    post = client.post
    plain = post("/api/lookup", {"text": TEXT}, content_type="application/json").json()
    assert plain["address"] is None and KeptLookup.objects.count() == 0
    body = post("/api/lookup", {"text": TEXT, "keep": True}, content_type="application/json")
    kept = KeptLookup.objects.get()
    assert body.json()["address"] == f"http://testserver/lookup/{kept.key}/"
    assert client.get(f"/lookup/{kept.key}/").status_code == 200


def test_a_text_too_large_to_look_up_is_refused_and_not_kept(client, entries):
    text = "x" * (MAX_TEXT_BYTES + 1)
    page = client.post("/lookup/", {"text": text, "keep": "1"})
    assert page.status_code == 413 and b"a lookup reads at most" in page.content
    api = client.post("/api/lookup", {"text": text, "keep": True}, content_type="application/json")
    assert api.status_code == 413 and "a lookup reads at most" in api.json()["detail"]
    assert KeptLookup.objects.count() == 0


def test_an_empty_text_is_refused_and_not_kept(client, entries):
    assert client.post("/lookup/", {"text": "  ", "keep": "1"}).status_code == 400
    assert KeptLookup.objects.count() == 0


def test_a_kept_text_with_nul_characters_is_kept(client, entries):
    body = client.post(
        "/api/lookup", {"text": "Valve stuck.\x00", "keep": True}, content_type="application/json"
    )
    assert body.status_code == 200
    assert KeptLookup.objects.get().text == "Valve stuck.\ufffd"


@pytest.mark.parametrize("keep", [0, "yes", None, "true"])
def test_its_api_refuses_a_keep_that_is_not_true_or_false(client, entries, keep):
    response = client.post(
        "/api/lookup", {"text": TEXT, "keep": keep}, content_type="application/json"
    )
    assert response.status_code == 400 and "keep" in response.json()["errors"]
    assert KeptLookup.objects.count() == 0
