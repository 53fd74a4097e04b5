"""Each API token's calls per minute, counted atomically in the database every process and host shares.

One statement both counts the call and says how many this minute has seen, so concurrent calls
(threads, web workers, hosts) can never read the same count: PostgreSQL and SQLite (3.35+) both
take `INSERT … ON CONFLICT … DO UPDATE … RETURNING` as a single atomic step. A count is no change
to memory, so it has no event (as a recall's use count has none).
"""

from __future__ import annotations

from django.db import connection

from governance.models import ApiCallCount

_TABLE = ApiCallCount._meta.db_table
_COUNT = (f"INSERT INTO {_TABLE} (token_id, minute, calls) VALUES (%s, %s, 1) "
          f"ON CONFLICT (token_id, minute) DO UPDATE SET calls = {_TABLE}.calls + 1 RETURNING calls")  # fmt: skip
_PRUNE = f"DELETE FROM {_TABLE} WHERE token_id = %s AND minute < %s"


def count_call(token_id: int, minute: int) -> int:
    """Count one call of the token in `minute` (minutes since the epoch); return the minute's calls so
    far, this one included. The first call of a minute also deletes the token's earlier minutes, so a
    token keeps one row: only one caller ever sees 1, so no two prunes of a token race."""
    with connection.cursor() as cursor:
        cursor.execute(_COUNT, [token_id, minute])
        calls = int(cursor.fetchone()[0])
        if calls == 1:
            cursor.execute(_PRUNE, [token_id, minute])
    return calls
