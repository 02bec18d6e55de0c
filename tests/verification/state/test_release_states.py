"""States per release and set-up: an entry's claims, the state at a release, its summary."""

import pytest

from errorkb.verification.state.per_release import (
    ReleaseState,
    UnknownRelease,
    claims_for,
    claims_of_entries,
    entry_summary,
    state_at,
)
from tests.verification.builders import link_absence, link_scenario, prove, record_run
from tests.verification.checkpoint_entry import (
    HAND_MADE,
    INTERRUPTED,
    MESSAGE,
    checkpoint_entry,
    learner_builder_absence,
    row,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def checkpoint():
    return checkpoint_entry()


def test_it_makes_one_claim_per_row_with_its_outcome(checkpoint):
    claims = claims_for(checkpoint)
    assert [(c.versions, c.outcome, c.state) for c in claims] == [
        ("0.20.0-pre.1 – 0.20.0-pre.5", "raised", ReleaseState.NOT_YET_REPRODUCED),
        ("main", "not raised", ReleaseState.NOT_RAISED),
        ("0.13.0 – 0.19.1", "not raised", ReleaseState.NOT_RAISED),
    ]
    assert claims[1].seen == "Training interrupted: {reason}" and INTERRUPTED in claims[1].proof


def test_the_state_at_a_pre_release_of_the_hand_made_set_up_is_raised_not_unreachable(checkpoint):
    record_run(checkpoint, link_absence(checkpoint), "reproduced", texts=[INTERRUPTED])
    at = state_at(checkpoint, "0.20.0-pre.3")
    assert at.state == ReleaseState.NOT_YET_REPRODUCED
    assert at.state not in (ReleaseState.UNREACHABLE, ReleaseState.NOT_RAISED)
    assert at.label == f"raised in 0.20.0-pre.3 with {HAND_MADE}; not yet reproduced"
    assert [c.setup for c in at.claims] == [HAND_MADE]


def test_the_state_at_0_19_1_is_not_raised_until_a_run_confirms_it(checkpoint):
    assert state_at(checkpoint, "0.19.1").state == ReleaseState.NOT_RAISED
    absence = learner_builder_absence(checkpoint)
    record_run(checkpoint, absence, "reproduced", texts=["Can save the state.: RecorderError(..)"])
    at = state_at(checkpoint, "v0.19.1")
    assert (at.release, at.state) == ("0.19.1", ReleaseState.UNREACHABLE)
    assert "burn prints Can save the state. instead" in at.label
    proof = at.claims[0].proof
    assert "learner-builder-directory-at-model-path" in proof and "RecorderError" in proof


def test_an_absence_scenario_confirms_only_the_row_of_its_release_and_set_up(checkpoint):
    record_run(checkpoint, link_absence(checkpoint), "reproduced", texts=[INTERRUPTED])
    states = {c.versions: c.state for c in claims_for(checkpoint)}
    assert states == {
        "0.20.0-pre.1 – 0.20.0-pre.5": ReleaseState.NOT_YET_REPRODUCED,
        "main": ReleaseState.UNREACHABLE,
        "0.13.0 – 0.19.1": ReleaseState.NOT_RAISED,
    }


def test_an_absence_run_that_prints_the_message_drifts_its_claim(checkpoint):
    absence = link_absence(checkpoint)
    record_run(checkpoint, absence, "reproduced", texts=[f"{MESSAGE}: Io(..)"])
    assert state_at(checkpoint, "main").state == ReleaseState.DRIFTED


def test_releases_without_a_row_have_no_claim_or_are_not_in_the_release(checkpoint):
    at = state_at(checkpoint, "0.10.0")
    assert (at.state, at.label) == (
        ReleaseState.NO_CLAIM,
        "burn 0.10.0 has the line; errorkb has examined no set-up at 0.10.0",
    )
    assert state_at(checkpoint, "0.20.0-pre.6").state == ReleaseState.NO_CLAIM
    at = state_at(checkpoint, "0.9.0")
    assert (at.state, at.label) == (ReleaseState.NOT_IN_RELEASE, "burn 0.9.0 has no such line")


def test_a_proof_scenario_in_range_verifies_the_raised_row(checkpoint):
    scenario = link_scenario(
        checkpoint,
        "hand-made-file-checkpointer",
        release="v0.20.0-pre.3",
        setup="hand-made",
        setup_summary=HAND_MADE,
    )
    prove(checkpoint, scenario)
    at = state_at(checkpoint, "0.20.0-pre.1")
    assert at.state == ReleaseState.VERIFIED
    assert at.label == f"raised in 0.20.0-pre.1 with {HAND_MADE}; reproduced"
    assert "hand-made-file-checkpointer ran on cpu" in at.claims[0].proof
    assert at.claims[0].run.observed == f"{MESSAGE}: Io(..)"


def test_a_scenario_outside_every_row_claims_its_own_release_and_set_up(entry):
    prove(entry, link_scenario(entry, setup_summary="a hand-built LearningCheckpointer"))
    (claim,) = claims_for(entry)
    assert (claim.versions, claim.outcome, claim.state) == ("main", "raised", ReleaseState.VERIFIED)
    assert state_at(entry, "main").state == ReleaseState.VERIFIED
    assert entry_summary(entry) == (
        "raised in main with a hand-built LearningCheckpointer (reproduced)"
    )


def test_the_summary_says_where_it_is_raised_and_that_other_set_ups_never_print_it(checkpoint):
    record_run(checkpoint, link_absence(checkpoint), "reproduced", texts=[INTERRUPTED])
    assert entry_summary(checkpoint) == (
        f"raised in 0.20.0-pre.1 – 0.20.0-pre.5 with {HAND_MADE} (not yet reproduced); "
        "the 2 other set-ups examined never print it (a run confirmed 1 of them)"
    )
    wide = state_at(checkpoint, None)
    assert wide.release is None and wide.state == ReleaseState.NOT_YET_REPRODUCED
    assert wide.label == entry_summary(checkpoint) and len(wide.claims) == 3


def test_an_entry_only_ever_not_raised_is_summed_up_as_never_printed(entry):
    record_run(entry, link_absence(entry), "reproduced", texts=[INTERRUPTED])
    assert state_at(entry, None).state == ReleaseState.UNREACHABLE
    assert entry_summary(entry) == (
        "burn never prints it with the set-up examined (a run confirmed it)"
    )


def test_an_entry_with_nothing_examined_says_so(entry):
    assert claims_for(entry) == []
    assert state_at(entry, None).state == ReleaseState.NO_CLAIM
    assert entry_summary(entry) == "no release or set-up examined yet"
    at = state_at(entry, "0.19.1")
    # No scan of burn's releases has said whether 0.19.1 holds the line: it claims nothing.
    assert (at.state, at.label) == (
        ReleaseState.NO_CLAIM,
        "errorkb has examined no set-up at 0.19.1",
    )


@pytest.mark.parametrize("release", ["latest", "0.19.1; drop", "", "v"])
def test_it_refuses_a_name_that_is_no_release(checkpoint, release):
    with pytest.raises(UnknownRelease, match="is not a release"):
        state_at(checkpoint, release)


def test_many_entries_get_the_same_claims_in_a_fixed_number_of_queries(
    checkpoint, entry, django_assert_max_num_queries
):
    record_run(checkpoint, link_absence(checkpoint), "reproduced", texts=[INTERRUPTED])
    prove(entry, link_scenario(entry))
    with django_assert_max_num_queries(7):
        many = claims_of_entries([checkpoint, entry])
    assert many == {checkpoint.pk: claims_for(checkpoint), entry.pk: claims_for(entry)}


def test_the_summary_groups_ranges_by_set_up_and_counts_many_set_ups():
    two = checkpoint_entry(
        appliesTo=[
            row("0.13.0 – 0.19.1", "set-up A", "raised", MESSAGE),
            row("0.10.0 – 0.12.1", "set-up A", "raised", MESSAGE),
            row("main", "set-up B", "raised", MESSAGE),
        ]
    )
    assert entry_summary(two) == (
        "raised in 0.10.0 – 0.12.1 and 0.13.0 – 0.19.1 with set-up A, and in main with set-up B "
        "(not yet reproduced)"
    )
    many = checkpoint_entry(
        slug="many",
        errorMessage="Many set-ups.",
        messagePattern=r"Many set-ups\.",
        id="0123456789abcdef",
        appliesTo=[
            row(versions, setup, "raised", "Many set-ups.")
            for versions, setup in (("0.13.0", "A"), ("0.10.0 – 0.11.0", "B"), ("main", "C"))
        ],
    )
    assert (
        entry_summary(many) == "raised between 0.10.0 and main with 3 set-ups (not yet reproduced)"
    )
