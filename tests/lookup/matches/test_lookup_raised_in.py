"""A pasted panic fits the releases the upstream scanner found raising it at that line."""

import pytest

from tests.builders import import_records, make_record, raised_row
from tests.lookup.texts import rust_panic
from tests.scanned import BASE_RS, raised_in_row, scan_releases

pytestmark = pytest.mark.django_db

REPO = "tracel-ai/burn"
MESSAGE = "Can save model checkpoint."
REGISTRY = "/home/me/.cargo/registry/src/index.crates.io-6f17d22bba15001f"
SCANNED = ("0.13.0", "0.14.0", "0.15.0")
ROWS = [raised_in_row("0.13.0"), raised_in_row("0.14.0"), raised_in_row("0.15.0", 64)]


def entry_with(rows: list[dict], *, scanned=SCANNED, **overrides):
    # Pinned at another line of the file: only the raisedIn rows name 61 and 64.
    fields = {"repo": REPO, "filePath": BASE_RS, "raisedIn": rows, **overrides}
    import_records(make_record(MESSAGE, **fields))
    scan_releases(REPO, *scanned)


def look_up(client, path: str, line: int) -> dict:
    text = rust_panic(path, line, f"{MESSAGE}: Os {{ code: 28 }}")
    response = client.post("/api/lookup", {"text": text}, content_type="application/json")
    assert response.status_code == 200, response.content
    (match,) = response.json()["matches"]
    return match


@pytest.mark.parametrize(
    ("path", "line", "releases"),
    [
        (BASE_RS, 61, ["0.13.0 – 0.14.0"]),
        (BASE_RS, 64, ["0.15.0"]),
        (f"{REGISTRY}/burn-train-0.14.0/src/learner/base.rs", 61, ["0.14.0"]),
        (f"{REGISTRY}/burn-train-0.15.0/src/learner/base.rs", 64, ["0.15.0"]),
        (f"/work/burn/{BASE_RS}", 61, ["0.13.0 – 0.14.0"]),
    ],
)
def test_a_panic_at_a_raised_line_fits_its_releases(client, path, line, releases):
    entry_with(ROWS)
    match = look_up(client, path, line)
    assert match["fits"] == "line"
    assert match["releases"] == releases


def test_a_registry_release_raising_it_elsewhere_fits_the_file_only(client):
    entry_with(ROWS)
    match = look_up(client, f"{REGISTRY}/burn-train-0.15.0/src/learner/base.rs", 61)
    assert (match["fits"], match["releases"]) == ("file", [])


def test_a_panic_at_a_line_no_release_raises_fits_the_file_only(client):
    entry_with(ROWS)
    match = look_up(client, BASE_RS, 99)
    assert (match["fits"], match["releases"]) == ("file", [])


def test_a_file_only_the_releases_raise_it_in_is_the_entrys_file_too(client):
    entry_with(ROWS, filePath="crates/burn-train/src/learner/train.rs")
    assert look_up(client, BASE_RS, 64)["fits"] == "line"
    match = look_up(client, BASE_RS, 99)
    assert (match["fits"], match["releases"]) == ("file", [])


def test_a_scanned_release_without_the_row_splits_the_range(client):
    entry_with([raised_in_row("0.13.0"), raised_in_row("0.15.0")])
    assert look_up(client, BASE_RS, 61)["releases"] == ["0.13.0", "0.15.0"]


def test_a_new_scan_reaches_the_built_index(client):
    entry_with([raised_in_row("0.13.0"), raised_in_row("0.15.0")], scanned=("0.13.0", "0.15.0"))
    assert look_up(client, BASE_RS, 61)["releases"] == ["0.13.0 – 0.15.0"]
    scan_releases(REPO, "0.14.0")
    assert look_up(client, BASE_RS, 61)["releases"] == ["0.13.0", "0.15.0"]


def test_applies_to_ranges_come_first_and_a_range_is_listed_once(client):
    applies = [
        raised_row(versions="0.13.0 – 0.14.0", lineNumber=61),
        raised_row(versions="0.20.0 – main", lineNumber=61),
    ]
    entry_with(ROWS, appliesTo=applies)
    assert look_up(client, BASE_RS, 61)["releases"] == ["0.13.0 – 0.14.0", "0.20.0 – main"]


def test_an_entry_never_release_scanned_fits_by_its_own_line(client):
    entry_with(None, scanned=())
    match = look_up(client, BASE_RS, 12)
    assert (match["fits"], match["releases"]) == ("line", [])
