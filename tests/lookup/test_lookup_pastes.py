"""Logs that burn's users pasted into burn's tracker and into projects built on burn, copied
as pasted (tests/lookup/pastes/, its README says how they were gathered), each read as a
story with the demo entries and the shipped scan of burn's releases loaded.

A log's expected story (manifest.json) is its events other than context, in order: the
role, whose code the location is, what burn text explains it and at which burn line,
the release. A lookup tells each event as (role, where, what explains it, release):
an entry's message; "site PATH:LINE" for the burn line with no entry (for another
crate's code, the burn line that called it); "none" for nothing.
"""

import json
from pathlib import Path

import pytest

from tests.lookup.texts import demo_records

PASTES = Path(__file__).parent / "pastes"
MANIFEST = json.loads((PASTES / "manifest.json").read_text(encoding="utf-8"))
MESSAGES = {record["errorMessage"] for record in demo_records()}
# Rust's own messages, entries only at the files their firesAt rows name.
FIRES_AT = {
    record["errorMessage"]: {row["filePath"] for row in record["firesAt"]}
    for record in demo_records()
    if record.get("firesAt")
}
WHERE = {"burn": "upstream", "dependency": "dependency", "user": "user", "rust": "rust", "": ""}


def expected(event: dict, text: str) -> tuple[str, str, str, str | None]:
    """(role, where, what, release) as the lookup must tell it: the entry whose message is
    burn's text, else burn's line; the release only where the text's paths name it."""
    text_of_burn = event["burn_text"]
    site_file = (event["burn_site"] or "").rsplit(":", 1)[0]
    if text_of_burn in FIRES_AT and site_file not in FIRES_AT[text_of_burn]:
        what = f"site {event['burn_site']}"  # Rust's message at a line its entry does not hold
    elif text_of_burn in MESSAGES:
        what = text_of_burn
    elif event["burn_site"] and event["where"] in ("burn", "dependency"):
        what = f"site {event['burn_site']}"
    else:
        what = "none"
    release = event["release"]
    if release and f"-{release}" not in text and f" v{release} " not in text:
        release = None  # the thread says it, not the log: the lookup cannot know
    return event["role"], WHERE[event["where"]], what, release


def told(finding: dict) -> tuple[str, str, str, str | None]:
    if finding["entry"]:
        what = finding["entry"]["message"]
    elif finding["upstream"]:
        what = f"site {finding['upstream']['filePath']}:{finding['upstream']['lineNumber']}"
    else:
        what = "none"
    return finding["role"], finding["where"], what, finding["release"]


def story_of(client, text: str) -> dict:
    response = client.post("/api/lookup", {"text": text}, content_type="application/json")
    assert response.status_code == 200, response.content
    return response.json()


def test_no_paste_note_calls_its_first_panic_the_cause_when_the_story_has_no_cause():
    # a closed channel's panic follows a worker that died earlier, outside the paste
    for log in MANIFEST:
        if all(event["role"] != "cause" for event in log["story"]):
            assert "first panic is the cause" not in log.get("notes", ""), log["file"]


def test_the_corpus_holds_sixty_real_pastes_each_with_its_source():
    assert len(MANIFEST) >= 60
    for log in MANIFEST:
        assert log["source"].startswith("https://github.com/"), log["file"]
        assert (PASTES / log["file"]).is_file(), log["file"]


@pytest.mark.parametrize("log", MANIFEST, ids=[log["file"] for log in MANIFEST])
def test_a_pasted_log_is_told_as_it_happened(client, demo, burn_releases, log):
    text = (PASTES / log["file"]).read_text(encoding="utf-8")

    answer = story_of(client, text)

    story = [told(finding) for finding in answer["story"] if finding["role"] != "context"]
    assert story == [expected(event, text) for event in log["story"]]
