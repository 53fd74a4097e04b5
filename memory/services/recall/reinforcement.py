"""Recall reinforcement written in batches (ENGINE-SPEC §3.9).

A recall counts a use of each fact it returns: `access_count + 1` and `last_accessed_at = now`.
The process's own recall index takes the use at once (under the index lock); the database row
takes it here. Written one UPDATE per recall, that was a third of an API recall's time and a
write per read for PostgreSQL, so uses are gathered per process and written together
`TIDELINE_REINFORCE_FLUSH_SECONDS` after the first unwritten one (1 s by default; 0 writes each
recall's uses at once), by a short-lived thread of their own, never by the request.

What a batch risks: a process killed hard (SIGKILL, power) loses at most that many seconds of use
counts. Nothing else depends on them being written at once: decay reads them, and a use is silent
(no event), as the original's markAccessed was. A normal exit writes what is pending.

How other processes see them: each batch is a small transaction of its own that bumps the
workspace's `uses_version` and stamps the facts it writes with the new value. Every recall already
reads its workspace's revision; it reads `uses_version` in the same query, and when that moved, the
recall index re-reads only `access_count` and `last_accessed_at` of the facts stamped since
(`recall_index._sync_uses`), adding this process's own uses not yet written. So a use made by any
process reaches every process's ranking within one flush interval, with no rebuild.

Why uses do not move the revision: the revision orders mutations, and each of those is an event. A
use is silent (ENGINE-SPEC §3.9, as the original's markAccessed was), and making each batch a
mutation (an event per batch, every process re-reading the used facts whole) was measured under
the API bench (docs/BENCHMARKS.md, "The agent API under load": 100 recalls/s, 2 workers, 100,000 facts) at p50 15 → 32 ms and p99
39 → 164 ms. A batch takes the workspace row first, as a mutation does (the same lock order, so the
two never deadlock), and holds it only for its UPDATEs.
"""

from __future__ import annotations

import atexit
import logging
import threading
from collections import defaultdict
from collections.abc import Callable
from datetime import datetime

from django.conf import settings
from django.db import DatabaseError, connection, transaction
from django.db.models import F
from django.db.models.functions import Coalesce, Greatest

from memory.models import Fact, Workspace

log = logging.getLogger("tideline.recall")
RETRY_SECONDS = 1.0  # the least wait before a batch the database refused is tried again


def flush_seconds() -> float:
    return float(getattr(settings, "TIDELINE_REINFORCE_FLUSH_SECONDS", 1.0))


class _Pending:
    """Uses not yet written: workspace pk → fact pk → [uses, latest moment]."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.uses: dict[int, dict[int, list]] = {}
        self.timer: threading.Timer | None = None

    def add(self, workspace_id: int, pks: list[int], moment: datetime, delay: float) -> None:
        """Count the uses, and schedule their write `delay` seconds on unless one is due already."""
        with self.lock:
            _tally(self.uses.setdefault(workspace_id, {}), pks, moment)
            self._schedule(delay)

    def put_back(self, taken: dict[int, dict[int, list]], delay: float) -> None:
        """Uses a write could not take (the database was locked or away): counted again, tried again
        `delay` seconds on. A use is a count, so merging keeps every one."""
        with self.lock:
            for workspace_id, uses in taken.items():
                mine = self.uses.setdefault(workspace_id, {})
                for pk, (count, moment) in uses.items():
                    entry = mine.get(pk)
                    if entry is None:
                        mine[pk] = [count, moment]
                    else:
                        entry[0] += count
                        entry[1] = max(entry[1], moment)
            self._schedule(delay)

    def _schedule(self, delay: float) -> None:
        """The write `delay` seconds on, unless one is due already (call under `lock`)."""
        if self.timer is None:
            self.timer = threading.Timer(delay, _flush_in_thread)
            self.timer.daemon = True
            self.timer.start()

    def take(self) -> dict[int, dict[int, list]]:
        with self.lock:
            taken, self.uses = self.uses, {}
            if self.timer is not None:
                self.timer.cancel()
                self.timer = None
            return taken

    def counts(self, workspace_id: int) -> dict[int, int]:
        """This process's unwritten uses in one workspace: fact pk → uses."""
        with self.lock:
            return {pk: entry[0] for pk, entry in self.uses.get(workspace_id, {}).items()}


