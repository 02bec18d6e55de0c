"""The entry page at the reader's release (?release=X): its state, fix and rows first."""

import pytest
from django.utils.html import escape

from tests.verification.builders import link_absence, record_run
from tests.verification.checkpoint_entry import (
    HAND_MADE,
    INTERRUPTED,
    SOLUTIONS,
    checkpoint_entry,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def checkpoint():
    entry = checkpoint_entry()
    record_run(entry, link_absence(entry), "reproduced", texts=[INTERRUPTED])
    return entry


def page(client, entry, query: str = ""):
    return client.get(f"{entry.get_absolute_url()}{query}", HTTP_CACHE_CONTROL="no-cache")


def answer_of(html: str) -> str:
    start = html.index('<section id="answer"')
    return html[start : html.index("</section>", start)]


def test_without_a_release_it_answers_with_the_entry_wide_sentence(client, checkpoint):
    answer = answer_of(page(client, checkpoint).content.decode())
    assert 'data-state="not_yet_reproduced"' in answer
    assert f"Raised in 0.20.0-pre.1 – 0.20.0-pre.5 with {HAND_MADE}" in answer
    assert "never print it (a run confirmed 1 of them)" in answer
    assert escape(checkpoint.summary) in answer
    # The proof in sight is the state's own: no run has tried the hand-made set-up yet.
    assert f"no scenario has run {HAND_MADE} in 0.20.0-pre.1 – 0.20.0-pre.5 yet" in answer
    assert "supervised-disk-full" not in answer  # another set-up's run proves nothing of it


def test_at_a_release_the_proof_shown_is_the_one_of_the_state_shown(client, checkpoint):
    answer = answer_of(page(client, checkpoint, "?release=main").content.decode())
    assert 'data-state="unreachable"' in answer
    assert "scenario supervised-disk-full ran on cpu" in answer


def test_at_a_release_it_answers_that_releases_state_and_marks_its_rows(client, checkpoint):
    html = page(client, checkpoint, "?release=main").content.decode()
    answer = answer_of(html)
    assert 'data-state="unreachable"' in answer and "<strong>burn main:</strong>" in answer
    assert "What to do in main" in answer
    table = html[html.index('id="claims-table"') : html.index("</table>", html.index("claims"))]
    assert table.count('class="at-release"') == 1
    assert '<tr data-outcome="not raised" data-state="unreachable" class="at-release"' in table


def test_the_fix_shown_is_the_one_naming_the_readers_release(client):
    solutions = ["Before 0.20.0: use `a`.", "From 0.20.0 – main: use `b`.", "Anywhere: `c`."]
    entry = checkpoint_entry(solutions=solutions)
    answer = answer_of(page(client, entry, "?release=0.21.0").content.decode())
    assert "From 0.20.0 – main" in answer and "Before 0.20.0" not in answer
    answer = answer_of(page(client, entry).content.decode())
    assert "Before 0.20.0" in answer  # no release: the first
    assert SOLUTIONS[0] not in answer


@pytest.mark.parametrize("release", ["latest", "0.19.1 or so"])
def test_a_release_that_is_none_is_answered_400_with_the_entry_wide_answer(
    client, checkpoint, release
):
    response = page(client, checkpoint, f"?release={release}")
    assert response.status_code == 400
    answer = answer_of(response.content.decode())
    assert "is not a release" in answer and 'id="refused-release"' in answer
    assert 'data-state="not_yet_reproduced"' in answer


def test_an_unknown_entry_is_still_404_whatever_the_release(client):
    response = client.get("/errors/0123456789abcdef/?release=latest")
    assert response.status_code == 404
