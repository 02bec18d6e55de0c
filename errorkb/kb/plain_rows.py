"""Rows read by plain SQL statements, given the values and instances the ORM would give.

For the few reads of every cold entry page and record: building an ORM query costs
more than running it (0.3–0.5 ms of Python against 0.1 ms for a prepared statement),
so those statements are written once and only their rows are handled per request,
with the converters the ORM itself applies to each column (a JSON column decoded, a
timestamp SQLite returns as text parsed).
"""

from collections import namedtuple
from collections.abc import Sequence

from django.db import connections
from django.db.models import Model
from django.db.models.base import ModelState

# Where each connection keeps the converters it looked up: they are bound to that
# connection's operations, and a connection belongs to one thread.
_CACHE = "_plain_rows_converters"


def fetch(model: type[Model], sql: str, params: Sequence) -> list[tuple]:
    """The statement's rows, as the cursor gives them."""
    with connections[model.objects.db].cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


def converted(model: type[Model], attnames: Sequence[str], rows: list) -> list[list]:
    """Each row's values (columns of `model`, in the order of attnames) as the ORM reads them."""
    connection = connections[model.objects.db]
    converters = _converters(connection, model, tuple(attnames))
    if not converters:
        return [list(row) for row in rows]
    out = []
    for row in rows:
        row = list(row)
        for position, functions, column in converters:
            value = row[position]
            for function in functions:
                value = function(value, column, connection)
            row[position] = value
        out.append(row)
    return out


def instance(model: type[Model], attnames: Sequence[str], values: Sequence) -> Model:
    """A model instance of converted values, as a query read with only(attnames) builds it.

    Built without Model.__init__, which costs more than the rest of a cold page's
    neighbours: a field not given is deferred, as Django tells it, by its absence from
    the instance's __dict__. No receiver of pre_init or post_init (which __init__ sends)
    may be connected to these models; tests/kb/test_plain_rows.py holds them to it.
    """
    row = model.__new__(model)
    row._state = ModelState()
    row._state.adding, row._state.db = False, model.objects.db
    row.__dict__.update(zip(attnames, values, strict=True))
    return row


def named(model: type[Model], attnames: Sequence[str], rows: list) -> list[tuple]:
    """values_list(*attnames, named=True) of these rows."""
    row_type = _row_type(tuple(attnames))
    return [row_type._make(values) for values in converted(model, attnames, rows)]


_ROW_TYPES: dict[tuple, type] = {}


def _row_type(attnames: tuple[str, ...]) -> type:
    if attnames not in _ROW_TYPES:
        _ROW_TYPES[attnames] = namedtuple("Row", attnames)
    return _ROW_TYPES[attnames]


def _converters(connection, model: type[Model], attnames: tuple[str, ...]) -> list:
    cache = connection.__dict__.setdefault(_CACHE, {})
    key = (model, attnames)
    if key not in cache:
        fields = {field.attname: field for field in model._meta.concrete_fields}
        found = []
        for position, name in enumerate(attnames):
            column = fields[name].get_col(model._meta.db_table)
            functions = connection.ops.get_db_converters(column)
            functions += fields[name].get_db_converters(connection)
            if functions:
                found.append((position, functions, column))
        cache[key] = found
    return cache[key]
