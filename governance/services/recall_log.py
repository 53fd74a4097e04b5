"""What recall served agents, kept a while: the evidence behind two gold-case candidates and behind a
proposal's "what changed in real traffic".

Memory announces each recall it served an agent (`memory.signals.recall_served`: the query, what came
back in order, the settings version that ranked it) and keeps no query itself. Governance keeps them
here as `ServedRecall` rows for `TIDELINE_RECALL_LOG_DAYS` (14 by default), written in batches as
recall's reinforcement is (`TIDELINE_REINFORCE_FLUSH_SECONDS` after the first unwritten one, by a
short-lived thread, never by the request), so the log costs an agent's recall no database write. A
shredded origin takes its rows along: its queries are its own words.

Two candidates come from the log, each for a person to accept or reject:

* a recall that found nothing relevant, followed within `ANSWERED_WITHIN` by a write from the same
  origin that shares the query's words: "this fact answers that question". Writes are matched
  against the log in the same batches, after the recalls are written: one query for every write of
  the interval, where asking at each write cost every write a statement of its own;
* a reviewer's verdict that admits a fact and archives the one recall served first for a query:
  "that query should now find the admitted fact".
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import DatabaseError, connection, transaction
from django.utils import timezone

from governance.models import GoldCandidate, ServedRecall
from governance.services.gold_candidates import open_candidate, storable_query
from memory.engine.recall.tokenize import recall_terms
from memory.models import Fact, Workspace
from memory.services.recall.reinforcement import RETRY_SECONDS, flush_at_exit, flush_seconds

log = logging.getLogger("tideline.recall")

SERVED_KEPT = 10  # the ids kept of one recall, best first
ANSWERED_WITHIN = timedelta(minutes=10)
VERDICT_QUERIES = 20  # candidates one verdict may open at most (the most recent distinct queries)
PRUNE_EVERY_SECONDS = 3600.0
# Rows held while the database refuses them (locked, restarting): beyond this many the oldest go,
# so a database away for hours costs the log its oldest recalls, never the process its memory.
HELD_AT_MOST = 50_000


def kept_days() -> int:
    return int(getattr(settings, "TIDELINE_RECALL_LOG_DAYS", 14))


@dataclass(frozen=True)
class Written:
    """A fact just written, waiting to be matched against the recalls that found nothing before it."""

    workspace_id: int
    origin_key: str
    fact_id: int
    memory_id: str
    written_by: str
    content: str
    at: datetime


class _Pending:
    """Served recalls and written facts not yet handled, in order, and the timer that handles them."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.rows: list[ServedRecall] = []
        self.written: list[Written] = []
        self.timer: threading.Timer | None = None
        self.pruned_at = 0.0

    def add(self, row: ServedRecall, delay: float) -> None:
        with self.lock:
            self.rows.append(row)
            self._schedule(delay)

    def add_written(self, item: Written, delay: float) -> None:
        with self.lock:
            self.written.append(item)
            self._schedule(delay)

    def put_back(self, rows: list[ServedRecall], delay: float, written: list[Written]) -> int:
        """Rows a write could not take (the database was locked or away): kept before the rows that
        came since, in order, and tried again `delay` seconds on. Returns how many of the oldest
        recalls went because more than `HELD_AT_MOST` were held (writes are held to as many)."""
        with self.lock:
            self.rows, dropped = _newest(rows + self.rows)
            self.written, _ = _newest(written + self.written)
            self._schedule(delay)
            return dropped

    def _schedule(self, delay: float) -> None:
        if self.timer is None:
            self.timer = threading.Timer(delay, _flush_in_thread)
            self.timer.daemon = True
            self.timer.start()

    def forget_written(self, workspace_id: int, origin_key: str) -> None:
        with self.lock:
            self.written = [w for w in self.written if (w.workspace_id, w.origin_key) != (workspace_id, origin_key)]

    def take(self) -> tuple[list[ServedRecall], list[Written]]:
        with self.lock:
            taken, self.rows = self.rows, []
            written, self.written = self.written, []
            if self.timer is not None:
                self.timer.cancel()
                self.timer = None
            return taken, written

    def of(self, workspace_id: int) -> list[ServedRecall]:
        with self.lock:
            return [row for row in self.rows if row.workspace_id == workspace_id]


def _newest(items: list) -> tuple[list, int]:
    """The last `HELD_AT_MOST` of `items`, and how many older ones went."""
    dropped = max(0, len(items) - HELD_AT_MOST)
    return items[dropped:], dropped


pending = _Pending()


