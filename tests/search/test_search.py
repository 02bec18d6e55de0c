"""search(): ranked, highlighted, published entries only, never stale, forgiving of typos."""

import pytest
from django.db import connection

from errorkb.kb import editing
from errorkb.kb.models import ErrorEntry, Tag
from errorkb.search import index
from errorkb.search.index import search
from errorkb.search.snippets import FIELDS, LABELS
from tests.builders import import_records, load_demo, make_record

pytestmark = pytest.mark.django_db


def messages(query: str, **kwargs) -> list[str]:
    return [hit.entry.error_message for hit in search(query, **kwargs).hits]


def snippets(query: str) -> dict[str, str]:
    (hit,) = search(query).hits
    return {snippet.field: snippet.html for snippet in hit.snippets}


def test_it_ranks_a_message_hit_before_a_hit_only_in_the_solutions():
    import_records(
        make_record("Engine stalled.", solutions=["Restart the turbine."], filePath="a.rs"),
        make_record("Turbine overheated.", filePath="b.rs"),
    )
    assert messages("turbine") == ["Turbine overheated.", "Engine stalled."]


def test_it_ranks_a_tag_hit_before_a_hit_only_in_the_documentation():
    import_records(
        make_record("Engine stalled.", documentation="The turbine seized.", filePath="a.rs"),
        make_record("Fan stalled.", tags=["turbine"], filePath="b.rs"),
    )
    assert messages("turbine") == ["Fan stalled.", "Engine stalled."]


def test_it_marks_matches_in_escaped_text():
    import_records(make_record("Bad <script>alert(1)</script> fuel & oil.", slug="bad-script"))
    html = snippets("fuel")["errorMessage"]
    assert html == "Bad &lt;script&gt;alert(1)&lt;/script&gt; <mark>fuel</mark> &amp; oil."


def test_it_finds_words_with_another_ending_and_marks_them():
    import_records(make_record("Checkpoints were lost."))
    assert snippets("checkpoint")["errorMessage"] == "<mark>Checkpoints</mark> were lost."


def test_it_finds_entries_by_tag_and_by_file_path():
    import_records(
        make_record("One.", tags=["burnpack"], filePath="src/one.rs"),
        make_record("Two.", tags=["rust"], filePath="crates/loader/src/base.rs"),
    )
    assert messages("burnpack") == ["One."]
    assert messages("loader/src/base.rs") == ["Two."]
    assert snippets("burnpack")["tags"] == "<mark>burnpack</mark>"


def test_it_shows_a_long_field_round_its_first_match():
    text = " ".join(["filler"] * 80) + " the gauge broke " + " ".join(["more"] * 80)
    import_records(make_record("Gauge.", documentation=text))
    html = snippets("broke")["documentation"]
    assert "<mark>broke</mark>" in html and html.startswith("…") and html.endswith("…")
    assert len(html) < 300


def test_it_never_finds_an_unpublished_entry():
    import_records(
        make_record("Draft rocket.", status="draft"),
        make_record("Retired rocket.", status="retired"),
        make_record("Published rocket."),
    )
    assert messages("rocket") == ["Published rocket."]
    assert search("rocket").count == 1


def test_it_shows_an_update_at_once():
    (entry,) = import_records(make_record("Valve stuck."))
    ErrorEntry.objects.filter(pk=entry.pk).update(error_message="Hatch stuck.")
    assert messages("hatch") == ["Hatch stuck."]
    assert messages("valve") == []


