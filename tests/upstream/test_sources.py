"""The reader of burn's kept files and of path:line@commit citations."""

import pytest

from tests.upstream.sources import (
    COMMITS,
    UnknownSource,
    line,
    parse_citation,
    source_lines,
)

LEARNER = "crates/burn-train/src/learner/base.rs"


def test_it_reads_a_kept_file_by_release_key_or_sha():
    assert source_lines("main", LEARNER) == source_lines(COMMITS["main"], LEARNER)
    assert all("\n" not in text for text in source_lines("main", LEARNER))


def test_it_reads_one_line_counting_from_one():
    assert line("main", LEARNER, 178).strip() == '.expect("Can save model checkpoint.");'
    assert line("v0.19.1", LEARNER, 69).strip() == '.expect("Can save model checkpoint.");'


def test_it_names_the_commit_and_path_of_a_file_not_kept():
    with pytest.raises(UnknownSource) as raised:
        source_lines("v0.21.0", "crates/burn-train/src/lib.rs")
    assert COMMITS["v0.21.0"] in str(raised.value)
    assert "crates/burn-train/src/lib.rs" in str(raised.value)


def test_it_refuses_a_commit_not_kept():
    with pytest.raises(UnknownSource, match="'v0.16.0' is not kept"):
        source_lines("v0.16.0", LEARNER)


def test_it_refuses_a_line_past_the_end():
    with pytest.raises(UnknownSource, match="not a line 100000"):
        line("main", LEARNER, 100000)


def test_it_parses_a_citation_with_a_release_key_or_a_sha():
    assert parse_citation(f"{LEARNER}:178@main") == (LEARNER, 178, "main")
    sha = COMMITS["v0.19.1"]
    assert parse_citation(f"{LEARNER}:69@{sha}") == (LEARNER, 69, sha)


@pytest.mark.parametrize(
    "citation",
    [f"{LEARNER}@main", f"{LEARNER}:0@main", f"{LEARNER}:12@v0.99", f"{LEARNER}:x@main", ""],
)
def test_it_refuses_a_malformed_citation(citation):
    with pytest.raises(ValueError):
        parse_citation(citation)
