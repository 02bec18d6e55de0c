"""Values that become part of an address are validated on the model, and a row written
past the validators (raw SQL, QuerySet.update) is shown unlinked: its pages stay 200."""

import logging

import pytest
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError

from errorkb.kb.models import ErrorEntry, Repository, Tag
from tests.admin.admin_client import client_for
from tests.builders import import_records, make_record

pytestmark = pytest.mark.django_db

BAD_TAG = "Bad Tag <b>"


@pytest.fixture
def entries():
    return import_records(
        make_record("Rocket stalled.", repo="acme/rocket", tags=["rust", "fuel"]),
        make_record("Rocket flew.", repo="acme/rocket", tags=["rust"]),
    )


def test_the_admin_refuses_a_tag_no_address_can_hold(entries):
    admin = client_for(User.objects.create_superuser("root", password="root-password"))
    tag = Tag.objects.get(name="fuel")
    response = admin.post(f"/admin/kb/tag/{tag.pk}/change/", {"name": BAD_TAG})
    assert response.status_code == 200  # the form again, with the error
    assert "A tag must be a lowercase tag" in response.content.decode()
    assert Tag.objects.get(pk=tag.pk).name == "fuel"


@pytest.mark.parametrize(
    ("row", "field"),
    [
        (lambda: Tag(name=BAD_TAG), "name"),
        (lambda: Repository(owner="acme corp", name="rocket", url="https://x.org"), "owner"),
        (lambda: Repository(owner="acme", name="a/b", url="https://x.org"), "name"),
    ],
    ids=["tag", "owner", "name"],
)
def test_full_clean_refuses_a_value_no_address_can_hold(row, field):
    with pytest.raises(ValidationError) as caught:
        row().full_clean()
    assert field in caught.value.message_dict


def test_full_clean_refuses_a_slug_and_an_id_no_address_can_hold(entries):
    entry = ErrorEntry.objects.get(pk=entries[0].pk)
    entry.slug = "Rocket_Stalled"
    entry.id = "not/an/id"
    with pytest.raises(ValidationError) as caught:
        entry.full_clean(validate_unique=False, validate_constraints=False)
    assert {"slug", "id"} <= set(caught.value.message_dict)


def _pages(entry) -> list[str]:
    return [
        "/",
        entry.get_absolute_url(),
        "/repos/acme/rocket/",
        "/tags/rust/",
        "/search/?q=rocket",
    ]


def test_a_tag_written_past_the_validators_is_shown_unlinked(client, entries, caplog):
    Tag.objects.filter(name="fuel").update(name=BAD_TAG)
    with caplog.at_level(logging.WARNING, logger="errorkb.kb.record.names"):
        for url in _pages(entries[0]):
            response = client.get(url, HTTP_CACHE_CONTROL="no-cache")
            assert response.status_code == 200, url
            page = response.content.decode()
            if "Rocket stalled." in page and url != "/search/?q=rocket":
                assert "<li>Bad Tag &lt;b&gt;</li>" in page, url
                assert '<a href="/tags/rust/" rel="tag">rust</a>' in page, url
    assert "No address for web:tag from {'tag': 'Bad Tag <b>'}" in caplog.text


def test_a_slug_written_past_the_validators_is_shown_unlinked(client, entries, caplog):
    ErrorEntry.objects.filter(pk=entries[0].pk).update(slug="bad slug/<i>")
    with caplog.at_level(logging.WARNING, logger="errorkb.kb.record.names"):
        for url in ["/", "/repos/acme/rocket/", "/tags/rust/", "/search/?q=rocket"]:
            response = client.get(url, HTTP_CACHE_CONTROL="no-cache")
            assert response.status_code == 200, url
            page = response.content.decode()
            assert "Rocket stalled." in page, url
            assert 'href="/repos/acme/rocket/errors/rocket-flew/"' in page, url
        api = client.get("/api/search?q=rocket")
        assert api.status_code == 200
        urls = {hit["message"]: hit["url"] for hit in api.json()["results"]}
        assert urls["Rocket stalled."] == ""
        lookup = client.post(
            "/api/lookup", {"text": "Rocket stalled."}, content_type="application/json"
        )
        assert lookup.status_code == 200 and lookup.json()["matches"][0]["url"] == ""
    assert "No address for web:entry" in caplog.text


def test_a_repository_written_past_the_validators_is_shown_unlinked(client, entries):
    Repository.objects.filter(owner="acme").update(owner="ac/me")
    for url in ["/", "/tags/rust/"]:
        response = client.get(url, HTTP_CACHE_CONTROL="no-cache")
        assert response.status_code == 200, url
        assert "ac/me/rocket" in response.content.decode()


def test_the_lookup_page_shows_an_entry_without_an_address_unlinked(client, entries):
    ErrorEntry.objects.filter(pk=entries[0].pk).update(slug="bad slug/<i>")
    # One entry explains the text: the page would go straight to it, but it has no address.
    response = client.post("/lookup/", {"text": "Rocket stalled."})
    assert response.status_code == 200
    page = response.content.decode()
    assert "<code>Rocket stalled.</code>" in page and 'href=""' not in page
