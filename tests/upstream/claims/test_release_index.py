"""The index of burn's releases: what it keeps of a file, and that the kept one is current."""

import json
import os
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from errorkb.upstream.claims.release_index import (
    MAIN,
    MAIN_COMMIT,
    index_releases,
    item_key,
    item_of,
    places_of,
    release_tags,
    spans,
    write_index,
)
from errorkb.upstream.claims.rust_items import file_facts
from errorkb.upstream.git import Checkout
from tests.upstream.gitrepo import GitRepo

KEPT_INDEX = Path(__file__).resolve().parents[1] / "burn" / "index.json"


def items_of(source: str) -> list[list]:
    return file_facts(source.encode())["items"]


def test_it_keeps_literals_as_written_raw_strings_too_and_no_byte_strings():
    facts = file_facts(
        b'fn f() { let a = "Can save {}: \\"x\\""; let b = r#"raw {text}"#; let c = b"bytes"; '
        b'let d = "12"; }'
    )
    assert facts["literals"] == ['Can save {}: \\"x\\"', "raw {text}"]


def test_it_keeps_the_texts_of_error_attributes_but_not_of_other_attributes():
    facts = file_facts(
        b"""
        #[derive(thiserror::Error, Debug)]
        #[cfg(feature = "std")]
        pub enum Error {
            #[error("Candle pickle error: {0}")]
            CandlePickle(String),
            #[doc = "a doc text"]
            Other(String),
        }
        """
    )
    assert facts["literals"] == ["Candle pickle error: {0}"]


def test_it_names_each_function_with_its_owner_visibility_and_parameters_but_self():
    items = items_of(
        """
        pub struct FileCheckpointer;
        impl FileCheckpointer {
            pub fn new(recorder: R, directory: &Path, name: &str) -> Self { todo!() }
            pub(crate) fn path_for(&self, epoch: usize) -> PathBuf { todo!() }
            fn private(&self) {}
        }
        pub fn free(a: u8) {}
        """
    )
    assert ["fn", "FileCheckpointer", "new", "pub", 3] in items
    assert ["method", "FileCheckpointer", "path_for", "", 1] in items
    assert ["method", "FileCheckpointer", "private", "", 0] in items
    assert ["fn", None, "free", "pub", 1] in items
    assert ["struct", None, "FileCheckpointer", "pub", None] in items


def test_it_gives_trait_methods_the_traits_visibility_and_impl_methods_the_traits_name():
    items = items_of(
        """
        pub trait Checkpointer { fn save(&self, epoch: usize, record: R); }
        pub(crate) trait Hidden { fn run(&self); }
        impl Checkpointer for FileCheckpointer { fn save(&self, epoch: usize, record: R) {} }
        """
    )
    assert ["method", "Checkpointer", "save", "pub", 2] in items
    assert ["method", "Hidden", "run", "", 0] in items
    assert ["method", "FileCheckpointer", "save", "impl:Checkpointer", 2] in items


def test_it_lists_an_enums_variants_with_their_fields_and_a_type_alias_with_its_target():
    items = items_of(
        """
        pub enum RecordError { Io(String), Pair(u8, u8), Named { a: u8 }, Unit }
        pub type CompactRecorder = DefaultFileRecorder<HalfPrecisionSettings>;
        """
    )
    assert ["variant", "RecordError", "Io", "pub", 1] in items
    assert ["variant", "RecordError", "Pair", "pub", 2] in items
    assert ["variant", "RecordError", "Named", "pub", None] in items
    assert ["variant", "RecordError", "Unit", "pub", None] in items
    assert ["type", "DefaultFileRecorder", "CompactRecorder", "pub", None] in items


def test_it_gives_a_struct_deriving_new_the_constructor_derive_new_writes():
    items = items_of(
        """
        #[derive(new)]
        pub struct LearningCheckpointer { model: M, optim: O, #[new(default)] count: usize }
        """
    )
    assert ["fn", "LearningCheckpointer", "new", "pub", 2] in items


