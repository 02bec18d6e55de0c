"""The shipped demo dataset: burn-train's eleven checkpoint messages, consistent and linked."""

import json

import pytest

from errorkb.kb.dataset import parse_dataset
from errorkb.kb.models import derive_entry_id
from errorkb.kb.records import message_matches
from tests.builders import DEMO_DATASET, load_demo

MESSAGES = {
    f"Can {verb} {what} checkpoint."
    for verb in ("save", "delete", "load")
    for what in ("model", "optimizer", "learning rate scheduler")
} | {"Failed to load module from file", "Failed to load record"}


@pytest.fixture(scope="module")
def demo():
    return json.loads(DEMO_DATASET.read_text(encoding="utf-8"))


def test_it_holds_the_eleven_burn_messages(demo):
    assert {r["errorMessage"] for r in demo["records"]} == MESSAGES
    assert all(r["repo"] == "tracel-ai/burn" for r in demo["records"])


def test_it_validates_against_the_schema(demo):
    assert len(parse_dataset(demo).records) == 11


def test_its_ids_are_derived_from_repo_message_and_file(demo):
    for r in demo["records"]:
        assert r["id"] == derive_entry_id(r["repo"], r["errorMessage"], r["filePath"])


def test_its_patterns_match_the_full_panic_text(demo):
    for r in demo["records"]:
        panic = (
            f'{r["errorMessage"]}: Record(Io("I/O error: No such file or directory (os error 2)"))'
        )
        assert message_matches(r["messagePattern"], r["errorMessage"]), r["id"]
        assert message_matches(r["messagePattern"], panic), r["id"]


def test_its_snippets_contain_the_raising_line(demo):
    for r in demo["records"]:
        lines = r["sourceCode"].split("\n")
        assert len(lines) == r["sourceCodeEnd"] - r["sourceCodeStart"] + 1, r["id"]
        raising = lines[r["lineNumber"] - r["sourceCodeStart"]]
        assert r["errorMessage"] in raising, r["id"]
        assert r["analyzedSha"] in r["githubUrl"] and r["filePath"] in r["githubUrl"]


def test_it_does_not_claim_the_async_checkpointer_raises_save_errors(demo):
    # With the default async checkpointer a failed write panics in the worker thread and
    # surfaces as "Can delete ...: sending on a closed channel"; the entries must say so.
    by_message = {r["errorMessage"]: r for r in demo["records"]}
    save = by_message["Can save model checkpoint."]
    assert "async" in (save["documentation"] + save["triggerScenarios"]).lower()
    delete = by_message["Can delete model checkpoint."]
    assert "closed channel" in json.dumps(delete)


@pytest.mark.django_db
def test_it_loads_and_serves_every_entry(client):
    load_demo()
    listing = client.get("/api/errors/?pageSize=100").json()
    assert listing["count"] == 11
    for record in listing["results"]:
        assert client.get(f"/errors/{record['id']}/").status_code == 200
        assert record["related"], record["id"]
