"""Every curated text has a documented maximum (kb.record.lengths), refused on import, upload,
admin and scan with the record and the field named; a page clips whatever got past them."""

import pytest

from errorkb.kb.models import ErrorEntry
from errorkb.kb.record.lengths import DOCUMENT_LENGTH, ITEM_LENGTH, ITEMS, MESSAGE_LENGTH, RELEASES
from errorkb.kb.record.validation import InvalidRecord, validate_record
from errorkb.upstream.sites.error_sites import find_sites
from tests.admin.admin_client import change_post, client_for
from tests.builders import applies_to_row, import_records, make_record
from tests.kb.dataset.test_hostile_imports import (
    as_bytes,
    existing,  # noqa: F401 (a fixture)
    refused_by_command,
    refused_by_upload,
    uploader,  # noqa: F401 (a fixture)
)
from tests.kb.people import editor

pytestmark = pytest.mark.django_db


def _raised_rows(count: int) -> list[dict]:
    row = {"filePath": "src/lib.rs", "lineNumber": 1}
    return [{"release": f"0.{n}.0", "commit": f"{n:07x}", **row} for n in range(count)]


# (overrides of a valid record, the field the refusal names, words of the reason)
TOO_LONG = [
    ({"documentation": "d" * (DOCUMENT_LENGTH + 1)}, "'documentation'", "longer than 50000"),
    ({"sourceCode": "s" * (DOCUMENT_LENGTH + 1)}, "'sourceCode'", "longer than 50000"),
    ({"exampleFix": "x" * (DOCUMENT_LENGTH + 1)}, "'exampleFix'", "longer than 50000"),
    ({"tryCatchPattern": "t" * (DOCUMENT_LENGTH + 1)}, "'tryCatchPattern'", "longer than 50000"),
    ({"errorMessage": "m" * (MESSAGE_LENGTH + 1)}, "'errorMessage'", "longer than 2000"),
    ({"messagePattern": "p" * (MESSAGE_LENGTH + 1)}, "'messagePattern'", "longer than 2000"),
    ({"solutions": ["s" * (ITEM_LENGTH + 1)]}, "'solutions'", "item longer than 2000"),
    ({"preventionTips": ["tip"] * (ITEMS + 1)}, "'preventionTips'", "more than 100 items"),
    (
        {"appliesTo": [applies_to_row(note="n" * (ITEM_LENGTH + 1))]},
        "'appliesTo[0].note'",
        "longer than 2000",
    ),
    ({"appliesTo": [applies_to_row()] * (ITEMS + 1)}, "'appliesTo'", "more than 100 items"),
    ({"raisedIn": _raised_rows(RELEASES + 1)}, "'raisedIn'", "more than 1000 items"),
]
TOO_LONG_IDS = [
    "documentation",
    "source-code",
    "example-fix",
    "try-catch",
    "message",
    "pattern",
    "solution-item",
    "prevention-tips",
    "applies-to-note",
    "applies-to-rows",
    "raised-in-rows",
]


@pytest.mark.parametrize(("overrides", "where", "why"), TOO_LONG, ids=TOO_LONG_IDS)
def test_validation_refuses_text_past_its_maximum(overrides, where, why):
    record = make_record("Long record.", **overrides)
    with pytest.raises(InvalidRecord) as caught:
        validate_record(record, index=3)
    message = str(caught.value)
    assert f"record {record['id']} (#3), field {where}" in message and why in message, message


@pytest.mark.parametrize(("overrides", "where", "why"), TOO_LONG[:2], ids=TOO_LONG_IDS[:2])
def test_the_command_and_the_upload_refuse_text_past_its_maximum(
    tmp_path,
    existing,  # noqa: F811
    uploader,  # noqa: F811
    overrides,
    where,
    why,
):
    record = make_record("Long record.", **overrides)
    message = refused_by_command(tmp_path, as_bytes([record]), existing)
    assert record["id"] in message and where in message and why in message, message
    page = refused_by_upload(uploader, as_bytes([record]), existing)
    assert f"record {record['id']} (#0), field {where}" in page and why in page, page


def test_text_at_its_maximum_is_accepted():
    record = make_record(
        "m" * MESSAGE_LENGTH,
        slug="long-message",
        documentation="d" * DOCUMENT_LENGTH,
        solutions=["s" * ITEM_LENGTH] * ITEMS,
    )
    validate_record(record, index=0)


def test_the_admin_refuses_text_past_its_maximum():
    entry = import_records(make_record("Admin long record."))[0]
    client = client_for(editor())
    url = f"/admin/kb/errorentry/{entry.pk}/change/"
    too_long = change_post(entry, documentation="d" * (DOCUMENT_LENGTH + 1))
    response = client.post(url, too_long)
    assert response.status_code == 200  # the form again, with the error
    assert "at most 50000 characters" in response.content.decode()
    solutions = change_post(entry)
    solutions.update({"solutions_count": "1", "solutions_0": "s" * (ITEM_LENGTH + 1)})
    response = client.post(url, solutions)
    assert "Item 1 is longer than 2000 characters." in response.content.decode()
    assert ErrorEntry.objects.get(pk=entry.pk).documentation == entry.documentation


def test_the_scanner_leaves_out_a_message_longer_than_an_entry_holds():
    long = "x" * (MESSAGE_LENGTH + 1)
    source = f'fn f() {{\n    panic!("{long}");\n    panic!("A short message.");\n}}\n'
    messages = [site.message for site in find_sites("src/lib.rs", source.encode())]
    assert messages == ["A short message."]


def test_a_page_clips_text_written_past_the_limits(client):
    entry = import_records(make_record("Huge documentation."))[0]
    # QuerySet.update() skips every check, as raw SQL would.
    huge = "word " * 400_000  # 2 MB
    ErrorEntry.objects.filter(pk=entry.pk).update(
        documentation=huge, example_fix=huge, solutions=["tip " * 10_000] * 1_000
    )
    response = client.get(entry.get_absolute_url())
    assert response.status_code == 200
    # Two clipped texts and 100 clipped items, with their markup: under 1 MB of the 42 stored.
    assert len(response.content) < 2**20


@pytest.mark.parametrize(
    ("overrides", "where"),
    [
        ({"analyzedAt": "9" * 1_000_000}, "'analyzedAt'"),
        ({"related": ["x" * 1_000_000]}, "'related'"),
        (
            {"lineNumber": int("9" * 4000), "sourceCodeStart": None, "sourceCodeEnd": None},
            "'lineNumber'",
        ),
    ],
    ids=["timestamp", "related", "number"],
)
def test_a_refusal_quotes_at_most_a_line_of_the_value(overrides, where):
    record = make_record("Long value.", **overrides)
    with pytest.raises(InvalidRecord) as caught:
        validate_record(record, index=0)
    message = str(caught.value)
    assert where in message and len(message) < 300, message[:400]
