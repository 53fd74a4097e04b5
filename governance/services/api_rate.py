"""Each API token's calls per minute, counted atomically in the database every process and host shares.

One statement both counts the call and says how many this minute has seen, so concurrent calls
(threads, web workers, hosts) can never read the same count: PostgreSQL and SQLite (3.35+) both
take `INSERT … ON CONFLICT … DO UPDATE … RETURNING` as a single atomic step. A count is no change
to memory, so it has no event (as a recall's use count has none).

On PostgreSQL the count commits without waiting for its WAL to reach the disk
(`synchronous_commit = off` for that one statement's transaction): every API call counts, and
waiting for a flush cost each call 0.4–2 ms on a busy server, where the statement itself takes
0.05 ms. It stays atomic and visible to every other session at once; only a server crash can lose
the last fraction of a second of counts, which at worst lets a token make a few more calls that
minute. Inside a caller's transaction the plain statement runs, so the caller's own commit is
never made asynchronous.
"""

from __future__ import annotations

from django.db import connection

from governance.models import ApiCallCount

_TABLE = ApiCallCount._meta.db_table
_ADD_ONE = f"ON CONFLICT (token_id, minute) DO UPDATE SET calls = {_TABLE}.calls + 1 RETURNING calls"
_COUNT = f"INSERT INTO {_TABLE} (token_id, minute, calls) VALUES (%s, %s, 1) {_ADD_ONE}"
# The same count, with synchronous_commit off for this statement's own (implicit) transaction only:
# set_config(…, true) is local to the transaction, and the CTE is read so that it is evaluated.
_COUNT_LAZY = (f"WITH lazy AS (SELECT set_config('synchronous_commit', 'off', true)) "
               f"INSERT INTO {_TABLE} (token_id, minute, calls) SELECT %s, %s, 1 FROM lazy {_ADD_ONE}")  # fmt: skip
_PRUNE = f"DELETE FROM {_TABLE} WHERE token_id = %s AND minute < %s"


def count_call(token_id: int, minute: int) -> int:
    """Count one call of the token in `minute` (minutes since the epoch); return the minute's calls so
    far, this one included. The first call of a minute also deletes the token's earlier minutes, so a
    token keeps one row: only one caller ever sees 1, so no two prunes of a token race."""
    lazy = connection.vendor == "postgresql" and not connection.in_atomic_block
    with connection.cursor() as cursor:
        cursor.execute(_COUNT_LAZY if lazy else _COUNT, [token_id, minute])
        calls = int(cursor.fetchone()[0])
        if calls == 1:
            cursor.execute(_PRUNE, [token_id, minute])
    return calls
