"""GET /api/errors/<id> serves firesAt inside the record, the OpenAPI document declares its
rows, and the entry page shows them in "Where it fires", each linked to its lines."""

import pytest

from tests.builders import BURN_MAIN, import_records, make_record
from tests.kb.record.test_fires_at import MESSAGE, fires_at_row

pytestmark = pytest.mark.django_db


def test_it_serves_the_rows_inside_the_record(client):
    rows = [fires_at_row(), fires_at_row(versions="0.10.0", firstLine=108, lastLine=117)]
    record = make_record(MESSAGE, firesAt=rows)
    import_records(record)
    body = client.get(f"/api/errors/{record['id']}").json()
    assert body["record"]["firesAt"] == rows
    assert list(body["record"])[-1] == "firesAt"


def test_it_leaves_the_key_out_when_the_entry_does_not_state_it(client):
    record = make_record(MESSAGE)
    import_records(record)
    assert "firesAt" not in client.get(f"/api/errors/{record['id']}").json()["record"]


def test_the_list_serves_the_rows_too(client):
    import_records(make_record(MESSAGE, firesAt=[fires_at_row()]))
    assert client.get("/api/errors/").json()["results"][0]["firesAt"] == [fires_at_row()]


def test_the_openapi_document_describes_the_rows_as_optional(client):
    schema = client.get("/api/schema/?format=json").json()["components"]["schemas"]
    record = schema["ErrorRecord"]
    assert "firesAt" in record["properties"]
    assert "firesAt" not in record.get("required", [])
    assert record["properties"]["firesAt"]["maxItems"] == 100
    row = schema["FiresAtRow"]
    assert set(row["required"]) == {"versions", "filePath", "firstLine", "lastLine", "commit"}
    assert row["additionalProperties"] is False
    assert row["properties"]["firstLine"]["minimum"] == 1


def page(client, record) -> str:
    import_records(record)
    return client.get(f"/errors/{record['id']}/").content.decode()


def table_of(html: str) -> str:
    start = html.index('id="fires-at-table"')
    return html[start : html.index("</table>", start)]


def test_it_shows_a_row_per_release_range_linked_to_its_lines_on_github(client):
    rows = [fires_at_row(versions="0.19.0 – 0.20.1", firstLine=197, lastLine=222), fires_at_row()]
    html = page(client, make_record(MESSAGE, repo="tracel-ai/burn", firesAt=rows))
    assert "<h2>Where it fires</h2>" in html
    table = table_of(html)
    assert table.count("<tr>") == 3  # the head and two rows
    assert table.index("0.19.0 – 0.20.1") < table.index("0.22.0-pre.1 – main")
    url = (
        f"https://github.com/tracel-ai/burn/blob/{BURN_MAIN}/"
        "crates/burn-train/src/renderer/tui/progress.rs#L198-L226"
    )
    assert f'href="{url}"' in table
    assert f"crates/burn-train/src/renderer/tui/progress.rs:198-226@{BURN_MAIN[:10]}" in table


def test_it_escapes_the_rows(client):
    rows = [fires_at_row(filePath="<script>x</script>.rs")]
    html = page(client, make_record(MESSAGE, firesAt=rows))
    assert "<script>x</script>" not in html
    assert "&lt;script&gt;x&lt;/script&gt;.rs" in table_of(html)


@pytest.mark.parametrize("fires_at", [None, []])
def test_it_shows_no_section_when_no_row_is_stated(client, fires_at):
    record = make_record(MESSAGE)
    if fires_at is not None:
        record["firesAt"] = fires_at
    assert 'id="fires-at"' not in page(client, record)
