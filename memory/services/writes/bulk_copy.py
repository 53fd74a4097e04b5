"""Many new rows of one model at once: PostgreSQL's COPY there, `bulk_create` elsewhere.

`bulk_create` builds one INSERT with a placeholder per value; for a batch of 500 facts of forty-odd
columns that is 20,000 placeholders, which Django assembles and psycopg re-parses on every batch
(two thirds of a million-fact import went there). COPY streams the same rows with no statement to
build. The ids come from the table's own sequence first, so each object has its primary key
afterwards, as `bulk_create` leaves it on PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.db import DEFAULT_DB_ALIAS, connection, connections, models


def create_all(model: type[models.Model], objects: Sequence[models.Model]) -> list[models.Model]:
    """Save `objects` (all new) in one go; returns them with their primary keys set.

    Every field goes through its own `pre_save` and `get_db_prep_save`, as in `bulk_create`, so
    sealed fields are sealed and defaults applied the same way. No signals, as with `bulk_create`."""
    objects = list(objects)
    if connection.vendor != "postgresql" or not objects:
        return model._default_manager.bulk_create(objects)
    meta = model._meta
    quote = connection.ops.quote_name
    table, pk = meta.db_table, meta.pk
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT nextval(pg_get_serial_sequence(%s, %s)) FROM generate_series(1, %s)",
            [quote(table), pk.column, len(objects)],
        )
        for obj, (new_id,) in zip(objects, cursor.fetchall(), strict=True):
            obj.pk = new_id
    fields = list(meta.concrete_fields)
    real = direct_connection()
    # Every value first: preparing one may query (sealing reads the origin's key), and a
    # connection in the middle of a COPY answers nothing else.
    rows = [[field.get_db_prep_save(field.pre_save(obj, True), real) for field in fields] for obj in objects]
    copy_rows(table, [field.column for field in fields], rows)
    for obj in objects:
        obj._state.adding, obj._state.db = False, connection.alias
    return objects


def direct_connection():
    """The default connection itself, for loops that prepare many values against it: through Django's
    `connection` proxy each read looks up the thread's connection again (py-spy found 10 s of a
    million-fact dream's 130 s of applying changes in those lookups)."""
    return connections[DEFAULT_DB_ALIAS]


def copy_rows(table: str, columns: Sequence[str], rows: Sequence[Sequence]) -> None:
    """Stream `rows` (values in `columns` order, ready for the database) into `table` with COPY
    (PostgreSQL only). Through Django's error wrapper, so a broken constraint is an IntegrityError
    as from an INSERT."""
    quote = connection.ops.quote_name
    copying = f"COPY {quote(table)} ({', '.join(quote(column) for column in columns)}) FROM STDIN"
    with connection.cursor() as cursor, connection.wrap_database_errors, cursor.cursor.copy(copying) as copy:
        for row in rows:
            copy.write_row(row)
