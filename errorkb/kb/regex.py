"""RE2 as errorkb uses it: every single pattern compiled with one memory budget.

Validation, the verification's judge and the lookup all compile through here, so a
pattern that passed validation compiles the same way wherever it is searched.
"""

import re2

# RE2's default budget (8 MiB) is too small for the DFA of a message with two or three
# placeholders (`.{0,1000}` each): on an ordinary log line the search falls back to the
# NFA and RE2 writes "DFA out of memory" to stderr. It is a ceiling, not an allocation:
# a pattern's DFA grows into it only as far as the texts it reads ask.
MAX_MEM = 64 << 20


def options() -> re2.Options:
    """RE2's options with errorkb's memory budget."""
    chosen = re2.Options()
    chosen.max_mem = MAX_MEM
    return chosen


def compile_pattern(pattern: str) -> re2._Regexp:
    """The compiled pattern (google-re2 keeps the recent ones); raises re2.error."""
    return re2.compile(pattern, options())


def search(pattern: str, text: str) -> re2._Match | None:
    """The pattern's first match in the text."""
    return compile_pattern(pattern).search(text)


def match(pattern: str, text: str) -> re2._Match | None:
    """The pattern's match at the start of the text."""
    return compile_pattern(pattern).match(text)
