"""Where the text says a message was raised decides between entries with the same message."""

import pytest

from errorkb.lookup.matches.release_fits import version_in
from errorkb.lookup.story.locations import Location, find_locations, path_fits
from tests.builders import import_records, make_record
from tests.lookup.texts import python_traceback, rust_panic, wrapped


def raised_at(message: str, path: str, line: int, **overrides) -> dict:
    """A record of `message` raised at path:line, its source shown around that line."""
    fields = {
        "filePath": path,
        "lineNumber": line,
        "sourceCode": "\n".join(f"// line {n}" for n in range(line - 2, line + 3)),
        "sourceCodeStart": line - 2,
        "sourceCodeEnd": line + 2,
        "slug": f"{message.lower().rstrip('.').replace(' ', '-')}-{path.split('/')[-1][:-3]}",
    }
    return make_record(message, **{**fields, **overrides})


def look_up(client, text: str) -> list[dict]:
    response = client.post("/api/lookup", {"text": text}, content_type="application/json")
    assert response.status_code == 200, response.content
    return response.json()["matches"]


@pytest.fixture
def same_message_at_two_files(db):
    return import_records(
        raised_at("Can load the record.", "crates/core/src/record/file.rs", 40),
        raised_at("Can load the record.", "crates/core/src/record/memory.rs", 7),
    )


@pytest.mark.parametrize("which", [0, 1])
def test_the_same_message_at_two_files_resolves_to_the_one_the_panic_names(
    client, same_message_at_two_files, which
):
    entry = same_message_at_two_files[which]
    text = wrapped(rust_panic(entry.file_path, entry.line_number, "Can load the record.: Io"))

    matches = look_up(client, text)

    assert [m["id"] for m in matches][0] == entry.id
    assert [m["fits"] for m in matches] == ["line", ""]


def test_without_a_location_both_are_listed(client, same_message_at_two_files):
    matches = look_up(client, "Can load the record.: Io")

    assert {m["id"] for m in matches} == {e.id for e in same_message_at_two_files}
    assert {m["fits"] for m in matches} == {""}


def test_a_panic_at_the_entrys_file_on_another_line_fits_the_file(
    client, same_message_at_two_files
):
    entry = same_message_at_two_files[1]
    matches = look_up(client, rust_panic(entry.file_path, 99, "Can load the record.: Io"))

    assert (matches[0]["id"], matches[0]["fits"]) == (entry.id, "file")


def test_a_python_traceback_names_the_raising_frame(client, db):
    torch, numpy = import_records(
        raised_at(
            "Attempting to deserialize object on a CUDA device",
            "torch/serialization.py",
            250,
            repo="pytorch/pytorch",
            errorType="exception",
            errorClass="RuntimeError",
        ),
        raised_at(
            "Attempting to deserialize object on a CUDA device",
            "loader/cuda.py",
            12,
            repo="acme/loader",
            errorType="exception",
        ),
    )
    site = "/opt/venv/lib/python3.11/site-packages"
    traceback = python_traceback(
        [
            ("/home/me/train.py", 30, "<module>"),
            (f"{site}/torch/serialization.py", 1004, "load"),
            (f"{site}/torch/serialization.py", 250, "default_restore_location"),
        ],
        "RuntimeError: Attempting to deserialize object on a CUDA device but "
        "torch.cuda.is_available() is False.",
    )

    matches = look_up(client, wrapped(traceback))

    assert [(m["id"], m["fits"]) for m in matches] == [(torch.id, "line"), (numpy.id, "")]
    assert matches[0]["location"]["path"] == f"{site}/torch/serialization.py"
    assert matches[0]["location"]["line"] == 250


def test_it_finds_rust_and_python_locations_in_text_order():
    text = "\n".join(
        [
            "thread 'tokio-runtime-worker' panicked at src\\lib.rs:3:9:",
            "boom",
            python_traceback([("a/b/c.py", 2, "f")], "ValueError: x"),
            "thread 'main' panicked at 'old', ./crates/a/src/b.rs:10:5",
        ]
    )

    found = [(loc.kind, loc.path, loc.line, loc.text_line) for loc in find_locations(text)]

    assert found == [
        ("rust-panic", "src/lib.rs", 3, 1),
        ("python-frame", "a/b/c.py", 2, 4),
        ("rust-panic", "crates/a/src/b.rs", 10, 7),
    ]


@pytest.mark.parametrize(
    ("pasted", "repo_path", "fits"),
    [
        ("crates/burn-train/src/learner/base.rs", "crates/burn-train/src/learner/base.rs", True),
        (
            "/src/burn/crates/burn-train/src/learner/base.rs",
            "crates/burn-train/src/learner/base.rs",
            True,
        ),
        (
            "/r/.cargo/registry/src/index.crates.io-6f17d22bba15001f/burn-train-0.19.1/src/learner/base.rs",
            "crates/burn-train/src/learner/base.rs",
            True,
        ),
        (
            "/r/.cargo/registry/src/i/burn-core-0.19.1/src/lib.rs",
            "crates/burn-train/src/lib.rs",
            False,
        ),
        (
            "/venv/lib/python3.11/site-packages/torch/serialization.py",
            "torch/serialization.py",
            True,
        ),
        ("src/lib.rs", "crates/burn-train/src/lib.rs", False),  # too short to tell apart
        ("crates/burn-train/src/learner/base.rs", "crates/burn-train/src/learner/mod.rs", False),
        ("my-crates/burn-train/src/base.rs", "crates/burn-train/src/base.rs", False),
    ],
)
def test_it_matches_installed_paths_to_the_repositorys_own(pasted, repo_path, fits):
    location = Location(pasted, 1, None, 1, "rust-panic")
    assert path_fits(location, repo_path) is fits


@pytest.mark.parametrize(
    ("version", "versions", "inside"),
    [
        ("0.19.1", "0.13.0 – 0.19.1", True),
        ("0.13.0", "0.13.0 – 0.19.1", True),
        ("0.20.0", "0.13.0 – 0.19.1", False),
        ("0.22.0-pre.1", "0.22.0-pre.1 – main", True),
        ("0.22.0", "0.22.0-pre.1 – main", True),
        ("0.21.0", "0.22.0-pre.1 – main", False),
        ("0.21.0", "0.21.0", True),
        ("0.21.1", "0.21.0", False),
    ],
)
def test_it_places_a_release_in_a_range(version, versions, inside):
    assert version_in(version, versions) is inside
