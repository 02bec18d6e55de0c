"""What a search query asks for, and what a database answers: shared by both vendors."""

import re
from dataclasses import dataclass

# Letters and digits: the words both databases index. Anything else in a query
# (quotes, operators, NUL) is a separator, so no query can be a syntax error.
WORD = re.compile(r"[^\W_]+")
MAX_WORDS = 16


@dataclass(frozen=True)
class Found:
    """A page of matching entry ids with their scores, how many match, and the words matched.

    `count` goes no further than the `candidates` find() was given. `words` are those to
    mark in snippets: the query's own, with any corrections of misspelt ones.
    """

    count: int
    scored: list[tuple[str, float]]
    words: list[str]


def query_words(query: str) -> list[str]:
    """The query's distinct words, lower-cased, in order, at most MAX_WORDS."""
    words = dict.fromkeys(word.lower() for word in WORD.findall(query))
    return list(words)[:MAX_WORDS]
