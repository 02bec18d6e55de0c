"""GET /api/search: ranked hits with snippets, strict parameters, the rate limit."""

import pytest

from errorkb.search import index
from tests.builders import import_records, make_record

pytestmark = pytest.mark.django_db


@pytest.fixture
def entries():
    return import_records(
        make_record("Turbine <overheated>.", slug="turbine", filePath="a.rs", tags=["engine"]),
        make_record("Engine stalled.", solutions=["Cool the turbine."], filePath="b.rs"),
    )


def test_it_answers_ranked_hits_with_snippets(client, entries):
    response = client.get("/api/search", {"q": "turbine"})
    assert response.status_code == 200
    body = response.json()
    assert body["count"] == 2 and body["next"] is None and body["previous"] is None
    assert body["countCapped"] is False
    first, second = body["results"]
    assert first["id"] == entries[0].id and second["id"] == entries[1].id
    assert first["message"] == "Turbine <overheated>." and first["repo"] == "acme/rocket"
    assert first["url"] == f"http://testserver{entries[0].get_absolute_url()}"
    assert first["score"] > second["score"]
    assert first["snippets"][0] == {
        "field": "errorMessage",
        "html": "<mark>Turbine</mark> &lt;overheated&gt;.",
        "text": "Turbine <overheated>.",
    }
    assert second["snippets"] == [
        {
            "field": "solutions",
            "html": "Cool the <mark>turbine</mark>.",
            "text": "Cool the turbine.",
        }
    ]


def test_it_pages_with_links(client):
    import_records(*(make_record(f"Rocket {n}.", filePath=f"{n}.rs") for n in range(3)))
    body = client.get("/api/search", {"q": "rocket", "pageSize": 2, "page": 2}).json()
    assert body["count"] == 3 and len(body["results"]) == 1 and body["next"] is None
    assert "pageSize=2" in body["previous"]


def test_it_says_when_more_match_than_it_counts_and_pages_only_those(client, monkeypatch):
    monkeypatch.setattr(index, "MAX_RANKED", 2)
    import_records(*(make_record(f"Rocket {n}.", filePath=f"{n}.rs") for n in range(3)))
    body = client.get("/api/search", {"q": "rocket", "pageSize": 1}).json()
    assert (body["count"], body["countCapped"], len(body["results"])) == (2, True, 1)
    assert "page=2" in body["next"]
    last = client.get("/api/search", {"q": "rocket", "pageSize": 1, "page": 2}).json()
    assert last["next"] is None and len(last["results"]) == 1
    past = client.get("/api/search", {"q": "rocket", "pageSize": 1, "page": 3})
    assert past.status_code == 404


def test_it_answers_404_for_a_page_past_the_end(client, entries):
    response = client.get("/api/search", {"q": "turbine", "page": 3})
    assert response.status_code == 404
    assert set(response.json()) == {"detail", "errors"}


def test_a_page_no_sql_integer_can_reach_is_404_too(client, entries):
    # Found by schemathesis: the offset of this page overflowed SQLite's integers (a 500).
    response = client.get("/api/search", {"q": "turbine", "pageSize": 100, "page": 10**22})
    assert response.status_code == 404
    assert set(response.json()) == {"detail", "errors"}


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"q": ""},
        {"q": "x" * 501},
        {"q": "a\x00b"},
        {"q": "a", "page": "0"},
        {"q": "a", "pageSize": "101"},
    ],
)
def test_it_refuses_bad_parameters_with_a_400(client, params):
    response = client.get("/api/search", params)
    assert response.status_code == 400
    body = response.json()
    assert body["detail"] and set(body["errors"]) <= {"q", "page", "pageSize"} and body["errors"]


def test_it_names_q_when_q_is_missing(client):
    assert "q" in client.get("/api/search").json()["errors"]


def test_it_accepts_a_query_of_500_characters(client, entries):
    assert client.get("/api/search", {"q": "turbine " + "x" * 492}).status_code == 200


def test_it_answers_429_past_the_limit(client, settings, entries):
    settings.LOOKUPS_PER_MINUTE = 2
    assert [client.get("/api/search", {"q": "turbine"}).status_code for _ in range(2)] == [200] * 2
    response = client.get("/api/search", {"q": "turbine"})
    assert response.status_code == 429
    assert 1 <= int(response["Retry-After"]) <= 60
    body = response.json()
    assert body["errors"] == {} and "Too many requests" in body["detail"]


def test_it_charges_a_bad_request_too(client, settings):
    settings.LOOKUPS_PER_MINUTE = 1
    assert client.get("/api/search").status_code == 400
    assert client.get("/api/search").status_code == 429


def test_it_does_not_limit_a_signed_in_curator(client, settings, django_user_model):
    settings.LOOKUPS_PER_MINUTE = 1
    client.force_login(django_user_model.objects.create_user("curator", is_staff=True))
    statuses = [client.get("/api/search", {"q": "turbine"}).status_code for _ in range(3)]
    assert statuses == [200, 200, 200]
