"""Each entry a lookup finds comes with its state at the release read from the text, and
links to its page at that release: on the API, the page and the command."""

from io import StringIO

import pytest
from django.core.management import call_command

from tests.builders import applies_to_row, import_records, make_record, raised_row
from tests.lookup.texts import rust_panic
from tests.scanned import BASE_RS, raised_in_row, scan_releases
from tests.verification.builders import link_scenario, prove

pytestmark = pytest.mark.django_db

REPO = "tracel-ai/burn"
MESSAGE = "Can save model checkpoint."
REGISTRY = "/home/me/.cargo/registry/src/index.crates.io-6f17d22bba15001f"
PRESS = "hand-built LearningCheckpointer, no interrupter"


@pytest.fixture
def entry():
    return burn_entry()


def burn_entry():
    """Raised at line 61 in 0.13.0 and 0.14.0 with a hand-built set-up (reproduced there);
    not raised in 0.15.0 with the standard launcher."""
    (entry,) = import_records(
        make_record(
            MESSAGE,
            repo=REPO,
            filePath=BASE_RS,
            raisedIn=[raised_in_row(r) for r in ("0.13.0", "0.14.0", "0.15.0")],
            appliesTo=[
                raised_row(versions="0.13.0 – 0.14.0", setup=PRESS, lineNumber=61),
                applies_to_row(versions="0.15.0", setup="SupervisedTraining::launch"),
            ],
        )
    )
    scan_releases(REPO, "0.13.0", "0.14.0", "0.15.0")
    prove(entry, link_scenario(entry, release="v0.14.0", setup="hand-built"))
    return entry


def registry_panic(release: str) -> str:
    path = f"{REGISTRY}/burn-train-{release}/src/learner/base.rs"
    return rust_panic(path, 61, f"{MESSAGE}: Os {{ code: 28 }}")


def api(client, text: str) -> dict:
    response = client.post("/api/lookup", {"text": text}, content_type="application/json")
    assert response.status_code == 200, response.content
    return response.json()


def test_its_api_gives_the_state_at_the_release_the_log_names(client, entry):
    body = api(client, registry_panic("0.14.0"))
    (match,) = body["matches"]
    assert (match["release"], match["state"]) == ("0.14.0", "verified")
    assert match["stateLabel"] == f"raised in 0.14.0 with {PRESS}; reproduced"
    assert match["url"].endswith(f"{entry.get_absolute_url()}?release=0.14.0")
    assert body["story"][0]["entry"] == match | {"line": body["story"][0]["entry"]["line"]}


def test_its_api_gives_another_state_at_another_release(client, entry):
    (match,) = api(client, registry_panic("0.15.0"))["matches"]
    assert (match["release"], match["state"]) == ("0.15.0", "not_raised")
    assert match["stateLabel"].startswith("not raised in 0.15.0 with the set-ups examined")


def test_without_a_release_in_the_text_it_gives_the_entry_wide_state_and_a_plain_link(
    client, entry
):
    (match,) = api(client, f"{MESSAGE}: Os {{ code: 28 }}")["matches"]
    assert match["release"] is None
    assert match["state"] == "verified"
    assert match["stateLabel"].startswith("raised in 0.13.0 – 0.14.0 with hand-built")
    assert match["url"].endswith(entry.get_absolute_url())


def test_its_page_shows_each_entrys_state_and_links_it_at_the_release(client, entry):
    # Two panics, so the page tells the story rather than going to the one entry.
    text = registry_panic("0.14.0") + "\n" + rust_panic("src/main.rs", 3, "oops")
    page = client.post("/lookup/", {"text": text}).content.decode()
    assert f'href="{entry.get_absolute_url()}?release=0.14.0"' in page
    assert '<span class="state state-verified">verified: a run reproduced it</span>' in page
    assert f"At 0.14.0: raised in 0.14.0 with {PRESS}; reproduced." in page


def test_its_page_sends_a_lone_entry_to_its_page_at_the_release(client, entry):
    response = client.post("/lookup/", {"text": registry_panic("0.15.0")})
    assert response.status_code == 303
    assert response["Location"] == f"{entry.get_absolute_url()}?release=0.15.0"


def test_its_command_prints_the_state_at_the_release(entry, tmp_path):
    log = tmp_path / "train.log"
    log.write_text(registry_panic("0.14.0"), encoding="utf-8")
    out = StringIO()
    call_command("lookup", str(log), stdout=out)
    printed = out.getvalue()
    assert f"state (at 0.14.0): verified: raised in 0.14.0 with {PRESS}; reproduced" in printed
    assert f"{entry.get_absolute_url()}?release=0.14.0" in printed
