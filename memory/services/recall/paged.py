"""Reading rows that are usually few and now and then millions: one plain query for the first page,
a server-side cursor only for what lies past it.

A recall index reads every fact, link and recent event of a scope when it is built or synced. On
PostgreSQL, Django streams with a server-side cursor (DECLARE, FETCH, FETCH, CLOSE: four round trips
and their bookkeeping), which holds memory flat at a million rows but made a 60-fact workspace's
build pay 1.5 ms of its 10 ms per read. Here the first `chunk` rows come from one ordinary query; only
when that page comes back full does the rest follow through a streaming cursor, from where the page
ended: after its last key for raw SQL, at `OFFSET` for a queryset (which must therefore order its
rows completely). On SQLite both are the same cursor.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from django.db import DEFAULT_DB_ALIAS, connections
from django.db.models import QuerySet


def rows(queryset: QuerySet, chunk: int) -> Iterator:
    """The rows of `queryset` (completely ordered: a total `order_by`), `chunk` per round trip."""
    if not queryset.query.order_by:
        raise ValueError("paged.rows needs a queryset with a complete order_by")
    page = list(queryset[:chunk])
    yield from page
    if len(page) == chunk:
        yield from queryset[chunk:].iterator(chunk_size=chunk)


def raw_batches(sql: str, params: Sequence, chunk: int, key: str, key_at: int,
                using: str = DEFAULT_DB_ALIAS) -> Iterator[list[tuple]]:  # fmt: skip
    """The rows of `sql` (a SELECT with a WHERE clause, no ORDER BY) in order of the unique column
    `key` (selected at position `key_at` of each row), in lists of at most `chunk`, one round trip
    each, read through the database `using`. The rows past the first page continue from its last
    key (`key > last`), so PostgreSQL never reads the first page twice."""
    connection = connections[using]
    ordered = f"{sql} ORDER BY {key}"
    if connection.vendor != "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(ordered, params)
            while batch := cursor.fetchmany(chunk):
                yield batch
        return
    with connection.cursor() as cursor:
        cursor.execute(f"{ordered} LIMIT %s", [*params, chunk])
        page = cursor.fetchall()
    if page:
        yield page
    if len(page) < chunk:
        return
    with connection.chunked_cursor() as cursor:
        cursor.execute(f"{sql} AND {key} > %s ORDER BY {key}", [*params, page[-1][key_at]])
        while batch := cursor.fetchmany(chunk):
            yield batch