def test_it_shows_a_raw_sql_update_at_once():
    (entry,) = import_records(make_record("Valve stuck."))
    table = connection.ops.quote_name(ErrorEntry._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(f"UPDATE {table} SET documentation = %s WHERE id = %s", ["Zebra.", entry.pk])
    assert messages("zebra") == ["Valve stuck."]


def test_it_shows_a_tag_added_and_a_tag_renamed_at_once():
    # Through kb's write paths: the admin's and the import's, which write the entry's
    # tags_text with its tags.
    (entry,) = import_records(make_record("Valve stuck.", tags=["rust"]))
    with editing.change(entry, None):
        editing.set_tags(entry, ["rust", "pneumatics"])
    assert messages("pneumatics") == ["Valve stuck."]
    editing.rename_tag(Tag.objects.get(name="pneumatics"), "hydraulics")
    assert messages("hydraulics") == ["Valve stuck."]
    assert messages("pneumatics") == []


def test_it_forgets_an_entry_unpublished_at_once():
    (entry,) = import_records(make_record("Valve stuck."))
    ErrorEntry.objects.filter(pk=entry.pk).update(status=ErrorEntry.Status.RETIRED)
    assert messages("valve") == []
    ErrorEntry.objects.filter(pk=entry.pk).update(status=ErrorEntry.Status.PUBLISHED)
    assert messages("valve") == ["Valve stuck."]


def test_it_forgets_a_deleted_entry():
    (entry,) = import_records(make_record("Valve stuck."))
    entry.delete()
    assert messages("valve") == []


def test_it_finds_the_checkpoint_entries_for_a_misspelt_query():
    load_demo()
    found = search("chekpoint", limit=50)
    found_messages = [hit.entry.error_message for hit in found.hits]
    assert {"Can save model checkpoint.", "Can load model checkpoint."} <= set(found_messages)
    snippet = next(s for s in found.hits[0].snippets if s.field == "errorMessage")
    assert "<mark>checkpoint" in snippet.html


def test_it_corrects_a_misspelt_word_of_any_field():
    import_records(
        make_record("Engine stalled.", documentation="The turbocharger seized."),
        make_record("Fan stalled."),
    )
    found = search("turbocharjer")
    assert [hit.entry.error_message for hit in found.hits] == ["Engine stalled."]
    assert "<mark>turbocharger</mark>" in found.hits[0].snippets[0].html


def test_it_keeps_the_known_words_of_a_query_and_corrects_the_misspelt_one():
    import_records(
        make_record("Can save model checkpoint.", filePath="a.rs"),
        make_record("Can load model checkpoint.", filePath="b.rs"),
        make_record("Can save optimizer state.", filePath="c.rs"),
    )
    assert messages("save model chekpoint") == ["Can save model checkpoint."]


def test_it_pages_through_the_matches():
    import_records(*(make_record(f"Rocket {n}.", filePath=f"{n}.rs") for n in range(5)))
    first, second = search("rocket", limit=3), search("rocket", limit=3, offset=3)
    assert (first.count, len(first.hits), second.count, len(second.hits)) == (5, 3, 5, 2)
    assert not {h.entry.id for h in first.hits} & {h.entry.id for h in second.hits}
    assert search("rocket", limit=3, offset=9).count == 5


def test_it_finds_nothing_for_no_words_or_unknown_ones():
    import_records(make_record("Valve stuck."))
    assert search("!!! ...").count == 0
    assert search("qqqqxxzz").hits == []


def test_it_survives_query_syntax_of_either_database():
    import_records(make_record("Valve stuck."))
    queries = ['"valve', "valve AND OR NOT", "valve*", "valve:*", "(valve", "valve & !|", "a\x00"]
    for query in queries:
        search(query)
    assert messages('"valve') == ["Valve stuck."]


def test_it_names_a_snippet_for_every_field_it_can_mark():
    assert set(LABELS) == set(FIELDS)


@pytest.fixture
def max_ranked(monkeypatch):
    monkeypatch.setattr(index, "MAX_RANKED", 3)


@pytest.mark.usefixtures("max_ranked")
def test_it_ranks_and_counts_no_further_than_max_ranked():
    import_records(*(make_record(f"Rocket {n}.", filePath=f"{n}.rs") for n in range(5)))
    found = search("rocket")
    assert (found.count, found.count_capped, len(found.hits)) == (3, True, 3)
    last = search("rocket", limit=2, offset=2)
    assert (last.count, last.count_capped, len(last.hits)) == (3, True, 1)
    past = search("rocket", limit=2, offset=3)
    assert (past.count, past.count_capped, past.hits) == (3, True, [])


@pytest.mark.usefixtures("max_ranked")
def test_a_count_of_exactly_max_ranked_is_not_capped():
    import_records(*(make_record(f"Rocket {n}.", filePath=f"{n}.rs") for n in range(3)))
    found = search("rocket")
    assert (found.count, found.count_capped, len(found.hits)) == (3, False, 3)


@pytest.mark.usefixtures("max_ranked")
def test_a_capped_search_still_ranks_a_message_hit_first():
    # Written first, the documentation hits are the first any scan finds.
    fell = [
        make_record(f"Engine {n}.", documentation="A rocket fell.", filePath=f"{n}.rs")
        for n in range(4)
    ]
    import_records(*fell)
    import_records(make_record("Rocket stalled.", filePath="r.rs"))
    found = search("rocket")
    assert found.count_capped and found.hits[0].entry.error_message == "Rocket stalled."
