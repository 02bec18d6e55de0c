"""The single Set: what it finds, where, and that it follows every change of what is published."""

import pytest
from django.db import transaction

from errorkb.kb.changes import entries_changed
from errorkb.kb.models import ErrorEntry
from errorkb.lookup import lookups
from errorkb.lookup.lookups import look_up
from errorkb.lookup.matches.pattern_set import PatternSet
from errorkb.lookup.matches.patterns import relax, specificity
from tests.builders import import_records, make_record


@pytest.mark.parametrize(
    ("pattern", "relaxed", "exact_up_to"),
    [
        (r"Can save model checkpoint\.", r"(?m)Can save model checkpoint\.", None),
        (r"Training interrupted: .{1,1000}", r"(?m)Training interrupted: .{1,}", 1000),
        (r"a{2,3}b{64}", r"(?m)a{2,3}b{64}", None),
        (r"x{100,}", r"(?m)x{64,}", 0),
        (r"[{]{1,500}\{1,900\}", r"(?m)[{]{1,}\{1,900\}", 500),
        (r"\Q.{1,999}\E", r"(?m)\Q.{1,999}\E", None),
    ],
)
def test_it_relaxes_only_large_counted_repetitions(pattern, relaxed, exact_up_to):
    loosened = relax(pattern)
    assert (loosened.pattern, loosened.exact_up_to) == (relaxed, exact_up_to)


def test_a_more_literal_pattern_is_more_specific():
    assert specificity(r"Failed to load record") > specificity(r"Failed to load .{1,100}")
    assert specificity(r"Can save\.") == len("Can save.")


def test_on_a_line_longer_than_a_bound_the_pattern_itself_decides():
    patterns = PatternSet([r"A.{1,100}B"])
    text = "A" + "x" * 150 + "B\nA" + "x" * 50 + "B"

    hits = patterns.scan(text).hits

    assert [(h.text_line, h.end - h.start) for h in hits] == [(2, 52)]


def test_anchors_mean_a_lines_start_and_end():
    patterns = PatternSet([r"^Error \d+$", r"^Boom$"])

    hits = patterns.scan("log\nError 12\nlog Boom\nBoom\n").hits

    assert [(h.index, h.text_line) for h in hits] == [(0, 2), (1, 4)]


def test_each_pattern_is_reported_once_at_its_first_match():
    patterns = PatternSet([r"late", r"early"])

    hits = patterns.scan("\n".join(["x"] * 50 + ["early", "late", "early"] + ["y"] * 50)).hits

    assert [(h.index, h.text_line) for h in hits] == [(1, 51), (0, 52)]


def test_a_non_utf8_surrogate_in_the_text_does_not_break_the_search():
    patterns = PatternSet([r"Engine stalled\."])

    hits = patterns.scan("bad \udcff byte\nEngine stalled.").hits

    assert [(h.text_line, h.matched) for h in hits] == [(2, "Engine stalled.")]


def changed(entry, **fields):
    """A bulk write of the entry, which says what it changed as kb's write paths do."""
    with transaction.atomic():
        ErrorEntry.objects.filter(pk=entry.pk).update(**fields)
        entries_changed([entry.pk])


def test_a_changed_pattern_is_used_by_the_next_lookup(db):
    (entry,) = import_records(make_record("Engine stalled."))
    assert look_up("Engine stalled.").matches

    changed(entry, message_pattern=r"Engine halted\.")

    assert not look_up("Engine stalled.").matches
    assert [m.entry.id for m in look_up("Engine halted.").matches] == [entry.id]


def test_an_unpublished_entry_is_not_found_by_the_next_lookup(db):
    (entry,) = import_records(make_record("Engine stalled."))
    assert look_up("Engine stalled.").matches

    changed(entry, status=ErrorEntry.Status.RETIRED)

    assert look_up("Engine stalled.").matches == []


def test_drafts_are_never_found(db):
    import_records(make_record("Engine stalled.", status="draft"))

    assert look_up("Engine stalled.").matches == []


def test_a_change_that_leaves_the_patterns_alone_reuses_the_compiled_set(db):
    (entry,) = import_records(make_record("Engine stalled."))
    look_up("Engine stalled.")
    compiled = lookups.current_index().patterns

    changed(entry, documentation="Reworded.", line_number=40)

    index = lookups.current_index()
    assert index.patterns is compiled
    assert index.known[0].line_number == 40
