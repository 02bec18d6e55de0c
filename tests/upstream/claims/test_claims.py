"""Claims checked at every release they name: rows' texts and set-ups, snippets' API.

Most tests read a small burn-like history built here (four releases); the last ones read
the kept index of burn itself (tests/upstream/burn/index.json) and the demo dataset.
"""

import json
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from errorkb.kb.record.release_ranges import version_ends
from errorkb.upstream.claims.check import (
    SNIPPET_FIELDS,
    FailedClaim,
    check_claims,
    snippet_sections,
)
from errorkb.upstream.claims.release_facts import BurnIndex, read_index
from errorkb.upstream.claims.release_index import MAIN, index_releases, release_tags, write_index
from errorkb.upstream.git import Checkout
from tests.upstream.gitrepo import GitRepo

ROOT = Path(__file__).resolve().parents[3]
KEPT_INDEX = ROOT / "tests" / "upstream" / "burn" / "index.json"
DEMO = ROOT / "errorkb" / "kb" / "fixtures" / "demo.json"
CHECKPOINT = "crates/burn-train/src/checkpoint.rs"
STORE = "crates/burn-train/src/store.rs"

# Four releases of a burn-like crate: a text, a variant and a signature arrive or change.
RELEASES = {
    "v0.1.0": """
        pub enum RecordError { Io(String) }
        pub struct FileCheckpointer;
        impl FileCheckpointer {
            pub fn new(recorder: R, directory: &Path, name: &str) -> Self { todo!() }
            pub fn restore(&self, epoch: usize, device: &D) -> R { todo!() }
        }
        pub fn save() { panic!("Error when saving the state: {err}"); }
        fn load() { panic!("Record I/O error: {0}"); }
        fn gone() { panic!("Can save the state."); }
    """,
    "v0.2.0-pre.1": """
        pub enum RecordError { Io(String), Validation(String) }
        pub struct FileCheckpointer;
        impl FileCheckpointer {
            pub fn new(directory: &Path, name: &str) -> Self { todo!() }
            pub fn restore(&self, epoch: usize) -> R { todo!() }
        }
        pub fn save() { panic!("Error when saving the state: {err}"); }
        fn load() { panic!("Record I/O error: {0}"); }
        fn check() { panic!("Missing tensors: {:?}"); }
    """,
    "v0.2.0": """
        pub enum RecordError { Io(String), Validation(String) }
        pub struct FileCheckpointer;
        impl FileCheckpointer {
            pub fn new(directory: &Path, name: &str) -> Self { todo!() }
            pub fn restore(&self, epoch: usize) -> R { todo!() }
        }
        pub fn save() { panic!("Error when saving the state: {err}"); }
        fn load() { panic!("Record I/O error: {0}"); }
        fn check() { panic!("Missing tensors: {:?}"); panic!("Unused tensors: {:?}"); }
    """,
    MAIN: """
        pub enum RecordError { Io(String), Validation(String) }
        pub struct FileCheckpointer;
        impl FileCheckpointer {
            pub fn new(directory: &Path, name: &str) -> Self { todo!() }
            pub fn restore(&self, epoch: usize) -> R { todo!() }
        }
        pub fn save() { panic!("Error when saving the state: {err}"); }
        fn load() { panic!("Record I/O error: {0}"); }
        fn check() { panic!("Missing tensors: {:?}"); panic!("Unused tensors: {:?}"); }
        fn create(path: &Path) { format!("cannot create '{}': {e}", path.display()); }
        fn hook(path: &Path) {
            eprintln!("=== PANIC ===\\nlogs here => \\
                '{}'\\n===", path.display());
        }
    """,
}
# A store whose constructor the crate keeps to itself.
STORE_SOURCE = """
    pub struct EventStoreClient;
    impl EventStoreClient {
        pub(crate) fn new(config: u8) -> Self { todo!() }
        pub fn find_epoch(&self, name: &str) -> usize { 0 }
    }
    """


