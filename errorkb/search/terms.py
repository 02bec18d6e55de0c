"""What a search query asks for, how a match ranks by its entry's state, and what a database
answers: shared by both vendors."""

import json
import re
from dataclasses import dataclass, field

from django.db.models import BooleanField, Case, Exists, Func, OuterRef, Value, When

from errorkb.verification.models import EntryState, State
from errorkb.verification.state.per_release import RAISED

# Letters and digits: the words both databases index. Anything else in a query
# (quotes, operators, NUL) is a separator, so no query can be a syntax error.
WORD = re.compile(r"[^\W_]+")
MAX_WORDS = 16


class HasRaisedRow(Func):
    """Whether appliesTo rows (a JSON array, or null) hold one whose outcome is raised."""

    output_field = BooleanField()
    _ROW = json.dumps([{"outcome": RAISED}])

    def as_postgresql(self, compiler, connection, **extra_context):
        template = f"coalesce(%(expressions)s @> '{self._ROW}', false)"
        return self.as_sql(compiler, connection, template=template, **extra_context)

    def as_sqlite(self, compiler, connection, **extra_context):
        template = (
            "EXISTS (SELECT 1 FROM json_each(%(expressions)s) r "
            f"WHERE json_extract(r.value, '$.outcome') = '{RAISED}')"
        )
        return self.as_sql(compiler, connection, template=template, **extra_context)


class HasRows(Func):
    """Whether appliesTo rows (a JSON array, or null) hold any row."""

    output_field = BooleanField()

    def as_postgresql(self, compiler, connection, **extra_context):
        rows, params = compiler.compile(self.source_expressions[0])
        sql = f"coalesce(jsonb_typeof({rows}) = 'array' AND {rows} <> '[]', false)"
        return sql, [*params, *params]

    def as_sqlite(self, compiler, connection, **extra_context):
        template = "coalesce(json_array_length(%(expressions)s), 0) > 0"
        return self.as_sql(compiler, connection, template=template, **extra_context)


def state_rank() -> Case:
    """The rank of each entry of a queryset (annotate it with this), on either database.

    Within a tier of matches, what errorkb has proven comes first (0: its stored state is
    verified), and last what burn never prints (2: none of its appliesTo rows raises it,
    and it has rows or its stored state is unreachable). An entry unreachable with the
    standard set-ups but raised with another stays in the middle (1): it can be in a
    reader's log.
    """
    states = EntryState.objects.filter(entry=OuterRef("pk"))
    never_raised = ~HasRaisedRow("applies_to") & (
        HasRows("applies_to") | Exists(states.filter(state=State.UNREACHABLE))
    )
    return Case(
        When(Exists(states.filter(state=State.VERIFIED)), then=Value(0)),
        When(never_raised, then=Value(2)),
        default=Value(1),
    )


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
