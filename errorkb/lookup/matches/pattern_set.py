"""Every published messagePattern over a pasted text at once, in time linear in the text.

One RE2 Set holds all the patterns (relaxed, see patterns.py) and answers in one pass
over the text which of them match somewhere. Where they match is found by halving:
the Set is asked again of each half that holds a pattern not yet placed, down to
single lines, left half first, so each pattern's first match is found in text order
and a half without news is never read again. Every step is one RE2 pass, whose time
is linear in what it reads, whatever the patterns and the text; and the steps are
counted, so a text crafted to match everything everywhere stops at a bound and says
it was cut short. A pattern matches within one line, the way a log is written.
"""

from dataclasses import dataclass, field

import re2

from errorkb.kb import regex

from .patterns import Relaxed, relax

# The Set's DFA budget: ample for 50,000 patterns; past it RE2 would fail the search.
SET_MEMORY = 512 << 20
# Lines read one by one once a part is this short.
LEAF_LINES = 8
# The most entries one lookup reports, and the most RE2 passes it may take.
MAX_MATCHES = 50
MAX_PASSES = 4096
# Stands in the Set for a pattern that does not compile: no text matches it.
NEVER = r"[^\x00-\x{10FFFF}]"


@dataclass(frozen=True)
class Hit:
    """Where one pattern first matched: its index, the text line, the span in that line."""

    index: int
    text_line: int  # 1-based
    start: int
    end: int
    matched: str


@dataclass
class PatternScan:
    """What one search found, and whether its bounds cut it short."""

    hits: list[Hit] = field(default_factory=list)
    truncated: bool = False


class PatternSet:
    """The compiled Set of some patterns, and each pattern compiled when first needed."""

    def __init__(self, patterns: list[str]):
        self.patterns = patterns
        self.relaxed: list[Relaxed] = [relax(p) for p in patterns]
        options = re2.Options()
        options.max_mem = SET_MEMORY
        self._set = re2.Set.SearchSet(options)
        self.broken: set[int] = set()
        for index, relaxed in enumerate(self.relaxed):
            try:
                self._set.Add(relaxed.pattern)
            except re2.error:
                # Patterns are checked on their way in (kb.record.validation.pattern_error); one
                # written past that check must not take every other lookup down with it.
                self._set.Add(NEVER)
                self.broken.add(index)
        self._set.Compile()
        self._compiled: dict[tuple[int, bool], re2._Regexp] = {}

    def scan(self, text: str) -> PatternScan:
        """Each pattern's first match in the text, in text order, within the bounds."""
        return _Search(self, text).run()

    def candidates(self, data: bytes) -> list[int]:
        """The patterns whose relaxed form matches somewhere in `data` (one RE2 pass)."""
        return self._set.Match(data) or []

    def confirm(self, index: int, line: str, line_bytes: int) -> re2._Match | None:
        """The pattern's own match in one line (the relaxed one decides when it can)."""
        relaxed = self.relaxed[index]
        exact = relaxed.exact_up_to is not None and not 0 < line_bytes <= relaxed.exact_up_to
        key = (index, exact)
        if key not in self._compiled:
            chosen = self.patterns[index] if exact else relaxed.pattern
            self._compiled[key] = regex.compile_pattern(chosen)
        return self._compiled[key].search(line)


class _Search:
    """One halving search of one text; see the module's docstring."""

    def __init__(self, patterns: PatternSet, text: str):
        self.patterns = patterns
        self.lines = text.split("\n")
        self.data = text.encode("utf-8", "surrogatepass")
        self.starts = [0]  # byte offset of each line, and one past the end
        for line in self.lines:
            self.starts.append(self.starts[-1] + len(line.encode("utf-8", "surrogatepass")) + 1)
        self.placed: set[int] = set()
        self.passes = 0
        self.result = PatternScan()

    def run(self) -> PatternScan:
        self._part(0, len(self.lines))
        self.result.hits.sort(key=lambda hit: (hit.text_line, hit.start))
        return self.result

    def _part(self, low: int, high: int) -> None:
        if self._stopped():
            return
        news = set(self._ask(low, high)) - self.placed
        if not news:
            return
        if high - low <= LEAF_LINES:
            for number in range(low, high):
                self._line(number)
            return
        middle = (low + high) // 2
        self._part(low, middle)
        self._part(middle, high)

    def _line(self, number: int) -> None:
        if self._stopped():
            return
        line = self.lines[number]
        size = self.starts[number + 1] - self.starts[number] - 1
        for index in sorted(set(self._ask(number, number + 1)) - self.placed):
            match = self.patterns.confirm(index, line, size)
            if match is None:
                continue
            self.placed.add(index)
            hit = Hit(index, number + 1, match.start(), match.end(), match.group(0))
            self.result.hits.append(hit)
            if len(self.result.hits) >= MAX_MATCHES:
                self.result.truncated = True
                return

    def _ask(self, low: int, high: int) -> list[int]:
        self.passes += 1
        # The part without its last newline: a pattern ending in $ sees a line end.
        return self.patterns.candidates(self.data[self.starts[low] : self.starts[high] - 1])

    def _stopped(self) -> bool:
        if len(self.result.hits) >= MAX_MATCHES:
            self.result.truncated = True
            return True
        if self.passes >= MAX_PASSES:
            self.result.truncated = True
            return True
        return False