@pytest.fixture(scope="module")
def index(tmp_path_factory) -> BurnIndex:
    repo = GitRepo(tmp_path_factory.mktemp("burn"))
    for tag, source in RELEASES.items():
        repo.write(CHECKPOINT, source)
        repo.write(STORE, STORE_SOURCE)
        repo.commit(tag, tag=None if tag == MAIN else tag)
    checkout = Checkout(repo.path)
    releases = [*release_tags(checkout, "v0.1.0", "v0.2.0"), (MAIN, checkout.resolve("main"))]
    # Through the file format, as the checker reads the kept index.
    return BurnIndex(json.loads(write_index(index_releases(checkout, releases))))


def row(**values) -> dict:
    """An appliesTo row that holds at every release; each test breaks what it checks."""
    return {
        "versions": "0.1.0 – main",
        "setup": "a hand-built loop",
        "outcome": "raised",
        "seen": "Error when saving the state: {err}",
        "filePath": CHECKPOINT,
        "lineNumber": 8,
        "commit": "0123456789abcdef0123456789abcdef01234567",
        **values,
    }


def record(rows: list[dict] | None = None, **fields) -> dict:
    return {"id": "e1", "appliesTo": rows if rows is not None else [row()], **fields}


def problems(claims: list[FailedClaim]) -> list[str]:
    return [str(claim) for claim in claims]


def test_it_passes_a_record_whose_claims_hold_at_every_release(index):
    clean = record(
        [row(note="Error when saving the state: Record I/O error: I/O error: denied")],
        exampleFix='// burn 0.2.0-pre.1 – main\nlet c = FileCheckpointer::new(&dir, "model");\n',
    )
    assert check_claims([clean], index) == []


def test_it_prints_a_failed_claim_as_one_line_naming_record_place_releases_and_text():
    claim = FailedClaim("e1", "appliesTo[2].seen", "0.20.0 – 0.21.0", "'x' is in no literal")
    assert str(claim) == "e1 appliesTo[2].seen @ 0.20.0 – 0.21.0: 'x' is in no literal"


def test_it_finds_a_seen_text_missing_at_one_release_of_the_range(index):
    claims = check_claims([record([row(seen="Missing tensors: {:?}")])], index)
    assert problems(claims) == [
        f"e1 appliesTo[0].seen @ 0.1.0: 'Missing tensors: {{:?}}' is in no literal of {CHECKPOINT}"
    ]


def test_it_reads_a_literal_with_line_breaks_as_rust_does(index):
    banner = "=== PANIC ===\nlogs here => '{}'\n==="  # `\\n` escapes, a continued line
    assert check_claims([record([row(versions="main", seen=banner)])], index) == []
    written = "=== PANIC ===\\nlogs here => '{}'"
    claims = check_claims([record([row(versions="main", seen=written)])], index)
    assert problems(claims) == [
        f"e1 appliesTo[0].seen @ main: {written!r} is in no literal of {CHECKPOINT}"
    ]


def test_it_finds_a_file_missing_at_a_release(index):
    claims = check_claims([record([row(filePath="crates/burn-train/src/gone.rs")])], index)
    assert problems(claims) == [
        "e1 appliesTo[0].filePath @ 0.1.0 – main: no file crates/burn-train/src/gone.rs"
    ]


def test_it_finds_a_note_quoting_a_text_that_only_a_later_commit_has(index):
    note = "Error when saving the state: cannot create '/runs/model-3.bpk': Read-only"
    claims = check_claims([record([row(versions="0.2.0-pre.1 – main", note=note)])], index)
    assert problems(claims) == [
        'e1 appliesTo[0].note @ 0.2.0-pre.1 – 0.2.0: quotes "cannot create \'", in no literal'
    ]


def test_it_finds_a_text_quoted_for_a_pre_release_that_arrived_in_the_release(index):
    note = 'Validation("Unused tensors: [\\"head.weight\\"]")'
    claims = check_claims([record([row(versions="0.2.0-pre.1 – main", note=note)])], index)
    assert problems(claims) == [
        "e1 appliesTo[0].note @ 0.2.0-pre.1: quotes 'Unused tensors:', in no literal"
    ]