def keep(sender: Any, *, workspace: Workspace, query: str, origin_key: str, memory_ids: list[str],
         settings_version: int, at: datetime, **kwargs: Any) -> None:  # fmt: skip
    """Receiver of `recall_served`: log the recall (now, or within the flush interval)."""
    wanted = storable_query(query)
    if not wanted or kept_days() <= 0:
        return
    ids = [str(mid) for mid in memory_ids[:SERVED_KEPT]]
    row = ServedRecall(workspace_id=workspace.pk, at=at, origin_key=origin_key, query=wanted, memory_ids=ids,
                       top_id=ids[0] if ids else "", settings_version=settings_version)  # fmt: skip
    delay = flush_seconds()
    if delay <= 0:
        with transaction.atomic():  # a savepoint: a refused row never breaks a caller's transaction
            _write([row])
    else:
        pending.add(row, delay)


def flush() -> int:
    """Write every pending row now (in this thread); returns how many.

    Rows the database refuses (locked, busy, away) stay pending, tried again one flush interval on
    (at least a second), and the error is raised."""
    rows, written = pending.take()
    if rows or written:
        try:
            with transaction.atomic():
                _write(rows)
                _answer(written)
        except DatabaseError:
            dropped = pending.put_back(rows, max(flush_seconds(), RETRY_SECONDS), written)
            if dropped:
                log.error("the recall log held %d unwritten recalls: the %d oldest were let go", HELD_AT_MOST, dropped)
            raise
    return len(rows)


def _flush_in_thread() -> None:
    try:
        flush()
    except DatabaseError as exc:  # kept pending and tried again (flush put them back)
        log.warning("the recall log is not written yet, tried again shortly: %s", exc)
    except Exception:  # noqa: BLE001 — the log loses a second of recalls, never the process; say so
        log.exception("could not write the recall log")
    finally:
        connection.close()


def _write(rows: list[ServedRecall]) -> None:
    if not rows:
        return
    live = set(Workspace.objects.filter(pk__in={r.workspace_id for r in rows}).values_list("pk", flat=True))
    ServedRecall.objects.bulk_create([r for r in rows if r.workspace_id in live])
    now = time.monotonic()
    if now - pending.pruned_at >= PRUNE_EVERY_SECONDS:
        pending.pruned_at = now
        prune()


flush_at_exit(lambda: bool(pending.rows or pending.written), flush, "the recall log")


def prune(now: datetime | None = None) -> int:
    """Delete rows older than the log keeps them; returns how many."""
    cutoff = (now or timezone.now()) - timedelta(days=max(kept_days(), 0))
    return ServedRecall.objects.filter(at__lt=cutoff).delete()[0]


def forget_origin(sender: Any, *, workspace: Workspace, origin_key: str, **kwargs: Any) -> None:
    """Receiver of `origin_shredded`: the origin's queries go with its facts, and its writes still
    waiting to be matched are let go unmatched (a candidate would keep the origin's own words)."""
    pending.forget_written(workspace.pk, origin_key)
    flush()
    ServedRecall.objects.filter(workspace=workspace, origin_key=origin_key).delete()


def answers(query: str, content: str) -> bool:
    """Whether a fact plausibly answers a query: it shares at least a third of the query's terms (one at
    least). A person decides; this only keeps unrelated writes from becoming candidates."""
    wanted = set(recall_terms(query))
    if not wanted:
        return False
    shared = wanted & set(recall_terms(content))
    return len(shared) >= max(1, math.ceil(len(wanted) / 3))


def answered_after(sender: Any, *, workspace: Workspace, fact: Fact, **kwargs: Any) -> None:
    """Receiver of `fact_written`: a recall by the same origin that found nothing a short while before,
    whose words the new fact shares, becomes a candidate ("this fact answers that question"). Matched
    with the next batch of the log (at once when the log is written at once)."""
    if kept_days() <= 0:
        return
    item = Written(workspace_id=workspace.pk, origin_key=fact.origin_key, fact_id=fact.pk, memory_id=fact.memory_id,
                   written_by=fact.written_by or "", content=fact.content, at=timezone.now())  # fmt: skip
    delay = flush_seconds()
    if delay <= 0:
        _answer([item])
    else:
        pending.add_written(item, delay)


