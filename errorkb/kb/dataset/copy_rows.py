"""New rows in bulk: PostgreSQL's COPY where bulk_create would spend its time in Python.

bulk_create on PostgreSQL sends a batch as arrays (UNNEST) built value by value in
Python, and compiles its SQL per batch: over half an import's time went there. COPY
formats the rows in C. The values are the ones bulk_create would send: each field's
pre_save (auto_now and the like) and get_db_prep_save (JSON, keys). Like bulk_create,
no signal is sent.
"""

from django.db import DEFAULT_DB_ALIAS, connection, connections

# Rows of one COPY, as bulk_create's batch_size: the ids it takes come in one query.
BATCH = 5000


def insert(model, objects: list) -> None:
    """bulk_create(objects): through COPY on PostgreSQL, given ids from the key's sequence."""
    if connection.vendor != "postgresql":
        model.objects.bulk_create(objects, batch_size=1000)
        return
    for start in range(0, len(objects), BATCH):
        _copy(model, objects[start : start + BATCH])


def _copy(model, objects: list) -> None:
    meta = model._meta
    if meta.pk.db_returning:  # an automatic key: taken now, as the Version rows need it
        _take_ids(model, [obj for obj in objects if obj.pk is None])
    # The connection itself, not the proxy: a field's value asks it things, a million times.
    db = connections[DEFAULT_DB_ALIAS]
    fields = [
        (field, field.pre_save, field.get_db_prep_save)
        for field in meta.concrete_fields
        if not field.generated  # the database writes it
    ]
    quote = db.ops.quote_name
    columns = ", ".join(quote(field.column) for field, _pre, _prep in fields)
    statement = f"COPY {quote(meta.db_table)} ({columns}) FROM STDIN"
    with db.cursor() as cursor, cursor.cursor.copy(statement) as copy:
        for obj in objects:
            copy.write_row([prep(pre(obj, True), connection=db) for _f, pre, prep in fields])
            obj._state.adding, obj._state.db = False, db.alias


def _take_ids(model, objects: list) -> None:
    if not objects:
        return
    meta = model._meta
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT nextval(pg_get_serial_sequence(%s, %s)) FROM generate_series(1, %s)",
            [meta.db_table, meta.pk.column, len(objects)],
        )
        for obj, (pk,) in zip(objects, cursor.fetchall(), strict=True):
            obj.pk = pk
