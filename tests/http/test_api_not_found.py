"""An address under /api/ that no view answers: the API's JSON 404, never the HTML page."""

import pytest

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("path", ["/api/", "/api/nothing", "/api/errors/x/y/z", "/api/search/q"])
def test_it_answers_an_unknown_api_address_with_a_json_404(client, path):
    response = client.get(path)
    assert response.status_code == 404
    assert response["Content-Type"] == "application/json"
    body = response.json()
    assert body["errors"] == {} and path in body["detail"] and "/api/docs/" in body["detail"]


def test_it_names_the_address_without_its_trailing_slash(client):
    response = client.get("/api/search/")
    assert response.status_code == 404 and response["Content-Type"] == "application/json"
    assert "the address is /api/search (no trailing slash)" in response.json()["detail"]


def test_it_still_answers_a_page_with_the_html_404(client):
    response = client.get("/no-such-page/")
    assert response.status_code == 404
    assert response["Content-Type"].startswith("text/html")