def test_it_finds_a_variant_a_note_shows_at_a_release_without_it(index):
    claims = check_claims([record([row(note='Failed: Validation("shape")')])], index)
    assert problems(claims) == [
        "e1 appliesTo[0].note @ 0.1.0: shows variant Validation, which burn does not have"
    ]


def test_it_leaves_texts_burn_never_wrote_out_of_the_note_check(index):
    note = "Error when saving the state: Read-only file system (os error 30); SendError { .. }"
    assert check_claims([record([row(note=note)])], index) == []


def test_it_finds_a_setup_call_with_the_wrong_number_of_arguments(index):
    setup = "own loop with FileCheckpointer::new(&dir, name)"
    claims = check_claims([record([row(versions="0.1.0 – 0.2.0", setup=setup)])], index)
    assert problems(claims) == [
        "e1 appliesTo[0].setup @ 0.1.0: FileCheckpointer::new takes 3, given 2"
    ]


def test_it_finds_a_setup_naming_an_item_that_is_not_pub(index):
    claims = check_claims([record([row(setup="a store from EventStoreClient::new")])], index)
    assert problems(claims) == [
        "e1 appliesTo[0].setup @ 0.1.0 – main: EventStoreClient::new is not pub"
    ]


def test_it_finds_a_row_naming_a_release_the_index_does_not_have(index):
    claims = check_claims([record([row(versions="0.0.9 – main")])], index)
    assert "e1 appliesTo[0].versions @ -: '0.0.9' is no indexed release" in problems(claims)


def test_it_finds_a_snippet_without_a_burn_line(index):
    claims = check_claims([record(typeGuard="fn is_it(line: &str) -> bool { true }")], index)
    assert problems(claims) == ["e1 typeGuard @ -: does not start with a `// burn <versions>` line"]


def test_it_checks_a_snippet_without_a_burn_line_at_the_records_releases(index):
    fix = 'let c = FileCheckpointer::new(&dir, "model");'
    claims = check_claims([record(exampleFix=fix)], index)
    assert "e1 exampleFix @ 0.1.0: FileCheckpointer::new takes 3, given 2" in problems(claims)


def test_it_checks_the_sections_after_a_start_without_a_burn_line(index):
    fix = 'let c = 1;\n// burn 0.2.0 – main\nlet c = FileCheckpointer::new(r, &dir, "model");\n'
    found = problems(check_claims([record(exampleFix=fix)], index))
    assert "e1 exampleFix @ 0.2.0 – main: FileCheckpointer::new takes 2, given 3" in found


def test_it_finds_a_call_with_the_wrong_arity_in_one_section_only(index):
    fix = (
        "// burn 0.1.0\n"
        'let c = FileCheckpointer::new(recorder, &dir, "model");\n'
        "// burn 0.2.0-pre.1 – main\n"
        'let c = FileCheckpointer::new(recorder, &dir, "model");\n'
    )
    claims = check_claims([record(exampleFix=fix)], index)
    assert problems(claims) == [
        "e1 exampleFix @ 0.2.0-pre.1 – main: FileCheckpointer::new takes 2, given 3"
    ]


def test_it_finds_a_method_called_on_a_burn_value_with_the_wrong_arity(index):
    fix = (
        "// burn 0.1.0 – main\n"
        'let files = FileCheckpointer::new(&dir, "model");\n'
        "let record = files.restore(epoch);\n"
    )
    found = problems(check_claims([record(exampleFix=fix)], index))
    assert "e1 exampleFix @ 0.1.0: .restore takes 2, given 1" in found


def test_it_finds_a_constructor_that_is_not_pub(index):
    guard = "// burn 0.2.0\nlet store = EventStoreClient::new(1);\n"
    claims = check_claims([record(validationCode=guard)], index)
    assert problems(claims) == ["e1 validationCode @ 0.2.0: EventStoreClient::new is not pub"]


