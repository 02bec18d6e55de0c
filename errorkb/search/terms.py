"""What a search query asks for, and what a database answers: shared by both vendors."""

import re
from dataclasses import dataclass, field

from errorkb.kb.models import ErrorEntry
from errorkb.verification.models import EntryState, State

# Letters and digits: the words both databases index. Anything else in a query
# (quotes, operators, NUL) is a separator, so no query can be a syntax error.
WORD = re.compile(r"[^\W_]+")
MAX_WORDS = 16

# Within a tier of matches, what errorkb has proven comes first (its stored state is
# verified), and last what burn never prints: an entry none of whose appliesTo rows raises
# it, when it has rows or its stored state is unreachable. An entry unreachable with the
# standard set-ups but raised with another stays in the middle: it can be in a reader's log.
# Each vendor gives `raised` and `rows`: whether e.applies_to has a raised row, any row.
STATES = EntryState._meta.db_table
_ENTRY = ErrorEntry._meta.db_table
STATE_RANK = f"""CASE
    WHEN EXISTS (SELECT 1 FROM {STATES} s
        WHERE s.entry_id = {{entry_id}} AND s.state = '{State.VERIFIED.value}') THEN 0
    WHEN EXISTS (SELECT 1 FROM {_ENTRY} e WHERE e.id = {{entry_id}} AND NOT ({{raised}})
        AND (({{rows}}) OR EXISTS (SELECT 1 FROM {STATES} s
            WHERE s.entry_id = e.id AND s.state = '{State.UNREACHABLE.value}'))) THEN 2
    ELSE 1 END"""


@dataclass(frozen=True)
class Found:
    """A page of matching entry ids with their scores, how many match, and the words matched.

    `count` goes no further than the `candidates` find() was given. `words` are those to
    mark in snippets: the query's own, with any corrections of misspelt ones.
    `corrections`: each misspelt query word searched as the known words most like it,
    the closest first.
    """

    count: int
    scored: list[tuple[str, float]]
    words: list[str]
    corrections: dict[str, list[str]] = field(default_factory=dict)


def query_words(query: str) -> list[str]:
    """The query's distinct words, lower-cased, in order, at most MAX_WORDS."""
    words = dict.fromkeys(word.lower() for word in WORD.findall(query))
    return list(words)[:MAX_WORDS]
