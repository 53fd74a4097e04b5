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

Why uses do not move the revision: making each batch a mutation (one `reinforced` event per
workspace per flush, with other processes re-reading only the two counters on sync) was measured
under the API bench (issue 17: 100 recalls/s, 2 workers, 100,000 facts): p50 15 → 32 ms and p99
39 → 164 ms, and worse with a 10 s interval (bigger batches, longer stalls). So another process
sees a fact's uses when it next re-reads that fact (any change to it, or a rebuild); its ranking
meanwhile misses at most the other process's recent uses, which decay weighs against days.
"""

from __future__ import annotations

import atexit
import logging
import threading
from collections import defaultdict
from datetime import datetime

from django.conf import settings
from django.db import connection
from django.db.models import F
from django.db.models.functions import Coalesce, Greatest

from memory.models import Fact

log = logging.getLogger("tideline.recall")


def flush_seconds() -> float:
    return float(getattr(settings, "TIDELINE_REINFORCE_FLUSH_SECONDS", 1.0))


class _Pending:
    """Uses not yet written: fact pk → (uses, latest moment)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.uses: dict[int, list] = {}
        self.timer: threading.Timer | None = None

    def add(self, pks: list[int], moment: datetime, delay: float) -> None:
        """Count the uses, and schedule their write `delay` seconds on unless one is due already."""
        with self.lock:
            for pk in pks:
                entry = self.uses.get(pk)
                if entry is None:
                    self.uses[pk] = [1, moment]
                else:
                    entry[0] += 1
                    entry[1] = max(entry[1], moment)
            if self.timer is None:
                self.timer = threading.Timer(delay, _flush_in_thread)
                self.timer.daemon = True
                self.timer.start()

    def take(self) -> dict[int, list]:
        with self.lock:
            taken, self.uses = self.uses, {}
            if self.timer is not None:
                self.timer.cancel()
                self.timer = None
            return taken


pending = _Pending()


def record(pks: list[int], moment: datetime) -> None:
    """Count one use of each fact (by pk) at `moment`: written now, or within the flush interval."""
    if not pks:
        return
    delay = flush_seconds()
    if delay <= 0:
        _write({pk: [1, moment] for pk in pks})
        return
    pending.add(pks, moment, delay)


def flush() -> int:
    """Write every pending use now (in this thread); returns how many facts were written."""
    taken = pending.take()
    if taken:
        _write(taken)
    return len(taken)


def _flush_in_thread() -> None:
    try:
        flush()
    except Exception:  # noqa: BLE001 — counts are lost, never the process; say so once
        log.exception("could not write recall reinforcement")
    finally:
        connection.close()  # this thread's own connection (back to the pool when there is one)


def _write(uses: dict[int, list]) -> None:
    """One UPDATE per distinct use count (a batch is mostly ones and twos), stamped with the latest
    use in it: a last use may read up to one flush interval late, against a half-life of days."""
    by_count: dict[int, list[int]] = defaultdict(list)
    latest: dict[int, datetime] = {}
    for pk, (count, moment) in uses.items():
        by_count[count].append(pk)
        latest[count] = max(latest.get(count, moment), moment)
    for count, pks in by_count.items():
        moment = latest[count]
        # Never moves a last use back: another process may have written a later one meanwhile.
        Fact.objects.filter(pk__in=pks).update(
            access_count=F("access_count") + count,
            last_accessed_at=Greatest(Coalesce(F("last_accessed_at"), moment), moment),
        )


atexit.register(lambda: flush() if pending.uses else None)