def _answer(written: list[Written]) -> int:
    """Match written facts against the recalls that found nothing: each recall by the fact's origin in
    its workspace within `ANSWERED_WITHIN` before the write, whose words the fact shares, opens a
    candidate for the fact (once per query). One query reads every such recall for the whole batch;
    a fact purged since it was written opens nothing. Returns how many candidates were opened."""
    if not written:
        return 0
    misses = ServedRecall.objects.filter(
        workspace_id__in={w.workspace_id for w in written}, origin_key__in={w.origin_key for w in written},
        top_id="", at__gte=min(w.at for w in written) - ANSWERED_WITHIN, at__lte=max(w.at for w in written),
    ).order_by("-at")  # fmt: skip
    by_origin: dict[tuple[int, str], list[ServedRecall]] = {}
    for row in misses.only("workspace_id", "origin_key", "query", "at"):
        by_origin.setdefault((row.workspace_id, row.origin_key), []).append(row)
    matched: list[tuple[Written, list[str]]] = []
    for item in written:
        seen: list[str] = []
        for row in by_origin.get((item.workspace_id, item.origin_key), ()):
            if item.at - ANSWERED_WITHIN <= row.at <= item.at and row.query not in seen and answers(row.query, item.content):
                seen.append(row.query)
        if seen:
            matched.append((item, seen))
    if not matched:
        return 0
    live = set(Fact.objects.filter(pk__in=[item.fact_id for item, _ in matched]).values_list("pk", flat=True))
    workspaces = Workspace.objects.in_bulk([item.workspace_id for item, _ in matched])
    opened = 0
    for item, queries in matched:
        workspace = workspaces.get(item.workspace_id)
        if workspace is None or item.fact_id not in live:
            continue
        for query in queries:
            opened += open_candidate(workspace, query, item.memory_id, GoldCandidate.Source.WRITTEN_AFTER,
                                     item.written_by)  # fmt: skip
    return opened


def after_verdict(workspace: Workspace, decision: dict[str, Any], *, reviewer: str, kept: Sequence[str] = ()) -> int:
    """A verdict that took a fact out of recall in favour of another — admitted a held fact over it, or
    (a contradiction decided) kept one active fact over it (`kept`: the item's facts active after the
    verdict): each recent query whose first hit was the fact taken out becomes a candidate for the
    one that stands. Returns how many candidates it opened."""
    before, after = decision.get("before", {}), decision.get("after", {})
    admitted = [mid for mid, now in after.items()
                if now.get("lifecycle") == "active" and before.get(mid, {}).get("lifecycle") != "active"]  # fmt: skip
    replaced = [mid for mid, now in after.items()
                if now.get("lifecycle") != "active" and before.get(mid, {}).get("lifecycle") == "active"]  # fmt: skip
    if not admitted:
        admitted = [mid for mid in dict.fromkeys(kept) if mid not in replaced]
    if len(admitted) != 1 or not replaced:
        return 0
    flush()
    since = timezone.now() - timedelta(days=max(kept_days(), 0))
    rows = ServedRecall.objects.filter(workspace=workspace, top_id__in=replaced, at__gte=since).order_by("-at")
    queries: list[str] = []
    for query in rows.values_list("query", flat=True)[:500]:
        if query not in queries:
            queries.append(query)
        if len(queries) == VERDICT_QUERIES:
            break
    return sum(open_candidate(workspace, q, admitted[0], GoldCandidate.Source.VERDICT, reviewer) for q in queries)


TRAFFIC_QUERIES = 500  # the most recent distinct queries a proposal page compares


def first_hits_moved(workspace: Workspace, *, from_version: int, to_version: int, start: datetime,
                     end: datetime) -> dict[str, Any]:  # fmt: skip
    """Queries agents asked both before `start` (served by `from_version`) and between `start` and `end`
    (served by `to_version`): how many, and those whose first hit is not the same, newest first, each
    as {query, before, after} (a fact id, or "" for nothing relevant)."""
    flush()
    served = ServedRecall.objects.filter(workspace=workspace)
    after: dict[str, str] = {}
    for query, top in served.filter(at__gte=start, at__lt=end, settings_version=to_version).order_by(
            "-at").values_list("query", "top_id")[:5000]:  # fmt: skip
        after.setdefault(query, top)  # the latest answer under the new settings
        if len(after) == TRAFFIC_QUERIES:
            break
    before: dict[str, str] = {}
    for query, top in served.filter(at__lt=start, settings_version=from_version, query__in=list(after)).order_by(
            "-at").values_list("query", "top_id"):  # fmt: skip
        before.setdefault(query, top)  # the last answer before
    moved = [{"query": q, "before": before[q], "after": top} for q, top in after.items()
             if q in before and before[q] != top]  # fmt: skip
    return {"asked_both": len(before), "moved": moved}