def test_it_finds_a_variant_matched_at_a_release_without_it(index):
    pattern = (
        "// burn 0.1.0 – main\n"
        "match model.try_load(&path) {\n"
        '    Err(RecordError::Validation(msg)) => anyhow::bail!("{msg}"),\n'
        "    _ => {}\n"
        "}\n"
    )
    claims = check_claims([record(tryCatchPattern=pattern)], index)
    assert problems(claims) == ["e1 tryCatchPattern @ 0.1.0: no variant RecordError::Validation"]


def test_it_finds_a_burn_text_a_snippet_quotes_outside_its_releases(index):
    guard = (
        "// burn 0.1.0 – main\n"
        "fn is_save_failure(line: &str) -> bool {\n"
        '    line.starts_with("Can save the state.")\n'
        "}\n"
    )
    claims = check_claims([record(typeGuard=guard)], index)
    assert problems(claims) == [
        "e1 typeGuard @ 0.2.0-pre.1 – main: quotes 'Can save the state.', in no literal"
    ]


def test_it_leaves_std_and_the_users_own_names_unchecked(index):
    guard = (
        "// burn 0.1.0 – main\n"
        "fn latest(dir: &std::path::Path) -> Option<usize> {\n"
        "    let mut epochs: Vec<usize> = std::fs::read_dir(dir).ok()?\n"
        "        .filter_map(|e| e.ok()?.file_name().into_string().ok())\n"
        '        .filter_map(|n| n.strip_prefix("model-")?.parse().ok())\n'
        "        .collect();\n"
        "    epochs.sort_unstable();\n"
        "    epochs.pop()\n"
        "}\n"
        'let path = dir.join(format!("model-{}.bpk", latest(&dir)?));\n'
        'anyhow::ensure!(path.is_file(), "{} is missing", path.display());\n'
    )
    assert check_claims([record(validationCode=guard)], index) == []


def test_it_passes_a_summary_naming_releases_and_texts_burn_has(index):
    summary = 'From 0.2.0-pre.1 look for "Missing tensors:"; in 0.1.0 “Can save the state.”.'
    assert check_claims([record(summary=summary)], index) == []


def test_it_finds_a_summary_naming_a_release_burn_never_tagged(index):
    claims = check_claims([record(summary="Upgrade to 0.3.0 or 0.2.0-pre.7.")], index)
    assert problems(claims) == [
        "e1 summary @ -: names '0.3.0', no indexed release",
        "e1 summary @ -: names '0.2.0-pre.7', no indexed release",
    ]


def test_it_finds_a_summary_quoting_a_text_in_no_literal_of_burn(index):
    claims = check_claims([record(summary='Look for "Can save the model." instead.')], index)
    assert problems(claims) == [
        "e1 summary @ -: quotes 'Can save the model.', in no literal of burn's at any release"
    ]


def test_it_reads_sections_of_a_snippet_at_their_burn_lines():
    text = "\n// burn 0.1.0 – 0.2.0\nlet a = 1;\n// burn main\nlet b = 2;\n"
    assert snippet_sections(text) == [("0.1.0 – 0.2.0", "let a = 1;"), ("main", "let b = 2;")]
    assert snippet_sections("// before\nlet a = 1;")[0][0] is None


def test_it_takes_a_burn_line_with_prose_after_it_for_no_section():
    assert snippet_sections("// burn <= 0.19.1: no interrupter\nlet a = 1;")[0][0] is None


# --- the kept index of burn and the demo dataset ------------------------------------


@pytest.fixture(scope="module")
def burn() -> BurnIndex:
    return read_index(KEPT_INDEX)


def demo_records() -> list[dict]:
    return json.loads(DEMO.read_text(encoding="utf-8"))["records"]


