"""Every API answers a hostile request with its own 400 error body, never a 500 or a
megabyte: deep JSON, a key twice, a number too long to read, a parameter of a million
characters."""

import json

import pytest

from errorkb.http.bodies import MAX_BODY_DEPTH, MESSAGE_CHARS
from tests.builders import import_records, make_record

pytestmark = pytest.mark.django_db

BIG = "9" * 1_000_000


def lookup(client, body: str):
    return client.post("/api/lookup", body, content_type="application/json")


def assert_api_refusal(response, words: str) -> dict:
    assert response.status_code == 400
    assert response["Content-Type"] == "application/json"
    body = response.json()
    assert set(body) == {"detail", "errors"}
    assert words in json.dumps(body), body
    return body


@pytest.mark.parametrize("depth", [MAX_BODY_DEPTH + 1, 900, 1000, 100_000])
def test_a_body_nested_too_deep_is_the_apis_400(client, depth):
    response = lookup(client, "[" * depth + "]" * depth)
    assert_api_refusal(response, f"nested more than {MAX_BODY_DEPTH} levels")


def test_a_body_nested_too_deep_inside_its_text_key_is_refused(client):
    nested = "[" * 5000 + "]" * 5000
    response = lookup(client, f'{{"text": "Rocket stalled.", "more": {nested}}}')
    assert_api_refusal(response, "nested more than")


def test_a_body_nested_within_the_bound_is_read(client):
    deep = "[" * (MAX_BODY_DEPTH - 1) + "]" * (MAX_BODY_DEPTH - 1)
    response = lookup(client, f'{{"text": {deep}}}')
    # Parsed: refused by the serializer for what it is (no text), not as JSON.
    body = assert_api_refusal(response, "text")
    assert "JSON parse error" not in body["detail"]


def test_brackets_inside_strings_are_text_not_nesting(client):
    import_records(make_record("Rocket stalled."))
    text = "[" * 10_000 + " Rocket stalled."
    response = lookup(client, json.dumps({"text": text}))
    assert response.status_code == 200
    assert response.json()["count"] == 1


@pytest.mark.parametrize(
    "body",
    ['{"text": "a", "text": "Rocket stalled."}', '{"text": "a", "x": {"k": 1, "k": 2}}'],
    ids=["top-level", "nested"],
)
def test_a_key_twice_in_one_object_is_refused_naming_it(client, body):
    response = lookup(client, body)
    word = '\\"text\\"' if body.count('"text"') == 2 else '\\"k\\"'
    assert_api_refusal(response, f"the key {word} appears twice")


def test_a_number_too_long_to_read_is_refused_without_echoing_it(client):
    response = lookup(client, f'{{"text": {BIG}}}')
    assert_api_refusal(response, "a number too long to read")
    assert len(response.content) < 500


@pytest.mark.parametrize(
    "number", ["-" + BIG, BIG + ".5", "1e" + BIG], ids=["negative", "float", "exponent"]
)
def test_any_number_of_a_million_digits_is_a_short_400(client, number):
    response = lookup(client, f'{{"text": {number}}}')
    assert_api_refusal(response, "")
    assert len(response.content) < 500


def test_a_key_of_a_million_characters_twice_is_named_by_its_start(client):
    key = json.dumps("k" * 1_000_000)
    response = lookup(client, f'{{"text": "Rocket stalled.", {key}: 1, {key}: 2}}')
    assert_api_refusal(response, "appears twice")
    assert len(response.content) < 2 * MESSAGE_CHARS


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_not_a_number_is_not_json(client, constant):
    assert_api_refusal(lookup(client, f'{{"text": {constant}}}'), "is not JSON")


@pytest.mark.parametrize(
    ("url", "status"),
    [
        (f"/api/errors/?page={BIG}", 404),  # past the last page, as its document says
        (f"/api/errors/?page=0000{BIG}", 404),
        (f"/api/errors/?pageSize={BIG}", 400),
        (f"/api/search?q=rocket&page={BIG}", 404),
        (f"/api/errors/?severity={BIG}", 400),
        (f"/api/errors/?verificationState={BIG}", 400),
        (f"/api/errors/?removedUpstream={BIG}", 400),
    ],
    ids=["page", "page-zeros", "page-size", "search-page", "severity", "state", "removed"],
)
def test_a_parameter_of_a_million_digits_is_a_short_refusal(client, url, status):
    import_records(make_record("Rocket stalled."))
    response = client.get(url)
    assert response.status_code == status
    assert set(response.json()) == {"detail", "errors"}
    assert len(response.content) < 2 * MESSAGE_CHARS, response.content[:400]


def test_a_page_number_past_eighteen_digits_is_past_the_last_page(client):
    import_records(make_record("Rocket stalled."))
    assert client.get("/api/errors/?page=0001").status_code == 200
    assert client.get("/api/errors/?page=10000000000000000001").status_code == 404
    assert client.get("/api/errors/?page=0").status_code == 400