def _tally(uses: dict[int, list], pks: list[int], moment: datetime) -> None:
    """Add one use of each fact (by pk) at `moment` to `uses` (fact pk → [uses, latest moment])."""
    for pk in pks:
        entry = uses.get(pk)
        if entry is None:
            uses[pk] = [1, moment]
        else:
            entry[0] += 1
            entry[1] = max(entry[1], moment)


pending = _Pending()


def record(workspace_id: int, pks: list[int], moment: datetime) -> None:
    """Count one use of each fact (by pk) at `moment`: written now, or within the flush interval."""
    if not pks:
        return
    delay = flush_seconds()
    if delay <= 0:
        uses: dict[int, list] = {}
        _tally(uses, pks, moment)
        _write(workspace_id, uses)
        return
    pending.add(workspace_id, pks, moment, delay)


def flush() -> int:
    """Write every pending use now (in this thread); returns how many facts were written.

    A workspace whose write fails on the database (locked, busy, away) keeps its uses pending, tried
    again one flush interval on (at least a second), and the error is raised after the others are written."""
    taken = pending.take()
    failed: dict[int, dict[int, list]] = {}
    error: DatabaseError | None = None
    for workspace_id, uses in taken.items():
        try:
            _write(workspace_id, uses)
        except DatabaseError as exc:
            failed[workspace_id], error = uses, exc
    if failed:
        pending.put_back(failed, max(flush_seconds(), RETRY_SECONDS))
        raise error
    return sum(len(uses) for uses in taken.values())


def _flush_in_thread() -> None:
    try:
        flush()
    except DatabaseError as exc:  # kept pending and tried again (flush put them back)
        log.warning("recall reinforcement not written yet, tried again shortly: %s", exc)
    except Exception:  # noqa: BLE001 — counts are lost, never the process; say so once
        log.exception("could not write recall reinforcement")
    finally:
        connection.close()  # this thread's own connection (back to the pool when there is one)


def _write(workspace_id: int, uses: dict[int, list]) -> None:
    """One transaction: the workspace's `uses_version` moved on, then one UPDATE per distinct use
    count (a batch is mostly ones and twos), stamped with that version and with the latest use in
    it (a last use may read up to one flush interval late, against a half-life of days)."""
    by_count: dict[int, list[int]] = defaultdict(list)
    latest: dict[int, datetime] = {}
    for pk, (count, moment) in uses.items():
        by_count[count].append(pk)
        latest[count] = max(latest.get(count, moment), moment)
    table = connection.ops.quote_name(Workspace._meta.db_table)
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(f"UPDATE {table} SET uses_version = uses_version + 1 WHERE id = %s RETURNING uses_version",
                       [workspace_id])  # fmt: skip
        found = cursor.fetchone()
        if found is None:
            return  # the workspace was deleted meanwhile, and its facts with it
        version = found[0]
        for count, pks in by_count.items():
            moment = latest[count]
            # Never moves a last use back: another process may have written a later one meanwhile.
            Fact.objects.filter(workspace_id=workspace_id, pk__in=pks).update(
                access_count=F("access_count") + count,
                last_accessed_at=Greatest(Coalesce(F("last_accessed_at"), moment), moment),
                uses_version=version,
            )


def flush_at_exit(waiting: Callable[[], bool], flush: Callable[[], int], what: str) -> None:
    """Register `flush` to run as the process ends, if `waiting()`; a database that refuses it then
    is logged (`what` was not written), since nothing will try again."""

    def at_exit() -> None:
        if not waiting():
            return
        try:
            flush()
        except DatabaseError as exc:
            log.error("%s not written at exit: %s", what, exc)

    atexit.register(at_exit)


flush_at_exit(lambda: bool(pending.uses), flush, "recall reinforcement")
