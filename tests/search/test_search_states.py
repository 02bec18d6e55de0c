"""Search says what it searched for, ranks proven entries first, and names each one's state."""

import pytest

from errorkb.search.index import search
from tests.builders import applies_to_row, import_records, make_record, raised_row
from tests.verification.builders import link_absence, link_scenario, prove, record_run

pytestmark = pytest.mark.django_db


def proven(entry) -> None:
    prove(entry, link_scenario(entry, f"proof-{entry.slug}"))


def unreachable(entry) -> None:
    scenario = link_absence(entry, f"absence-{entry.slug}")
    record_run(entry, scenario, "reproduced", "Training interrupted: disk full")


def test_it_ranks_a_verified_message_hit_first_and_an_unreachable_one_after_it():
    gone, plain, sure = import_records(
        make_record("Checkpoint gone.", filePath="a.rs"),
        make_record("Checkpoint late.", filePath="b.rs"),
        make_record("Checkpoint sure.", filePath="c.rs"),
    )
    unreachable(gone)
    proven(sure)
    found = [hit.entry for hit in search("checkpoint").hits]
    assert found == [sure, plain, gone]


def test_it_ranks_any_message_hit_before_a_verified_entry_whose_message_lacks_the_words():
    elsewhere, message = import_records(
        make_record("Engine stalled.", documentation="The checkpoint broke.", filePath="a.rs"),
        make_record("Checkpoint gone.", filePath="b.rs"),
    )
    proven(elsewhere)
    unreachable(message)
    assert [hit.entry for hit in search("checkpoint").hits] == [message, elsewhere]


def test_it_says_which_words_it_searched_for_when_it_corrected_one():
    import_records(make_record("Can save model checkpoint."))
    assert search("save model chekpoint").searched_for == "save model checkpoint"
    assert search("save model checkpoint").searched_for is None


def test_it_gives_each_hit_its_entry_wide_state():
    (entry,) = import_records(
        make_record("Valve stuck.", appliesTo=[raised_row(versions="0.19.0 – 0.19.1")])
    )
    (hit,) = search("valve").hits
    assert hit.state.state == "not_yet_reproduced"
    assert hit.state.label.startswith("raised in 0.19.0 – 0.19.1 with hand-built")


def test_its_api_carries_states_summaries_and_the_corrected_words(client):
    (entry,) = import_records(
        make_record(
            "Can save model checkpoint.",
            summary="The checkpoint could not be written: free some disk space.",
            appliesTo=[raised_row(versions="0.19.0 – 0.19.1")],
        )
    )
    prove(entry, link_scenario(entry, release="v0.19.1", setup="hand-built"))
    body = client.get("/api/search", {"q": "chekpoint"}).json()
    assert (body["searchedFor"], body["corrected"]) == ("checkpoint", True)
    (result,) = body["results"]
    assert result["state"] == "verified"
    assert result["stateSummary"] == (
        "raised in 0.19.0 – 0.19.1 with hand-built LearningCheckpointer, no interrupter "
        "(reproduced)"
    )
    assert result["summary"] == "The checkpoint could not be written: free some disk space."
    typed = client.get("/api/search", {"q": "checkpoint"}).json()
    assert (typed["searchedFor"], typed["corrected"]) == (None, False)


def test_its_snippets_are_plain_and_at_most_two(client):
    import_records(
        make_record(
            "Valve stuck.",
            tags=["valve"],
            filePath="src/valve.rs",
            documentation="See `valve::open` in [the guide](https://example.com).",
            solutions=["Oil the *valve*."],
        )
    )
    (result,) = client.get("/api/search", {"q": "valve"}).json()["results"]
    assert [s["field"] for s in result["snippets"]] == ["errorMessage", "tags"]
    body = client.get("/api/search", {"q": "guide"}).json()["results"][0]
    (snippet,) = body["snippets"]
    assert snippet["text"] == "See valve::open in the guide."
    assert snippet["html"] == "See valve::open in the <mark>guide</mark>."


def test_it_ranks_an_entry_never_raised_last_and_one_raised_somewhere_before_it():
    never, somewhere = import_records(
        make_record("Checkpoint never.", filePath="a.rs", appliesTo=[applies_to_row()]),
        make_record(
            "Checkpoint somewhere.",
            filePath="b.rs",
            appliesTo=[applies_to_row(), raised_row(versions="0.19.0 – 0.19.1")],
        ),
    )
    # Both proven absent with the standard set-up: only `never` is never raised at all.
    unreachable(never)
    unreachable(somewhere)
    assert [hit.entry for hit in search("checkpoint").hits] == [somewhere, never]
