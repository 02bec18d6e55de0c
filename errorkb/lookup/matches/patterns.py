"""What the lookup needs to know about one messagePattern besides the pattern itself.

RE2 compiles a counted repetition such as `.{1,1000}` into a thousand copies of its
operand: one such pattern takes milliseconds to compile, ten thousand would not fit
one RE2 Set. So the Set holds each pattern `relaxed`: every repetition with a large
upper bound loses that bound (`.{1,1000}` becomes `.{1,}`). The relaxed pattern
matches everything the pattern matches, and on a line no longer than the smallest
bound it dropped, exactly the same: a repetition inside one line cannot run past a
bound longer than the line. Only on a longer line is the pattern itself compiled to
confirm the match.

The relaxed pattern is multi-line, (?m): the Set reads many lines at once, and `^` and
`$` must still mean a line's start and end there, as they do in one line alone.
"""

import re
from dataclasses import dataclass

# Repetitions up to this bound compile small; above it they are relaxed.
KEPT_BOUND = 64
_REPETITION = re.compile(r"\{(\d+)(,(\d*))?\}")
# What the specificity count skips: escapes of a class, classes, wildcards, quantifiers.
_NOT_LITERAL = re.compile(r"\\[dDsSwWbBpP](\{[^}]*\})?|\[(\\.|[^\]])*\]|\(\?[a-zA-Z:]*|[.*+?|()^$]")
_COUNT = re.compile(r"\{\d+(,\d*)?\}")
_ESCAPE = re.compile(r"\\(.)")


@dataclass(frozen=True)
class Relaxed:
    """A pattern for the Set, and the longest line on which it decides alone (None: any)."""

    pattern: str
    exact_up_to: int | None


def relax(pattern: str) -> Relaxed:
    """The pattern with its large counted repetitions unbounded above."""
    out, i, smallest = [], 0, None
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            end = _escape_end(pattern, i)
            out.append(pattern[i:end])
            i = end
            continue
        if char == "[":
            end = _class_end(pattern, i)
            out.append(pattern[i:end])
            i = end
            continue
        counted = _REPETITION.match(pattern, i) if char == "{" else None
        if counted and _upper_bound(counted) > KEPT_BOUND:
            low = int(counted.group(1))
            # A large lower bound is lowered too: then no line length makes the
            # relaxed pattern exact, and every match it finds is confirmed.
            bound = 0 if low > KEPT_BOUND else _upper_bound(counted)
            out.append(f"{{{min(low, KEPT_BOUND)},}}")
            smallest = bound if smallest is None else min(smallest, bound)
            i = counted.end()
            continue
        out.append(char)
        i += 1
    return Relaxed("(?m)" + "".join(out), smallest)


def specificity(pattern: str) -> int:
    """How many literal characters the pattern demands: more is more specific."""
    text = _ESCAPE.sub("x", _COUNT.sub("", _NOT_LITERAL.sub("", pattern)))
    return len(text)


def _upper_bound(counted: re.Match) -> int:
    low, comma, high = counted.group(1), counted.group(2), counted.group(3)
    if comma is None:
        return int(low)
    # {m,} has no upper bound; its lower bound is what makes it large.
    return int(high) if high else int(low)


def _escape_end(pattern: str, i: int) -> int:
    """Where the escape starting at i ends; \\Q...\\E quotes everything up to \\E."""
    if pattern.startswith("\\Q", i):
        end = pattern.find("\\E", i + 2)
        return len(pattern) if end < 0 else end + 2
    return min(i + 2, len(pattern))


def _class_end(pattern: str, i: int) -> int:
    """Where the character class starting at i ends (just past its closing bracket)."""
    j = i + 1
    if j < len(pattern) and pattern[j] == "^":
        j += 1
    if j < len(pattern) and pattern[j] == "]":  # a leading ] is a literal
        j += 1
    while j < len(pattern):
        if pattern[j] == "\\":
            j += 2
            continue
        if pattern.startswith("[:", j):  # [:alpha:] inside a class
            close = pattern.find(":]", j + 2)
            if close >= 0:
                j = close + 2
                continue
        if pattern[j] == "]":
            return j + 1
        j += 1
    return len(pattern)