def test_the_kept_index_covers_every_release_the_demo_names(burn):
    named = set()
    for each in demo_records():
        named.update(
            end for r in each.get("appliesTo") or () for end in version_ends(r["versions"])
        )
        for field in SNIPPET_FIELDS:
            for versions, _ in snippet_sections(each.get(field) or ""):
                named.update(version_ends(versions) if versions else ())
    assert named - set(burn.order) == set()


@pytest.mark.parametrize(
    ("claimed", "expected"),
    [
        # v0.21.0 has with_file_checkpointer(recorder), not with_checkpointer.
        (
            {"appliesTo": [row(versions="0.21.0", setup="RL (RLTraining::with_checkpointer)")]},
            "appliesTo[0].setup @ 0.21.0: no RLTraining::with_checkpointer",
        ),
        # FileCheckpointer::new(recorder, directory, name) at 0.20 – 0.21.
        (
            {"exampleFix": '// burn 0.20.0 – main\nFileCheckpointer::new(&dir, "model");'},
            "exampleFix @ 0.20.0 – 0.21.0: FileCheckpointer::new takes 3, given 2",
        ),
        # The event store's constructor is pub(crate).
        (
            {"exampleFix": "// burn 0.21.0\nlet store = EventStoreClient::new(config);"},
            "exampleFix @ 0.21.0: EventStoreClient::new is not pub",
        ),
        # burn-pack's "cannot create" is in no tag.
        (
            {"appliesTo": [row(versions="0.22.0-pre.1 – main", note="cannot create '/a': x")]},
            'appliesTo[0].note @ 0.22.0-pre.1 – 0.22.0-pre.2: quotes "cannot create \'"',
        ),
        # The Unused tensors check arrived in pre.2.
        (
            {"appliesTo": [row(versions="0.22.0-pre.1 – main", note="Unused tensors: [..]")]},
            "appliesTo[0].note @ 0.22.0-pre.1: quotes 'Unused tensors:'",
        ),
    ],
)
def test_it_finds_the_issues_claims_in_burns_own_history(burn, claimed, expected):
    rows = claimed.pop("appliesTo", [])
    for each in rows:
        each.update(filePath="crates/burn-train/src/checkpoint/async_checkpoint.rs", seen="state")
    found = problems(check_claims([record(rows, **claimed)], burn))
    assert any(line.startswith(f"e1 {expected}") for line in found), found


def test_the_demo_dataset_holds_at_every_release_it_names(burn):
    assert problems(check_claims(demo_records(), burn)) == []


def test_the_command_prints_each_failed_claim_and_exits_1(tmp_path, capsys):
    dataset = tmp_path / "dataset.json"
    broken = json.loads(DEMO.read_text(encoding="utf-8"))
    broken["records"] = broken["records"][:1]
    broken["records"][0]["appliesTo"][0]["seen"] = "a text burn never wrote"
    dataset.write_text(json.dumps(broken), encoding="utf-8")
    with pytest.raises(CommandError) as raised:
        call_command("check_claims", str(dataset))
    assert raised.value.returncode == 1
    out = capsys.readouterr().out
    assert "appliesTo[0].seen @ " in out
    assert "'a text burn never wrote' is in no literal" in out


def test_the_command_says_so_when_every_claim_holds(tmp_path, capsys):
    dataset = tmp_path / "dataset.json"
    clean = json.loads(DEMO.read_text(encoding="utf-8"))
    clean["records"] = []
    dataset.write_text(json.dumps(clean), encoding="utf-8")
    call_command("check_claims", str(dataset))
    assert "0 records hold at every release they name" in capsys.readouterr().out


def test_the_command_refuses_a_missing_index(tmp_path):
    with pytest.raises(CommandError, match="not an index of releases"):
        call_command("check_claims", index=str(tmp_path / "none.json"))


def test_the_command_refuses_a_file_that_is_no_dataset(tmp_path):
    dataset = tmp_path / "dataset.json"
    dataset.write_text("{not json", encoding="utf-8")
    with pytest.raises(CommandError, match="dataset.json"):
        call_command("check_claims", str(dataset))
