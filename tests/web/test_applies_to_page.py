"""The entry page's "Releases and set-ups" table: one row per appliesTo row, with its source."""

import pytest

from tests.builders import BURN_MAIN, applies_to_row, import_records, make_record, raised_row

pytestmark = pytest.mark.django_db


def page(client, record) -> str:
    import_records(record)
    return client.get(f"/errors/{record['id']}/").content.decode()


def table_of(html: str) -> str:
    start = html.index('id="applies-to"')
    return html[start : html.index("</table>", start)]


def test_it_shows_a_row_per_release_and_setup_with_its_outcome(client):
    rows = [raised_row(), applies_to_row(note="The learner's next delete then panics.")]
    table = table_of(page(client, make_record("Can save model checkpoint.", appliesTo=rows)))
    assert table.count("<tr data-outcome=") == 2
    assert table.index('data-outcome="raised"') < table.index('data-outcome="not raised"')
    assert "hand-built LearningCheckpointer, no interrupter" in table
    assert "0.20.0 – main" in table
    assert "Can save model checkpoint.: {err}" in table
    assert "The learner&#x27;s next delete then panics." in table


def test_it_marks_the_text_seen_instead_when_the_message_is_not_raised(client):
    row = applies_to_row(seen="Error when saving the state: {err}")
    table = table_of(page(client, make_record("Can save model checkpoint.", appliesTo=[row])))
    cells = table[table.index('data-outcome="not raised"') :]
    assert cells.index('class="instead"') < cells.index("Error when saving the state: {err}")


def test_it_links_each_row_to_the_cited_line_in_the_entrys_repository(client):
    rows = [raised_row()]
    record = make_record("Can save model checkpoint.", repo="tracel-ai/burn", appliesTo=rows)
    table = table_of(page(client, record))
    url = (
        f"https://github.com/tracel-ai/burn/blob/{BURN_MAIN}/"
        "crates/burn-train/src/learner/base.rs#L178"
    )
    assert f'href="{url}"' in table
    assert f"crates/burn-train/src/learner/base.rs:178@{BURN_MAIN[:10]}" in table


def test_it_escapes_the_rows(client):
    html = page(client, make_record("Escaped.", appliesTo=[raised_row(seen="<script>x</script>")]))
    assert "<script>x</script>" not in html
    assert "&lt;script&gt;x&lt;/script&gt;" in table_of(html)


@pytest.mark.parametrize("applies_to", [None, []])
def test_it_shows_no_table_when_no_row_is_stated(client, applies_to):
    record = make_record("No rows.")
    if applies_to is not None:
        record["appliesTo"] = applies_to
    html = page(client, record)
    assert 'id="applies-to"' not in html
    assert "Releases and set-ups" not in html


def test_it_places_the_table_after_when_it_happens(client):
    html = page(client, make_record("Placed.", appliesTo=[raised_row()]))
    assert html.index('id="when"') < html.index('id="applies-to"') < html.index('id="verification"')
