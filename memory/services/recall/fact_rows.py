"""An origin's facts as its recall index reads them: one raw query, timestamps as epoch milliseconds.

The ORM's `values_list` makes an aware `datetime` of every timestamp (through Django's time-zone
loader, in Python), parses every JSON column, and the index then turned each datetime back into
milliseconds: at a hundred thousand facts that was half of a cold build's reading. Here PostgreSQL
hands timestamps over as whole epoch microseconds, SQLite as the text it stores (read by
`datetime.fromisoformat` rather than the regular expression Django's converter runs), and
`supersedes` is parsed only when it names something (None when it names nothing). Every value
equals `memory.timestamps.to_ms` of what the ORM reads, exactly (a test compares both).

Rows come in write (pk) order, `chunk` at a time (memory.services.recall.paged), as
`Columns` named tuples whose timestamp fields hold milliseconds (an int when whole, else a float)
or None.
"""

from __future__ import annotations

import json
from collections import namedtuple
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime, timedelta

from django.db import DEFAULT_DB_ALIAS, connections, models

from memory.engine.facts import fields as F
from memory.models import Fact
from memory.services.recall import paged

COLUMNS = F.columns_for("recall", "recall_meta")
Columns = namedtuple("Columns", COLUMNS)

_FIELDS = [Fact._meta.get_field(name) for name in COLUMNS]
_TIMESTAMPS = frozenset(i for i, f in enumerate(_FIELDS) if isinstance(f, models.DateTimeField))
_JSON = frozenset(i for i, f in enumerate(_FIELDS) if isinstance(f, models.JSONField))
_EMPTY_JSON = frozenset({"[]", "null", ""})
_KEY_AT = COLUMNS.index("id")  # the pk: rows come in its order, and a page continues after the last
_EPOCH = datetime(1970, 1, 1)
_MICROSECOND = timedelta(microseconds=1)


def _select_list(vendor: str) -> str:
    quote = connections[DEFAULT_DB_ALIAS].ops.quote_name
    parts = []
    for i, field in enumerate(_FIELDS):
        column = quote(field.column)
        if i in _TIMESTAMPS and vendor == "postgresql":
            # EXTRACT gives a numeric (PostgreSQL 14 on): exact, so microseconds survive the cast.
            column = f"(EXTRACT(EPOCH FROM {column}) * 1000000)::bigint"
        elif i in _TIMESTAMPS:
            # The stored text as it is: a column of declared type "datetime" would go through the
            # converter Django registers with sqlite3 (a regular expression per value).
            column = f"CAST({column} AS TEXT)"
        parts.append(column)
    return ", ".join(parts)


def _ms_of_microseconds(value: int | None) -> int | float | None:
    """`to_ms` of the moment `value` microseconds after the epoch."""
    if value is None:
        return None
    whole, rest = divmod(value, 1000)
    return whole if not rest else value / 1000


def _ms_of_text(value: str | None) -> int | float | None:
    """`to_ms` of a timestamp as SQLite stores it (UTC, `YYYY-MM-DD HH:MM:SS[.ffffff]`)."""
    if value is None:
        return None
    moment = datetime.fromisoformat(value)
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC).replace(tzinfo=None)
    return _ms_of_microseconds((moment - _EPOCH) // _MICROSECOND)


def _json(value):
    """The parsed value; None for an empty list (most facts supersede nothing: no list each)."""
    if value is None or (isinstance(value, str) and value in _EMPTY_JSON):
        return None
    parsed = json.loads(value) if isinstance(value, (str, bytes)) else value
    return parsed or None


def read(workspace_id: int, origin_key: str, memory_ids: Sequence[str] | None = None,
         chunk: int = 5000, using: str = DEFAULT_DB_ALIAS) -> Iterator[Columns]:  # fmt: skip
    """The facts of one origin (only `memory_ids`, if given), in pk order, from the database `using`."""
    connection = connections[using]
    vendor = connection.vendor
    sql = (f"SELECT {_select_list(vendor)} FROM {connection.ops.quote_name(Fact._meta.db_table)}"
           f" WHERE {connection.ops.quote_name('workspace_id')} = %s AND {connection.ops.quote_name('origin_key')} = %s")  # fmt: skip
    params: list = [workspace_id, origin_key]
    if memory_ids is not None:
        if not memory_ids:
            return
        sql += f" AND {connection.ops.quote_name('memory_id')} IN ({', '.join(['%s'] * len(memory_ids))})"
        params.extend(memory_ids)
    stamp = _ms_of_microseconds if vendor == "postgresql" else _ms_of_text
    convert = [(i, stamp) for i in sorted(_TIMESTAMPS)] + [(i, _json) for i in sorted(_JSON)]
    key = f"{connection.ops.quote_name(Fact._meta.db_table)}.{connection.ops.quote_name(Fact._meta.pk.column)}"
    for batch in paged.raw_batches(sql, params, chunk, key, _KEY_AT, using):
        for values in batch:
            values = list(values)
            for i, how in convert:
                values[i] = how(values[i])
            yield Columns._make(values)
