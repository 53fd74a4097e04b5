"""Reads that a PostgreSQL streaming replica serves: the full build of a recall index (docs/SCALING.md §4).

A full build reads every fact, vector and link of an origin: by far the largest read a web process
makes, and the one that grows with the number of workspaces it meets. With `TIDELINE_REPLICA_URL`
set, settings add the replica as the `replica` database alias (never migrated), and a build reads
there, inside `reading()`: one `REPEATABLE READ` transaction, so every row it reads belongs to one
moment of the replica, and the index is exact as of the revision the replica had then. The build
then takes the events since that revision from the primary, as after restoring a snapshot, so
however far the replica lags, a recall sees what the primary has.

What stays on the primary: everything else. Token checks, the write path, review decisions and
anything inside `mutate()` write or decide a write on what they read; a recall's revision check and
the sync after a build must see the primary's latest revision.

When the replica cannot serve: a workspace it does not have yet (created a moment ago), or one more
than `TIDELINE_REPLICA_MAX_BEHIND` revisions behind the primary (replaying that many events would
cost more than reading the primary), is built from the primary. A replica that fails (down,
unreachable, recovery conflicts) is left alone by this process for `TIDELINE_REPLICA_RETRY_SECONDS`
and every build goes to the primary meanwhile.

The router sends reads to the replica only inside `reading()`, so no other code can read stale rows
by accident; `using=ALIAS` on a raw cursor does the same for the reads that skip the ORM.
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from django.conf import settings
from django.db import connections, transaction

logger = logging.getLogger("tideline.replica")

ALIAS = "replica"
_reading: contextvars.ContextVar[str | None] = contextvars.ContextVar("tideline_replica_reading", default=None)
_lock = threading.Lock()
_down_until = 0.0


class ReplicaRouter:
    """Reads inside `reading()` go to the replica; every other read and every write to the primary.
    The replica is never migrated: it replays the primary's schema."""

    def db_for_read(self, model, **hints) -> str | None:
        return _reading.get()

    def db_for_write(self, model, **hints) -> str | None:
        return None

    def allow_relation(self, obj1, obj2, **hints) -> bool | None:
        return None

    def allow_migrate(self, db: str, app_label: str, model_name: str | None = None, **hints) -> bool | None:
        return False if db == ALIAS else None


def configured() -> bool:
    return ALIAS in settings.DATABASES


def available() -> bool:
    """Is there a replica this process may read now (configured, and not failed a moment ago)?"""
    return configured() and time.monotonic() >= _down_until


def max_behind() -> int:
    """How many revisions a replica may lag a workspace's and still serve its full build."""
    return int(getattr(settings, "TIDELINE_REPLICA_MAX_BEHIND", 1000))


def failed(error: BaseException) -> None:
    """The replica failed: reads go to the primary for the next `TIDELINE_REPLICA_RETRY_SECONDS`."""
    global _down_until
    retry = float(getattr(settings, "TIDELINE_REPLICA_RETRY_SECONDS", 30))
    with _lock:
        _down_until = time.monotonic() + retry
    logger.warning("the read replica failed, builds read the primary for %g s: %s", retry, error)
    with contextlib.suppress(Exception):  # a broken connection may fail to close; it is dropped either way
        connections[ALIAS].close()


def recovered() -> None:
    """Forget a failure now (tests, and an operator who fixed the replica)."""
    global _down_until
    with _lock:
        _down_until = 0.0


@contextmanager
def reading() -> Iterator[str]:
    """Inside: ORM reads go to the replica, all in one `REPEATABLE READ` transaction (one moment of
    the replica); yields the alias for raw cursors. Database errors propagate: call `failed()`."""
    with transaction.atomic(using=ALIAS):
        with connections[ALIAS].cursor() as cursor:
            cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        token = _reading.set(ALIAS)
        try:
            yield ALIAS
        finally:
            _reading.reset(token)
