"""The lookup's refusals: no text, too much text, too many lookups; and its page."""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.db import connection

from errorkb.http.throttles import ClientThrottle
from errorkb.lookup.lookups import MAX_TEXT_BYTES
from tests.builders import import_records, make_record

ROOT = Path(__file__).resolve().parents[2]


def post(client, body, **extra):
    return client.post("/api/lookup", body, content_type="application/json", **extra)


@pytest.mark.parametrize("text", ["", "   \n\t "])
def test_an_empty_text_is_a_400_naming_the_field(client, db, text):
    response = post(client, {"text": text})

    assert response.status_code == 400
    assert response.json() == {
        "detail": "Invalid input.",
        "errors": {"text": ["Paste the text of an error: the text is empty."]},
    }


@pytest.mark.parametrize("body", [{}, {"text": None}, {"text": 12}, [], "not json"])
def test_a_body_without_a_text_is_a_400(client, db, body):
    response = post(client, body)

    assert response.status_code == 400
    assert set(response.json()) == {"detail", "errors"}


def test_a_text_over_one_mebibyte_is_a_413_that_says_the_limit(client, db):
    response = post(client, {"text": "é" * (MAX_TEXT_BYTES // 2 + 1)})

    assert response.status_code == 413
    assert response.json() == {
        "detail": "The text is 1,048,578 bytes; a lookup reads at most 1,048,576 bytes (1 MiB). "
        "Paste the part around the error.",
        "errors": {},
    }


def test_a_text_of_exactly_one_mebibyte_is_read(client, db):
    import_records(make_record("Engine stalled."))
    text = "x" * (MAX_TEXT_BYTES - len("\nEngine stalled.")) + "\nEngine stalled."

    response = post(client, {"text": text})

    assert response.status_code == 200
    assert response.json()["matches"][0]["message"] == "Engine stalled."


def test_a_body_too_large_to_hold_any_allowed_text_is_refused_unread(client, db):
    response = client.generic(
        "POST",
        "/api/lookup",
        b"{}",
        content_type="application/json",
        CONTENT_LENGTH=str(7 * MAX_TEXT_BYTES),
    )

    assert response.status_code == 413
    assert "it cannot hold 1 MiB" in response.json()["detail"]


def test_the_page_refuses_a_body_too_large_unread(client, db):
    response = client.generic(
        "POST",
        "/lookup/",
        b"text=a",
        content_type="application/x-www-form-urlencoded",
        CONTENT_LENGTH=str(7 * MAX_TEXT_BYTES),
    )

    assert response.status_code == 413


def test_only_post_is_allowed(client, db):
    assert client.get("/api/lookup").status_code == 405


def test_anonymous_lookups_past_the_limit_get_a_429_with_retry_after(client, db, settings):
    settings.LOOKUPS_PER_MINUTE = 3
    answers = [post(client, {"text": "hello"}) for _ in range(4)]

    assert [a.status_code for a in answers] == [200, 200, 200, 429]
    refused = answers[-1]
    assert refused.json()["detail"].startswith(
        "Too many requests: anonymous clients may make 3 lookups or searches a minute."
    )
    assert 1 <= int(refused["Retry-After"]) <= 60


def test_the_limit_is_per_client(client, db, settings):
    settings.LOOKUPS_PER_MINUTE = 1
    assert post(client, {"text": "a"}, REMOTE_ADDR="192.0.2.1").status_code == 200
    assert post(client, {"text": "a"}, REMOTE_ADDR="192.0.2.1").status_code == 429
    assert post(client, {"text": "a"}, REMOTE_ADDR="192.0.2.2").status_code == 200


@pytest.mark.django_db(transaction=True)
def test_the_limit_is_shared_by_every_process(client, settings):
    """Lookups counted here refuse the next one another process of this machine is asked
    for: the counts live in the throttles' cache, not in a process's memory."""
    settings.LOOKUPS_PER_MINUTE = 2
    address = "192.0.2.9"
    for _ in range(2):
        assert post(client, {"text": "a"}, REMOTE_ADDR=address).status_code == 200
    script = (
        "import django; django.setup()\n"
        "from django.test import RequestFactory\n"
        "from errorkb.http.throttles import LookupThrottle\n"
        f"request = RequestFactory().post('/api/lookup', REMOTE_ADDR={address!r})\n"
        "print('allowed' if LookupThrottle().allow_request(request, None) else 'refused')\n"
    )
    outcome = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        env={**os.environ, **_database_env(), "LOOKUPS_PER_MINUTE": "2"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert outcome.stdout.strip() == "refused", outcome.stderr


def test_signed_in_curators_are_not_limited(admin_client, db, settings):
    settings.LOOKUPS_PER_MINUTE = 1
    for _ in range(3):
        response = admin_client.post("/lookup/", {"text": "hello"})
        assert response.status_code == 200


def test_the_page_lands_on_the_entry_when_one_entry_matches(client, db):
    (entry,) = import_records(make_record("Engine stalled."))

    response = client.post("/lookup/", {"text": "log\nEngine stalled.\nmore log"})

    assert response.status_code == 303
    assert response["Location"] == entry.get_absolute_url()


def test_the_page_lists_several_matches_in_text_order(client, db):
    first, second = import_records(make_record("Engine stalled."), make_record("Fuel is low."))

    response = client.post("/lookup/", {"text": "Fuel is low.\nEngine stalled."})

    assert response.status_code == 200
    page = response.content.decode()
    assert page.index(second.get_absolute_url()) < page.index(first.get_absolute_url())
    assert "2 entries in this text" in page


def test_the_page_says_when_nothing_matches(client, db):
    response = client.post("/lookup/", {"text": "all good"})

    assert response.status_code == 200
    assert "No published entry matches this text." in response.content.decode()


def test_the_page_refuses_an_empty_text_with_a_400(client, db):
    response = client.post("/lookup/", {"text": ""})

    assert response.status_code == 400
    assert "the text is empty" in response.content.decode()


def test_the_page_refuses_past_the_limit_with_a_429(client, db, settings):
    settings.LOOKUPS_PER_MINUTE = 1
    client.post("/lookup/", {"text": "a"})

    response = client.post("/lookup/", {"text": "a"})

    assert response.status_code == 429
    assert "Too many requests" in response.content.decode()


def test_the_page_shows_the_form(client, db):
    response = client.get("/lookup/")

    assert response.status_code == 200
    assert 'name="text"' in response.content.decode()


def _database_env() -> dict[str, str]:
    settings = connection.settings_dict
    if connection.vendor == "sqlite":
        return {"DATABASE_URL": f"sqlite:///{settings['NAME']}", "DEBUG": "1"}
    url = f"postgres://{settings['USER']}@{settings['HOST']}:{settings['PORT']}/{settings['NAME']}"
    return {"DATABASE_URL": url, "DEBUG": "1"}


def test_lookups_older_than_a_minute_no_longer_count(client, db, settings, monkeypatch):
    settings.LOOKUPS_PER_MINUTE = 1
    assert post(client, {"text": "a"}).status_code == 200
    assert post(client, {"text": "a"}).status_code == 429
    a_minute_on = time.time() + 61
    monkeypatch.setattr(ClientThrottle, "timer", lambda self: a_minute_on)
    assert post(client, {"text": "a"}).status_code == 200


# White space as either dialect reads it: Python's str.isspace and ECMA-262's \s (WhiteSpace
# and LineTerminator), which the OpenAPI document's patterns use.
PYTHON_SPACE = [chr(code) for code in range(0x3001) if chr(code).isspace()]
ECMA_SPACE = list("\t\v\f \xa0\ufeff\n\r\u2028\u2029\u1680\u202f\u205f\u3000") + [
    chr(code) for code in range(0x2000, 0x200B)
]


@pytest.mark.parametrize(
    "space", sorted(set(PYTHON_SPACE + ECMA_SPACE)), ids=lambda c: f"U+{ord(c):04X}"
)
def test_text_of_either_dialects_white_space_is_empty(client, db, space):
    response = post(client, {"text": space * 3})
    assert response.status_code == 400
    assert response.json()["errors"] == {"text": ["Paste the text of an error: the text is empty."]}


def test_the_documents_pattern_reads_white_space_as_the_server_does(client, db):
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/json").json()
    pattern = schema["components"]["schemas"]["LookupRequest"]["properties"]["text"]["pattern"]
    samples = sorted(set(PYTHON_SPACE + ECMA_SPACE)) + ["\u200b", "a", "\u001c x"]
    # Node reads the pattern in the ECMA dialect itself, as a schema validator would.
    script = "const [p, ...s] = JSON.parse(process.argv[1]); " + (
        "console.log(JSON.stringify(s.map(t => new RegExp(p, 'u').test(t))))"
    )
    result = subprocess.run(
        ["node", "-e", script, json.dumps([pattern, *samples])],
        capture_output=True,
        text=True,
        check=True,
    )
    allowed_by_schema = json.loads(result.stdout)
    allowed_by_server = [post(client, {"text": sample}).status_code == 200 for sample in samples]
    assert allowed_by_schema == allowed_by_server
    assert allowed_by_server[-3:] == [True, True, True]


def test_it_reads_a_text_that_holds_nul_characters(client, demo):
    text = "\x00\x00\nthread 'main' panicked at src/main.rs:3:5:\nCan save model checkpoint.: x"

    response = client.post("/api/lookup", {"text": text}, content_type="application/json")

    assert response.status_code == 200
    assert [match["message"] for match in response.json()["matches"]] == [
        "Can save model checkpoint."
    ]