def test_it_leaves_out_test_code():
    facts = file_facts(
        b"""
        pub fn shipped() { panic!("shipped text"); }
        #[cfg(test)]
        mod tests { pub struct OnlyInTests; fn t() { let _ = "test text"; } }
        #[test]
        fn a_test() { let _ = "another test text"; }
        """
    )
    assert facts["literals"] == ["shipped text"]
    assert [item[2] for item in facts["items"]] == ["shipped"]


def test_it_writes_runs_of_releases_and_reads_them_back():
    assert spans([5, 0, 1, 2, 2]) == "0-2,5"
    assert places_of("0-2,5") == [0, 1, 2, 5]
    assert places_of("") == []


def test_it_writes_an_item_as_one_line_and_reads_it_back():
    item = ["method", "FileCheckpointer", "save", "impl:Checkpointer", 2]
    assert item_key(item) == "method FileCheckpointer save impl:Checkpointer 2"
    assert item_of(item_key(item)) == item
    assert item_of(item_key(["fn", None, "free", "", None])) == ["fn", None, "free", "", None]


@pytest.fixture
def burn_like(tmp_path) -> GitRepo:
    repo = GitRepo(tmp_path / "burn")
    repo.write("crates/burn-train/src/lib.rs", 'pub fn a() { panic!("first text"); }\n')
    repo.write("crates/other/src/lib.rs", 'pub fn b() { panic!("not indexed"); }\n')
    repo.commit("one", tag="v0.10.0")
    repo.commit("book", tag="v0.10.0-book")
    repo.write("crates/burn-train/src/lib.rs", 'pub fn a() { panic!("second text"); }\n')
    repo.commit("two", tag="v0.11.0-pre.1")
    repo.commit("three", tag="v0.11.0")
    repo.commit("too new", tag="v0.30.0")
    return repo


def test_it_indexes_the_release_tags_in_order_without_book_tags(burn_like):
    checkout = Checkout(burn_like.path)
    releases = release_tags(checkout, "v0.10.0", "v0.11.0")
    assert [name for name, _ in releases] == ["0.10.0", "0.11.0-pre.1", "0.11.0"]
    index = index_releases(checkout, [*releases, (MAIN, checkout.resolve("main"))])
    assert index["releases"] == ["0.10.0", "0.11.0-pre.1", "0.11.0", "main"]
    assert list(index["files"]) == ["crates/burn-train/src/lib.rs"]
    entry = index["files"]["crates/burn-train/src/lib.rs"]
    assert entry["in"] == "0-3"
    assert entry["literals"] == {"first text": "0", "second text": "1-3"}


def test_the_command_writes_the_index_it_is_asked_for(burn_like, tmp_path):
    out = tmp_path / "index.json"
    call_command(
        "index_releases",
        git=str(burn_like.path),
        out=str(out),
        first="v0.10.0",
        last="v0.11.0",
        main="main",
    )
    index = json.loads(out.read_text(encoding="utf-8"))
    assert index["releases"] == ["0.10.0", "0.11.0-pre.1", "0.11.0", "main"]


def test_the_command_refuses_a_directory_that_is_no_git_repository(tmp_path):
    with pytest.raises(CommandError, match="not a git checkout"):
        call_command("index_releases", git=str(tmp_path), out=str(tmp_path / "index.json"))


def test_the_command_refuses_an_unknown_main_commit(burn_like, tmp_path):
    with pytest.raises(CommandError, match="unknown commit"):
        call_command(
            "index_releases", git=str(burn_like.path), out=str(tmp_path / "i.json"), main="nope"
        )


@pytest.mark.skipif(
    not os.environ.get("BURN_GIT"),
    reason="set BURN_GIT to a clone or bare mirror of tracel-ai/burn to regenerate the index",
)
def test_the_kept_index_is_what_burns_history_gives():
    checkout = Checkout(os.environ["BURN_GIT"])
    releases = [*release_tags(checkout), (MAIN, checkout.resolve(MAIN_COMMIT))]
    assert write_index(index_releases(checkout, releases)) == KEPT_INDEX.read_text("utf-8")


def test_the_kept_index_stays_small():
    assert KEPT_INDEX.stat().st_size < 1_000_000
