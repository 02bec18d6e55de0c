"""Search on PostgreSQL: the entries' own search documents, and the words they hold.

Each entry's search document (ErrorEntry.search_document) is a tsvector generated from
its row, weighted A for the message, B for its tags and file path, C for the rest; its
head (search_head) is the same of the message, tags and file path alone, small enough
to rank by. PostgreSQL keeps both on every write of the row, through the ORM,
QuerySet.update(), raw SQL or the admin, so a change shows in the next search and a
rolled-back one never does. Its tags are the row's tags_text, which kb writes with the
tags. Search's migration 0002 indexes the published entries' vectors with GIN, once per
tier below.
The vocabulary (models.Lexeme, with pg_trgm's index) corrects a misspelt word; it is
brought up to date before each correction, from the entries written since the last.

The queries are the ORM's, through django.contrib.postgres.search: SearchQuery and
SearchRank over the documents, TrigramSimilarity over the vocabulary. One statement is
SQL, with its reason where it is: each query word's lexeme.
"""

from django.contrib.postgres.lookups import TrigramSimilar
from django.contrib.postgres.search import (
    SearchQuery,
    SearchRank,
    SearchVectorField,
    TrigramSimilarity,
)
from django.db import connection
from django.db.models import F, Func, Max, QuerySet, TextField, Value

from errorkb.kb.models import ErrorEntry
from errorkb.kb.models.entries import SEARCH_CONFIG as CONFIG

from .models import Lexeme, VocabularyUpdate
from .terms import WORD, Found, state_rank

CLOSE_WORDS = 3
CLOSENESS = 0.5  # pg_trgm similarity: chekpoint~checkpoint 0.62, chekpoint~point 0.33

# Each lexeme of an entry's search document, a row each (unnest: a set-returning function).
DOCUMENT_LEXEMES = Func(
    Func(F("search_document"), function="tsvector_to_array"),
    function="unnest",
    output_field=TextField(),
)

# Each query word's lexeme (a word is letters and digits, one token: at most one lexeme;
# none for a stop word). SQL: the ORM reads a model's rows, and these are values of no
# table.
LEXEMES = f"""
SELECT q.word, l.lexeme
FROM unnest(%s::text[]) q(word) CROSS JOIN LATERAL unnest(to_tsvector('{CONFIG}', q.word)) l
"""

# Ranking and counting every match of a broad query read most of the table (a third of
# it for "base.rs"). A search ranks candidates instead: the matches first found, at most
# `candidates` of them, in tiers, each read through its own GIN index and only while
# those before it leave room: every word in the message, then in the message, tags and
# file path (the head), then anywhere. Within a tier, the entries in the order of their
# states (terms.state_rank), then by ts_rank of the head: a message and tag hit before a
# message hit. The score adds the tiers still below to ts_rank (at most 1), so a higher
# score is a better hit.
TIERS = 3
# The head's weight A (the message), as search's migration 0002 indexes it.
MESSAGE = Func(
    F("search_head"), Value("{a}"), function="ts_filter", output_field=SearchVectorField()
)


class Lexemes(SearchQuery):
    """A tsquery written in tsquery's syntax, of lexemes: cast as it is, since parsing the
    lexemes again could change them. A SearchQuery, so a search vector's lookup and
    SearchRank take it as the query it is."""

    template = "%(expressions)s::tsquery"


def find(words: list[str], *, limit: int, offset: int, candidates: int) -> Found:
    """The page of published entries matching `words`, best first, and how many match.

    Only when the words find nothing, a word no entry holds is replaced by the words
    most like it (chekpoint: checkpoint), and the search runs again.
    """
    # Each tier is planned for its words, even as a prepared statement: a generic plan,
    # blind to the parameters, could not prove the GIN indexes' published condition nor
    # match the message's weight, so it would read the whole table, and PostgreSQL's plan
    # cache keeps choosing a plan for the words over it.
    found = _candidates(SearchQuery(" ".join(words), config=CONFIG), most=candidates)
    corrections = {}
    if not found:
        corrected, marked, corrections = _corrected(words)
        if not corrections:
            return Found(0, [], words)  # the same words again would find nothing again
        found = _candidates(corrected, most=candidates)
        words = marked
    found.sort()
    page = [(entry_id, -negated_score) for _, _, negated_score, entry_id in found]
    return Found(len(found), page[offset : offset + limit], words, corrections)


