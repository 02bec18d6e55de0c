"""RE2's memory budget: searching a message with placeholders logs nothing on stderr."""

from pathlib import Path

import re2

from errorkb.kb import regex
from errorkb.kb.record.schema import message_matches, pattern_error

# A site of burn-ndarray (0.18.0) as the scanner writes its pattern, and the line a user
# pasted (tests/lookup/pastes/029-…): each `{:?}` is a bounded wildcard.
PATTERN = (
    "Unsupported dimension, only the last dimension can differ: Tensor .{0,1000} Index .{0,1000}"
)
PASTES = Path(__file__).resolve().parents[1] / "lookup" / "pastes"
PASTE = PASTES / "029-burn-ndarray-scatter-unsupported-dimension.txt"
LINE = PASTE.read_text(encoding="utf-8").splitlines()[1]
OUT_OF_MEMORY = "DFA out of memory"


def test_the_paste_holds_the_line():
    assert LINE.startswith("Unsupported dimension, only the last dimension can differ: Tensor [")


def test_re2s_default_budget_logs_dfa_out_of_memory_on_that_line(capfd):
    # The control: RE2's own default budget falls back to the NFA and says so on fd 2,
    # so the test below would see it.
    re2.purge()
    assert re2.compile(PATTERN).search(LINE) is not None
    assert OUT_OF_MEMORY in capfd.readouterr().err


def test_errorkbs_budget_searches_that_line_without_a_word_on_stderr(capfd):
    re2.purge()
    assert regex.search(PATTERN, LINE) is not None
    assert message_matches(PATTERN, LINE)
    assert OUT_OF_MEMORY not in capfd.readouterr().err


def test_validation_compiles_with_the_budget_the_searches_use():
    assert regex.options().max_mem == regex.MAX_MEM
    assert regex.compile_pattern(PATTERN).options.max_mem == regex.MAX_MEM
    assert pattern_error(PATTERN) is None
    assert pattern_error("a(?=b)") is not None
