"""The API's states per release and set-up: GET /api/errors/<id>?release=X, and the list."""

import pytest

from tests.builders import import_records, load_demo, make_record
from tests.scanned import scan_releases
from tests.verification.builders import link_absence, record_run
from tests.verification.checkpoint_entry import (
    HAND_MADE,
    INTERRUPTED,
    checkpoint_entry,
    learner_builder_absence,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def checkpoint():
    entry = checkpoint_entry()
    record_run(entry, link_absence(entry), "reproduced", texts=[INTERRUPTED])
    record_run(
        entry,
        learner_builder_absence(entry),
        "reproduced",
        texts=["Can save the state.: RecorderError(..)"],
    )
    return entry


def detail(client, entry, query: str = ""):
    return client.get(f"/api/errors/{entry.id}{query}")


def test_it_answers_each_claim_and_the_entry_wide_summary(client, checkpoint):
    body = detail(client, checkpoint).json()
    assert [(s["versions"], s["outcome"], s["state"]) for s in body["states"]] == [
        ("0.20.0-pre.1 – 0.20.0-pre.5", "raised", "not_yet_reproduced"),
        ("main", "not raised", "unreachable"),
        ("0.13.0 – 0.19.1", "not raised", "unreachable"),
    ]
    assert body["states"][0]["setup"] == HAND_MADE
    assert body["states"][1]["seen"] == "Training interrupted: {reason}"
    assert "supervised-disk-full ran on cpu" in body["states"][1]["proof"]
    assert body["stateSummary"].startswith("raised in 0.20.0-pre.1 – 0.20.0-pre.5 with")
    assert "never print it" in body["stateSummary"]
    assert body["stateAtRelease"] is None


def test_the_state_at_0_20_0_pre_3_is_raised_and_at_0_19_1_unreachable(client, checkpoint):
    at = detail(client, checkpoint, "?release=0.20.0-pre.3").json()["stateAtRelease"]
    assert at["release"] == "0.20.0-pre.3" and at["state"] == "not_yet_reproduced"
    assert at["label"] == f"raised in 0.20.0-pre.3 with {HAND_MADE}; not yet reproduced"
    at = detail(client, checkpoint, "?release=v0.19.1").json()["stateAtRelease"]
    assert (at["release"], at["state"]) == ("0.19.1", "unreachable")
    assert "burn prints Can save the state. instead" in at["label"]


def test_a_release_without_the_line_or_a_claim_says_so(client, checkpoint):
    at = detail(client, checkpoint, "?release=0.20.0-pre.6").json()["stateAtRelease"]
    assert at["state"] == "no_claim"
    at = detail(client, checkpoint, "?release=0.9.0").json()["stateAtRelease"]
    assert at["state"] == "not_in_release"


@pytest.mark.parametrize("release", ["latest", "", "0.19.1 or so"])
def test_it_answers_400_for_a_release_that_is_none(client, checkpoint, release):
    response = detail(client, checkpoint, f"?release={release}")
    assert response.status_code == 400
    assert "is not a release" in response.json()["errors"]["release"][0]


def test_it_answers_400_for_a_release_burn_never_had(client, checkpoint):
    scan_releases("tracel-ai/burn", "0.19.1", "0.20.0-pre.3")
    response = detail(client, checkpoint, "?release=0.99.0")
    assert response.status_code == 400
    message = response.json()["errors"]["release"][0]
    assert message == "burn has no release 0.99.0: its releases run 0.19.1 – 0.20.0-pre.3 and main."
    assert detail(client, checkpoint, "?release=main").status_code == 200


def test_it_answers_404_before_reading_the_release_of_no_entry(client):
    assert client.get("/api/errors/0123456789abcdef?release=latest").status_code == 404


def test_the_list_carries_each_entrys_state_and_summary(client, checkpoint, entry):
    results = {r["id"]: r for r in client.get("/api/errors/").json()["results"]}
    assert results[checkpoint.id]["state"] == "not_yet_reproduced"
    assert (
        results[checkpoint.id]["stateSummary"]
        == (detail(client, checkpoint).json()["stateSummary"])
    )
    assert results[entry.id]["state"] == "no_claim"
    assert results[entry.id]["stateSummary"] == "no release or set-up examined yet"


def test_the_list_reads_states_in_a_fixed_number_of_queries(
    client, checkpoint, django_assert_max_num_queries
):
    import_records(*(make_record(f"Other failure {n}.") for n in range(5)))
    with django_assert_max_num_queries(40) as few:
        client.get("/api/errors/")
    import_records(*(make_record(f"Further failure {n}.") for n in range(10)))
    with django_assert_max_num_queries(len(few)):
        client.get("/api/errors/?pageSize=50")


def test_the_demo_save_entry_is_raised_at_0_20_0_pre_3_and_not_at_0_19_1(client):
    load_demo()
    save = "/api/errors/27edcc848b620ecb"
    at = client.get(f"{save}?release=0.20.0-pre.3").json()["stateAtRelease"]
    assert at["state"] not in ("unreachable", "not_raised")
    assert at["label"].startswith("raised in 0.20.0-pre.3 with a hand-made LearnerComponentTypes")
    at = client.get(f"{save}?release=0.19.1").json()["stateAtRelease"]
    assert at["state"] in ("unreachable", "not_raised")
