"""Every page names a small SVG icon, and /favicon.ico, which browsers ask for on pages
that name none (the admin's, a JSON answer), leads to it."""

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db

ICON = "/static/kb/favicon.svg"


def test_every_page_names_the_icon(client):
    for path in ("/", "/lookup/", "/search/?q=checkpoint", "/verification/"):
        html = client.get(path).content.decode()
        assert f'<link rel="icon" href="{ICON}" type="image/svg+xml">' in html, path


def test_the_icon_is_served_as_svg(client):
    response = client.get(ICON)
    assert response.status_code == 200
    assert response["Content-Type"] == "image/svg+xml"
    assert b"<svg" in b"".join(response.streaming_content)


def test_favicon_ico_redirects_to_the_icon(client):
    response = client.get("/favicon.ico")
    assert response.status_code == 302
    assert response["Location"] == ICON


def test_favicon_ico_refuses_a_write_before_any_csrf_check():
    assert Client(enforce_csrf_checks=True).post("/favicon.ico").status_code == 405
