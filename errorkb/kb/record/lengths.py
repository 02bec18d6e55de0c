"""The longest text each kind of curated field holds. Plain Python, so the scanner can read it.

The models' columns state them (the admin's forms refuse longer), the record's declaration
reads them from the columns (import, upload, the API's document), and the scanner leaves
out what would not fit. A page clips anything longer that got past them (raw SQL) before
rendering it, so no stored text can make a page slow or large.
"""

MESSAGE_LENGTH = 2_000  # an error message, a message pattern
SUMMARY_WORDS = 60  # a summary: what happened and what to do, in at most this many words
SUMMARY_LENGTH = 1_000  # ... and characters, room for 60 long words
DOCUMENT_LENGTH = 50_000  # prose and code: documentation, source code, fixes, guards
ITEM_LENGTH = 2_000  # one solution, one prevention tip, one text of an appliesTo row
ITEMS = 100  # solutions, prevention tips or appliesTo rows in one entry
RELEASES = 1_000  # raisedIn rows: one a release

# How much of a refused value or key its refusal quotes: either may be a megabyte long.
QUOTED_CHARS = 100


def quoted(value: str) -> str:
    """The value as a refusal names it: its repr(), of at most its first QUOTED_CHARS."""
    return repr(value) if len(value) <= QUOTED_CHARS else repr(value[:QUOTED_CHARS]) + "…"