def _candidates(query: SearchQuery, *, most: int) -> list[tuple[int, int, float, str]]:
    """The first `most` matches of `query`, tier by tier, each as the key it is ordered
    by: its tier, its state rank, its score negated (the best first), its id."""
    found = []
    for tier, matches in enumerate(tiers(query), start=1):
        room = most - len(found)
        if not room:
            break
        ranked = matches.annotate(
            score=SearchRank(F("search_head"), query) + (TIERS - tier), rank=state_rank()
        )
        rows = ranked.values_list("rank", "score", "id")[:room]
        found.extend((tier, rank, -score, entry_id) for rank, score, entry_id in rows)
    return found


def tiers(query: SearchQuery) -> list[QuerySet]:
    """The published entries whose message holds every word; those whose head does, and
    not their message; those whose document does, and not their head. Unordered: the
    first found."""
    entries = ErrorEntry.objects.published().order_by().alias(message=MESSAGE)
    return [
        entries.filter(message=query),
        entries.filter(search_head=query).exclude(message=query),
        entries.filter(search_document=query).exclude(search_head=query),
    ]


def _corrected(words: list[str]) -> tuple[Lexemes | None, list[str], dict[str, list[str]]]:
    """A tsquery of the words, each unknown one as any of the known ones like it (or as
    itself, when none is); the words to mark: a known word as typed, else those; and the
    corrected words with what they were searched as."""
    _catch_up()
    with connection.cursor() as cursor:
        cursor.execute(LEXEMES, [words])
        lexemes = dict(cursor.fetchall())
    if not lexemes:
        return None, words, {}  # stop words only
    known = set(Lexeme.objects.filter(lexeme__in=lexemes.values()).values_list("lexeme", flat=True))
    alike = {word: _alike(lexeme) for word, lexeme in lexemes.items() if lexeme not in known}
    corrections = {word: found for word, found in alike.items() if found}
    groups = [corrections.get(word) or [lexeme] for word, lexeme in lexemes.items()]
    marked = [m for word in lexemes for m in corrections.get(word) or [word]]
    query = " & ".join("(" + " | ".join(map(_quoted, group)) + ")" for group in groups)
    return Lexemes(query), marked, corrections


def _alike(lexeme: str) -> list[str]:
    """The known lexemes most like `lexeme` (pg_trgm's similarity), the closest first."""
    similar = (
        # The lookup's class, not its name (trigram_similar): django.contrib.postgres,
        # which registers the name, is not an installed app.
        Lexeme.objects.filter(TrigramSimilar(F("lexeme"), lexeme))
        .annotate(similarity=TrigramSimilarity("lexeme", lexeme))
        .filter(similarity__gte=CLOSENESS)
        .order_by("-similarity", "lexeme")
        .values_list("lexeme", "similarity")
        .distinct()
    )
    return [close for close, _ in similar[:CLOSE_WORDS]]


def _quoted(lexeme: str) -> str:
    # tsquery's own quoting: a lexeme is taken as it is, whatever it holds.
    return "'" + lexeme.replace("\\", "\\\\").replace("'", "''") + "'"


def _catch_up() -> None:
    """Add the lexemes of the entries written since the last catch-up to the vocabulary.

    Read by updated_at: an entry written without it (raw SQL, QuerySet.update() of other
    fields) adds its new words at its next save. The vocabulary only grows: a word of
    an entry since changed or unpublished stays, and counts as known.
    """
    since = VocabularyUpdate.objects.aggregate(last=Max("entries_written_up_to"))["last"]
    up_to = ErrorEntry.objects.aggregate(last=Max("updated_at"))["last"]
    if up_to is None or (since is not None and up_to <= since):
        return
    written = ErrorEntry.objects.published().filter(updated_at__lte=up_to).order_by()
    if since is not None:
        written = written.filter(updated_at__gte=since)
    lexemes = written.annotate(lexeme=DOCUMENT_LEXEMES).values_list("lexeme", flat=True)
    # Only those a query word could be (letters and digits: no /checkpoint/model- from a
    # path in the prose), and only those the vocabulary lacks.
    new = {lexeme for lexeme in lexemes.distinct() if WORD.fullmatch(lexeme)}
    new -= set(Lexeme.objects.filter(lexeme__in=new).values_list("lexeme", flat=True))
    Lexeme.objects.bulk_create(Lexeme(lexeme=lexeme) for lexeme in sorted(new))
    VocabularyUpdate.objects.create(entries_written_up_to=up_to)
