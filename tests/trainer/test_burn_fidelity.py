"""Every text the trainer prints is burn's, on the line it cites, at the commit it cites.

Like a compiler's error index compiling its examples: the burn files cited are
kept under tests/upstream/burn at their commits, and each citation of
trainer/burn/ and of the scenario registry is checked against them.
"""

import re

import pytest

from tests.upstream import sources
from trainer import burn
from trainer.scenarios import SCENARIOS

TEXTS = burn.all_texts()
PANICS = burn.all_panics()
VARIANTS = burn.all_variants()


def _lines(citation: str) -> list[str]:
    """The cited lines; ``path:line@commit`` or ``path:first-last@commit``."""
    match = re.fullmatch(
        r"(?P<path>[^:@]+):(?P<first>\d+)(?:-(?P<last>\d+))?@(?P<commit>\w+)", citation
    )
    assert match, f"not a citation: {citation}"
    first = int(match["first"])
    last = int(match["last"] or first)
    assert first <= last, citation
    return [sources.line(match["commit"], match["path"], n) for n in range(first, last + 1)]


@pytest.mark.parametrize("text", TEXTS, ids=lambda t: t.citation)
def test_it_finds_each_text_verbatim_on_its_cited_line(text):
    assert text.format in sources.line(text.commit, text.path, text.line)


@pytest.mark.parametrize("text", TEXTS, ids=lambda t: t.citation)
def test_it_renders_each_text_so_that_its_own_pattern_matches(text):
    values = [f"value {i}" for i in range(text.format.count("{"))]
    rendered = text.render(*values)
    assert re.fullmatch(text.pattern(), rendered)
    assert rendered.startswith(text.literal)
    with pytest.raises(TypeError):
        text.render(*values, "one too many")


@pytest.mark.parametrize("panic", PANICS, ids=lambda p: p.text.citation)
def test_it_reports_each_panic_at_the_column_rust_reports(panic):
    source = sources.line(panic.text.commit, panic.text.path, panic.text.line)
    assert source[panic.column - 1 :].startswith(("expect(", "panic!("))


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: v.citation)
def test_it_names_each_debug_variant_as_its_enum_declares_it(variant):
    source = sources.line(variant.commit, variant.path, variant.line).strip()
    assert source.startswith(f"{variant.name}(")


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.name)
def test_it_cites_only_lines_that_exist(scenario):
    for citation in scenario.citations:
        assert _lines(citation), citation


# What each set-up's citations must show for the set-up to be reachable through burn's API.
SETUP_EVIDENCE = {
    "supervised": [
        "AsyncCheckpointer::new",
        "with_interrupter(self.interrupter.clone())",
        "Training interrupted",
    ],
    "rl": [
        "AsyncCheckpointer::new(checkpointer_policy)",
        "RLCheckpointer::new",
        "Can delete policy checkpoint.",
        "default = 10_000",
        "valid_next += self.config.eval_interval",
        "KeepLastNCheckpoints::new(2)",
    ],
    "rl-keep-last": [
        "AsyncCheckpointer::new(checkpointer_policy)",
        "valid_next += self.config.eval_interval",
        "pub fn with_checkpointing_strategy",
        "actions.push(CheckpointingAction::Delete(epoch))",
    ],
    "hand-built": [
        "pub struct LearningCheckpointer",
        "pub fn new(",
        "pub fn new<C>(checkpointer: C)",
    ],
    "learner-builder": [
        "pub fn with_file_checkpointer",
        "AsyncCheckpointer::new",
        "Can save model checkpoint.",
        "pub type CompactRecorder = DefaultFileRecorder",
        "pub type DefaultFileRecorder<S> = NamedMpkFileRecorder<S>",
        '"mpk"',
        "std::fs::create_dir_all(parent).ok();",
        "std::io::ErrorKind::NotFound => RecorderError::FileNotFound(err.to_string())",
    ],
}


@pytest.mark.parametrize("name", sorted(burn.SETUPS))
def test_it_shows_each_set_up_is_reachable_through_burns_public_api(name):
    cited = "\n".join(line for c in burn.SETUPS[name].citations for line in _lines(c))
    for evidence in SETUP_EVIDENCE[name]:
        assert evidence in cited, f"{name}: {evidence!r} is not in its cited lines"


def test_it_attaches_an_interrupter_only_where_burn_does():
    launch = "\n".join(_lines(burn.SETUPS["supervised"].citations[1]))
    assert launch.count(".with_interrupter(") == 3
    rl = "\n".join(_lines(burn.SETUPS["rl"].citations[0]))
    assert "with_interrupter" not in rl
    async_19 = "\n".join(
        sources.source_lines("v0.19.1", burn.TRAIN + "/checkpoint/async_checkpoint.rs")
    )
    assert "interrupter" not in async_19.lower()


def test_it_holds_only_async_checkpointers_in_the_learner_on_main():
    fields = _lines(f"{burn.TRAIN}/learner/base.rs:134-136@main")
    assert all(": AsyncCheckpointer<" in field for field in fields)
    save = _lines(f"{burn.TRAIN}/checkpoint/async_checkpoint.rs:115-121@main")
    assert "Ok(())" in "\n".join(save)  # save returns Ok, or panics itself on line 118


def test_it_documents_only_messages_that_are_burns_texts():
    formats = {text.format for text in TEXTS}
    for scenario in SCENARIOS:
        for message in scenario.proves + scenario.disproves:
            assert message in formats, (scenario.name, message)


def test_it_never_proves_a_can_save_checkpoint_message():
    saves = {
        p.text.format for key, p in {**burn.LEARNER, **burn.LEARNER_19}.items() if key[0] == "save"
    }
    for scenario in SCENARIOS:
        assert not saves & set(scenario.proves), scenario.name
    disproved = {m for s in SCENARIOS for m in s.disproves}
    assert {p.text.format for k, p in burn.LEARNER.items() if k[0] == "save"} <= disproved


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.name)
def test_it_builds_every_expected_text_from_cited_burn_texts(scenario):
    cited = {c for e in scenario.expected for c in e.cites}
    known = {t.citation for t in TEXTS} | {v.citation for v in VARIANTS}
    assert cited <= known, cited - known
    assert scenario.release in burn.RELEASES
    for expect in scenario.expected:
        re.compile(expect.pattern)
