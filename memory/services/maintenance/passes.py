"""Maintenance passes (decay GC, the dream) applied to the database in batches.

The engine plans (`memory.engine.maintenance.decay_gc`, `dream`, …): pure functions over `MaintFact`s that return
field changes and links to add. This module loads the facts, asks for the plan, and applies it in
batches of `BATCH` changes, each batch one mutation (workspace lock held only for that batch), with
one event per change carrying its before/after so any change can be undone from the log. A run ends
with a `*_run` event holding the counts; a dream also records a `dream_run` event (status "started",
the planned counts) before its first batch, so a dream killed half-way can be undone by its run id.
`dry_run` plans and reports without writing.
"""

from __future__ import annotations

import json
import logging
import re
from collections import defaultdict, namedtuple
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import connection
from django.db.models.expressions import RawSQL
from django.utils import timezone

from memory import sealing
from memory.engine.facts import fields as F
from memory.engine.maintenance.dream import EVICT_MIN_AGE_MS
from memory.engine.maintenance.due import after, eviction_due, gc_due
from memory.engine.maintenance.plans import FactChange, MaintFact
from memory.engine.recall.heap import release_free_memory
from memory.models import Fact, FactTerm, Link, TermStat, Workspace
from memory.services.maintenance import due
from memory.services.mutation import mutate
from memory.services.writes import bulk_copy
from memory.services.writes.interchange import ANALYZE_AFTER, refresh_planner_statistics
from memory.services.writes.near_duplicates import index_facts, unindex_facts
from memory.timestamps import from_ms, to_ms
from tideline_kit import telemetry

BATCH = 2000
LINK_BATCH = 10000
VALUES_ROWS = 500  # rows per `UPDATE … FROM (VALUES …)` statement
REINDEX_BATCH = 2000  # facts given their near-duplicate postings again per query after an undo
_IN_CHUNK = 2000  # values per `__in` list (SQLite caps the parameters of one statement)
_WHOLE_WORKSPACE_AFTER = 50_000  # link endpoints beyond which one pass over the ids beats `IN` lists
_TIMESTAMP_FIELDS = {"valid_to", "valid_from"}
_LIFECYCLE_EVENT = {"archived": "archived", "pruned": "pruned", "active": "restored"}

logger = logging.getLogger(__name__)


@dataclass
class RunReport:
    kind: str
    workspace: str
    dry_run: bool
    counts: dict[str, int] = field(default_factory=dict)
    changes: int = 0
    links_added: int = 0
    # A dry run's plan, one entry per change it would make: {"memory_id", "action", "reason", …}.
    planned: list[dict[str, Any]] = field(default_factory=list)
    # When time alone next gives this pass work on the workspace as the run left it (epoch ms; None:
    # not within a year), and whether the run stopped at a cap with work left (`maintenance.due`).
    next_due_ms: int | None = None
    unfinished: bool = False

    def to_dict(self) -> dict[str, Any]:
        out = {"kind": self.kind, "workspace": self.workspace, "dry_run": self.dry_run, "counts": self.counts,
               "changes": self.changes, "links_added": self.links_added}  # fmt: skip
        return {**out, "planned": self.planned} if self.dry_run else out


# The columns a `MaintFact` is read from (the fact vocabulary's "maint" fields), read as rows named
# by this one list; the timestamps among them, which PostgreSQL hands over as epoch microseconds.
_MAINT_COLUMNS = F.columns_for("maint")
_MAINT_TIMES = tuple(spec.name for spec in F.fields_for("maint") if spec.is_time)
_MaintColumns = namedtuple("_MaintColumns", _MAINT_COLUMNS)


def maint_facts(workspace: Workspace, *, lifecycles: Sequence[str] | None = ("active",)) -> list[MaintFact]:
    """The workspace's facts as maintenance records (content decrypted; shredded origins skipped).

    Reads only the columns the passes need and opens each origin's key once (`sealing.unsealer`),
    so a fact costs one AES-GCM open and no model instance. On PostgreSQL the four timestamps come
    as epoch microseconds (exact), which skips parsing 200,000 timestamps per 100,000 facts."""
    facts = Fact.objects.filter(workspace=workspace)
    if lifecycles is not None:
        facts = facts.filter(lifecycle__in=list(lifecycles))
    columns: list[Any] = list(_MAINT_COLUMNS)
    as_ms: Callable[[Any], int | float | None] = to_ms
    if connection.vendor == "postgresql":
        quote = connection.ops.quote_name
        table = quote(Fact._meta.db_table)
        facts = facts.annotate(**{
            f"{name}_us": RawSQL(f"(EXTRACT(EPOCH FROM {table}.{quote(name)}) * 1000000)::bigint", ())
            for name in _MAINT_TIMES
        })  # fmt: skip
        columns = [f"{name}_us" if name in _MAINT_TIMES else name for name in columns]
        as_ms = _us_to_ms
    openers: dict[str, Callable[[bytes], bytes] | None] = {}
    # Each row arrives with its own copy of "active", "owner", …: one shared string per value instead.
    # Likewise one float per value (importance, decay rate and confidence mostly keep their defaults),
    # in a dict of their own: an equal key of another type (True for 1.0) must never be handed back.
    shared: dict[Any, Any] = {}
    numbers: dict[float | None, float | None] = {}

    def one(value: Any) -> Any:
        return shared.setdefault(value, value)

    def number(value: float | None) -> float | None:
        return numbers.setdefault(value, value)

    out = []
    for row in map(_MaintColumns._make, facts.order_by("pk").values_list(*columns).iterator(chunk_size=5000)):
        origin_key = row.origin_key
        if origin_key not in openers:
            try:
                openers[origin_key] = sealing.unsealer(workspace.pk, origin_key, "content")
            except sealing.KeyDestroyedError:
                openers[origin_key] = None
        opener = openers[origin_key]
        if opener is None:
            continue  # the origin was shredded: its facts can no longer be read
        out.append(MaintFact(
            memory_id=row.memory_id, content=opener(row.sealed_content).decode("utf-8"), segment=one(row.segment),
            tier=one(row.tier), importance=number(row.importance), decay_rate=number(row.decay_rate),
            access_count=row.access_count, last_accessed_at=int(as_ms(row.last_accessed_at)),
            created_at=int(as_ms(row.created_at)), lifecycle=one(row.lifecycle), status=one(row.status),
            confidence=number(row.confidence), subject_key=row.subject_key, source_type=one(row.source_type),
            origin_key=one(origin_key), valid_to=as_ms(row.valid_to), source_turn=row.source_turn,
            valid_from=as_ms(row.valid_from),
        ))  # fmt: skip
    return out


def _us_to_ms(micros: int | None) -> int | float | None:
    """`to_ms` of a moment given as epoch microseconds: whole milliseconds as an int, else a float."""
    if micros is None:
        return None
    return micros // 1000 if micros % 1000 == 0 else micros / 1000


# A pass's progress: (phase, done, total); total 0 while a phase has no count (reading, planning).
Progress = Callable[[str, int, int], None]


def logged(verb: str, workspace: Workspace) -> Progress:
    """Progress for a pass in the worker: a log line per phase, and per tenth of the changes written."""
    state = {"phase": None, "tenth": -1}

    def progress(phase: str, done: int, total: int) -> None:
        tenth = done * 10 // total if total else -1
        if phase != state["phase"] or tenth > state["tenth"]:
            count = f" {done:,} of {total:,}" if total else ""
            logger.info("%s of %s: %s%s", verb, workspace.name, phase, count)
        state["phase"], state["tenth"] = phase, tenth

    return progress


def _phase(progress: Progress | None, phase: str) -> None:
    if progress is not None:
        progress(phase, 0, 0)


def apply_changes(
    workspace: Workspace, *, changes: Sequence[FactChange], links: Sequence[tuple[str, str, str]], actor: str,
    reason_of: Callable[[FactChange], str] | None = None, kind_of: Callable[[FactChange], str] | None = None,
    now: datetime | None = None, progress: Progress | None = None,
) -> list[str]:  # fmt: skip
    """Write field changes and new links in batches; each change gets an event with before/after.

    Returns the ids whose change was skipped because the fact changed after the plan was made.
    `progress("applying", done, total)` hears of each batch written."""
    now = now or timezone.now()
    skipped: list[str] = []
    for start in range(0, len(changes), BATCH):
        if progress is not None:
            progress("applying changes", start, len(changes))
        batch = changes[start : start + BATCH]
        names = sorted({name for change in batch for name in (*change.before, *change.after)})
        with mutate(workspace, actor=actor, now=now) as m:
            # Only the columns the batch reads or writes, read under the workspace lock.
            rows = {
                memory_id: (pk, dict(zip(names, values, strict=True)))
                for memory_id, pk, *values in Fact.objects.filter(
                    workspace=workspace, memory_id__in={c.memory_id for c in batch}
                ).values_list("memory_id", "pk", *names)
            }
            written: dict[int, dict[str, Any]] = {}
            left: list[int] = []
            returned: list[int] = []
            for change in batch:
                row = rows.get(change.memory_id)
                if row is None or not _unchanged(row[1], change):
                    # Purged, or changed by a writer since the plan was made (a reinforcement, a
                    # feedback): the plan's values are stale, so this change is skipped, never forced.
                    skipped.append(change.memory_id)
                    continue
                pk, current = row
                values = written.setdefault(pk, {})
                for name, value in change.after.items():
                    # Later changes of the same fact see (and overwrite) the earlier ones, as in order.
                    current[name] = values[name] = from_ms(value) if name in _TIMESTAMP_FIELDS else value
                if change.after.get("lifecycle") in ("archived", "pruned"):
                    values["archived_at" if change.after["lifecycle"] == "archived" else "pruned_at"] = m.now
                    left.append(pk)
                elif change.after.get("lifecycle") == "active":
                    returned.append(pk)
                m.record((kind_of or _event_kind)(change), fact_ids=[change.memory_id],
                         reason=reason_of(change) if reason_of else "",
                         before=_jsonable(change.before), after=_jsonable(change.after))  # fmt: skip
            _write_fields(workspace, written)
            _unindex(left)
            if returned:
                objects = Fact.objects.in_bulk(returned)
                index_facts([objects[pk] for pk in returned if pk in objects])
    if progress is not None:
        progress("applying changes", len(changes), len(changes))
        if links:
            progress("adding links", 0, len(links))
    _add_links(workspace, links, actor, now)
    if len(changes) + len(links) >= ANALYZE_AFTER:
        # Millions of new links or changed rows: without fresh statistics the planner believes the
        # workspace holds a handful of links and reads all of them on every index sync after a write.
        refresh_planner_statistics()
    return skipped


def _unchanged(current: dict[str, Any], change: FactChange) -> bool:
    """Does the row still hold the values the plan saw? (Optimistic check under the workspace lock.)"""
    for name, value in change.before.items():
        now_value = current[name]
        if name in _TIMESTAMP_FIELDS:
            now_value = to_ms(now_value)
        if isinstance(value, float) and isinstance(now_value, float):
            if abs(value - now_value) > 1e-12:
                return False
        elif now_value != value:
            return False
    return True


def _write_fields(workspace: Workspace, written: dict[int, dict[str, Any]]) -> None:
    """Write each fact's new values: one UPDATE per group of facts given the same values (an archive
    sets the same lifecycle, valid_to and stamp on every fact it touches), and one
    `UPDATE … FROM (VALUES …)` per chunk for the facts whose values differ (merged metadata)."""
    same: dict[tuple[tuple[str, Any], ...], list[int]] = defaultdict(list)
    for pk, values in written.items():
        if values:
            same[tuple(sorted(values.items()))].append(pk)
    scattered: dict[tuple[str, ...], list[tuple[int, dict[str, Any]]]] = defaultdict(list)
    for items, pks in same.items():
        if len(pks) > 1 or len(same) <= 8:
            # In chunks: undoing a million-fact dream restores 650,000 evicted facts to the same
            # values, and one statement may carry at most 65,535 parameters.
            for start in range(0, len(pks), _IN_CHUNK):
                Fact.objects.filter(workspace=workspace, pk__in=pks[start : start + _IN_CHUNK]).update(**dict(items))
        else:
            scattered[tuple(name for name, _ in items)] += [(pk, dict(items)) for pk in pks]
    for names, rows in scattered.items():
        if connection.vendor == "postgresql":
            for start in range(0, len(rows), VALUES_ROWS):
                _update_from_values(names, rows[start : start + VALUES_ROWS])
        else:
            updated = [Fact(pk=pk, workspace=workspace, **values) for pk, values in rows]
            Fact.objects.bulk_update(updated, list(names), batch_size=VALUES_ROWS)


def _update_from_values(names: Sequence[str], rows: Sequence[tuple[int, dict[str, Any]]]) -> None:
    """One `UPDATE fact SET … FROM (VALUES (id, v1, …), …)` for rows that each carry their own values."""
    quote = connection.ops.quote_name
    fields = [Fact._meta.get_field(name) for name in names]
    casts = ", ".join(["CAST(%s AS bigint)"] + [f"CAST(%s AS {f.cast_db_type(connection)})" for f in fields])
    columns = ", ".join(quote(f.column) for f in fields)
    assignments = ", ".join(f"{quote(f.column)} = v.{quote(f.column)}" for f in fields)
    params: list[Any] = []
    real = bulk_copy.direct_connection()
    for pk, values in rows:
        params.append(pk)
        params += [f.get_db_prep_save(values[f.name], real) for f in fields]
    table = quote(Fact._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {table} SET {assignments} FROM (VALUES {', '.join([f'({casts})'] * len(rows))}) "
            f"AS v(id, {columns}) WHERE {table}.{quote(Fact._meta.pk.column)} = v.id",
            params,
        )


def _unindex(fact_ids: list[int]) -> None:
    """Drop the near-duplicate postings of facts that left the active set (`unindex_facts`).

    On PostgreSQL one statement per batch deletes the postings and lowers each term's document
    frequency by how many of them went, instead of reading every posting back into Python."""
    if not fact_ids:
        return
    if connection.vendor != "postgresql":
        unindex_facts(fact_ids)
        return
    quote = connection.ops.quote_name
    terms, stats = quote(FactTerm._meta.db_table), quote(TermStat._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(
            f"WITH gone AS (DELETE FROM {terms} WHERE fact_id = ANY(%s::bigint[]) "
            f"RETURNING workspace_id, origin_key, trusted, term) "
            f"INSERT INTO {stats} (workspace_id, origin_key, trusted, term, df) "
            f"SELECT workspace_id, origin_key, trusted, term, -COUNT(*) FROM gone "
            f"GROUP BY workspace_id, origin_key, trusted, term "
            f"ON CONFLICT (workspace_id, origin_key, trusted, term) DO UPDATE SET df = {stats}.df + excluded.df",
            [sorted(set(fact_ids))],
        )


def _add_links(workspace: Workspace, links: Sequence[tuple[str, str, str]], actor: str, now: datetime) -> None:
    """Store planned links in batches, each one mutation with its `linked` event. The endpoints' ids
    are resolved once for the whole run (a dream at a million facts adds millions of links), and each
    batch goes in by primary key; a link whose fact was purged meanwhile is left out."""
    if not links:
        return
    pks = _link_endpoint_pks(workspace, links)
    for start in range(0, len(links), LINK_BATCH):
        batch = links[start : start + LINK_BATCH]
        with mutate(workspace, actor=actor, now=now) as m:
            rows = [(pks[src], kind, pks[dst]) for src, kind, dst in batch if src in pks and dst in pks]
            if connection.vendor == "postgresql":
                _insert_links(workspace, rows, actor)
            else:
                alive = set(Fact.objects.filter(pk__in={pk for src, _, dst in rows for pk in (src, dst)}).values_list("pk", flat=True))
                Link.objects.bulk_create([Link(workspace=workspace, from_fact_id=src, to_fact_id=dst, kind=kind, created_by=actor)
                                          for src, kind, dst in rows if src in alive and dst in alive], ignore_conflicts=True)  # fmt: skip
            m.record("linked", fact_ids=sorted({src for src, _, _ in batch}), links=[list(link) for link in batch])


def _link_endpoint_pks(workspace: Workspace, links: Sequence[tuple[str, str, str]]) -> dict[str, int]:
    """memory_id → pk of every fact the links name: by their ids when they are few, else one pass over
    the workspace's ids (cheaper than hundreds of `IN` lists when the links touch most facts)."""
    named = {mid for src, _, dst in links for mid in (src, dst)}
    if len(named) <= _WHOLE_WORKSPACE_AFTER:
        return _fact_pks(workspace, named)
    every = Fact.objects.filter(workspace=workspace).values_list("memory_id", "pk").iterator(chunk_size=20_000)
    return {memory_id: pk for memory_id, pk in every if memory_id in named}


def _insert_links(workspace: Workspace, rows: Sequence[tuple[int, str, int]], actor: str) -> None:
    """`Link.objects.bulk_create(…, ignore_conflicts=True)` as one INSERT … SELECT of (from pk, kind,
    to pk) rows: the join by primary key leaves out a link whose fact is gone, and rows go in in the
    batch's order. Planned links carry no reason, so there is nothing to seal (`sealed_reason` stays
    NULL). The batch travels as one JSON document, which psycopg sends far faster than three arrays."""
    quote = connection.ops.quote_name
    links, facts = quote(Link._meta.db_table), quote(Fact._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {links} (workspace_id, from_fact_id, to_fact_id, dangling_target, kind, sealed_reason, "
            f"strength, weight, position, created_by, created_at) "
            f"SELECT %s, s.id, t.id, '', v.kind, NULL, NULL, 1.0, 0, %s, %s "
            f"FROM (SELECT (e->>0)::bigint AS src, e->>1 AS kind, (e->>2)::bigint AS dst, ord "
            f"      FROM json_array_elements(%s::json) WITH ORDINALITY AS x(e, ord)) AS v "
            f"JOIN {facts} s ON s.id = v.src JOIN {facts} t ON t.id = v.dst "
            f"ORDER BY v.ord ON CONFLICT DO NOTHING",
            [workspace.pk, actor, timezone.now(), json.dumps(list(rows))],
        )


def _event_kind(change: FactChange) -> str:
    """The event a change is logged as: a lifecycle flip, a confirmation, an invalidation, or a merge."""
    lifecycle = change.after.get("lifecycle")
    if lifecycle in _LIFECYCLE_EVENT:
        return _LIFECYCLE_EVENT[lifecycle]
    if change.after.get("status") == "confirmed":
        return "confirmed"
    if "valid_to" in change.after:
        return "invalidated"
    return "reinforced"  # richer metadata folded into a keeper


def _jsonable(values: dict[str, Any]) -> dict[str, Any]:
    return {k: (float(v) if hasattr(v, "item") else v) for k, v in values.items()}


def _tuning_of(workspace: Workspace):
    """The thresholds in force (the workspace's tuning version; the defaults when never changed)."""
    from memory.services.tuning import current

    return current(workspace)[1]


@telemetry.operation("memory.maintenance.gc")
def run_gc(workspace: Workspace, *, dry_run: bool = False, now: datetime | None = None, actor: str = "gc",
           progress: Progress | None = None) -> RunReport:  # fmt: skip
    """Decay GC (ENGINE-SPEC §4.1): archive or prune what decayed; permanent and confirmed facts are immune.

    `progress(phase, done, total)` hears of each phase (reading, planning, applying by batch)."""
    from memory.engine.maintenance.decay_gc import plan_decay_gc

    now = now or timezone.now()
    tuning = _tuning_of(workspace)
    began = due.revision_of(workspace)
    _phase(progress, "reading facts")
    facts = maint_facts(workspace)
    _phase(progress, "planning")
    plan = plan_decay_gc(facts, int(to_ms(now)), archive_below=tuning.gc_archive_below,
                         prune_below=tuning.gc_prune_below)  # fmt: skip
    report = RunReport("gc", workspace.name, dry_run, plan.summary(), len(plan.fact_changes()))
    if not dry_run:  # a dry run leaves no mark, so it needs no next time
        report.next_due_ms = gc_due(after(facts, plan.fact_changes()), int(to_ms(now)) + 1,
                                    archive_below=tuning.gc_archive_below, prune_below=tuning.gc_prune_below)  # fmt: skip
    del facts
    if dry_run:
        report.planned = [{"memory_id": a.memory_id, "action": action, "score": round(a.score, 4), "reason": a.reason}
                          for action, actions in (("archive", plan.archived), ("prune", plan.pruned))
                          for a in actions]  # fmt: skip
        return report
    reasons = {action.memory_id: action.reason for action in (*plan.archived, *plan.pruned)}
    apply_changes(workspace, changes=plan.fact_changes(), links=[], actor=actor, now=now,
                  reason_of=lambda change: reasons.get(change.memory_id, ""), progress=progress)  # fmt: skip
    with mutate(workspace, actor=actor, now=now) as m:
        m.record("gc_run", **report.counts)
    due.record(workspace, due.GC, began_at_revision=began, own_actors=(actor,), due_ms=report.next_due_ms, now=now)
    return report


def workspace_links(workspace: Workspace, *, active_only: bool = False) -> list[tuple[str, str, str]]:
    """Every edge as (from, kind, to) memory ids: stored links, then each fact's `supersedes` list."""
    links = Link.objects.filter(workspace=workspace, to_fact__isnull=False)
    if active_only:
        links = links.filter(from_fact__lifecycle="active", to_fact__lifecycle="active")
    out = list(links.order_by("from_fact_id", "position", "pk").values_list("from_fact__memory_id", "kind", "to_fact__memory_id"))
    facts = Fact.objects.filter(workspace=workspace).exclude(supersedes=[])
    if active_only:
        facts = facts.filter(lifecycle="active")
    known = set(Fact.objects.filter(workspace=workspace).values_list("memory_id", flat=True)) if facts.exists() else set()
    for memory_id, targets in facts.values_list("memory_id", "supersedes"):
        out += [(memory_id, "supersedes", target) for target in targets or [] if target in known]
    return out


@telemetry.operation("memory.maintenance.dream")
def run_dream(workspace: Workspace, *, dry_run: bool = False, now: datetime | None = None, actor: str = "dream",
              progress: Progress | None = None) -> RunReport:  # fmt: skip
    """The dream (ENGINE-SPEC §4.2): confirm, consolidate, relate, evict — per origin, deterministic.

    Every change is logged with its before/after and the run's id, so `undo_dream` can put the
    workspace back exactly: merged facts restored, confirmations reverted, added links removed.
    `progress(phase, done, total)` hears of each phase (reading, planning, applying by batch, links).
    """
    import uuid

    from memory.engine.maintenance.dream import plan_dream

    now = now or timezone.now()
    tuning = _tuning_of(workspace)
    began = due.revision_of(workspace)
    _phase(progress, "reading facts")
    facts, links = maint_facts(workspace, lifecycles=None), workspace_links(workspace)
    _phase(progress, "planning")
    plan = plan_dream(facts, links, int(to_ms(now)),
                      consolidate_threshold=tuning.dream_merge_similarity,
                      evict_below_score=tuning.dream_evict_below, progress=progress)  # fmt: skip
    next_due = None if dry_run else eviction_due(after(facts, plan.fact_changes()), int(to_ms(now)) + 1,
                                                 below=tuning.dream_evict_below, min_age_ms=EVICT_MIN_AGE_MS)  # fmt: skip
    del facts, links  # a million facts: let them go before the changes are written
    release_free_memory()
    report = RunReport("dream", workspace.name, dry_run, plan.summary(), len(plan.fact_changes()), len(plan.links_added()),
                       next_due_ms=next_due)  # fmt: skip
    if dry_run:
        report.planned = (
            [{"memory_id": c.memory_id, "action": "confirm", "reason": c.reason} for c in plan.confirmations]
            + [{"memory_id": m.merged, "action": "merge", "into": m.kept, "similarity": round(m.similarity, 4),
                "reason": m.reason} for m in plan.merges]
            + [{"memory_id": r.a, "action": "relate", "with": r.b, "similarity": round(r.similarity, 4),
                "reason": f"related (similarity {r.similarity:.2f})"} for r in plan.relations if r.added]
            + [{"memory_id": e.memory_id, "action": "evict", "reason": e.reason} for e in plan.evictions]
        )  # fmt: skip
        return report
    run_id = uuid.uuid4().hex[:12]
    # Recorded before the first batch: a run killed after some batches committed is found by its id
    # (the console's overview and the event log show it, `tideline dream --undo RUN` undoes it).
    with mutate(workspace, actor=f"{actor}:{run_id}", now=now) as m:
        m.record("dream_run", run=run_id, status="started", **report.counts)
    logger.info("dream run %s of %s begun (undo with `tideline dream --undo %s`)", run_id, workspace.name, run_id)
    _phase(progress, f"run {run_id}")
    kinds: dict[int, str] = {}
    reasons: dict[int, str] = {}
    for item in plan.confirmations:
        kinds[id(item.change)], reasons[id(item.change)] = "confirmed", item.reason
    for merge in plan.merges:
        kinds[id(merge.keeper_change)], reasons[id(merge.keeper_change)] = "reinforced", f"kept over {merge.merged}: {merge.reason}"
        kinds[id(merge.merged_change)], reasons[id(merge.merged_change)] = "invalidated", f"merged into {merge.kept}: {merge.reason}"
    for item in plan.evictions:
        kinds[id(item.change)], reasons[id(item.change)] = "evicted", item.reason
    apply_changes(workspace, changes=plan.fact_changes(), links=plan.links_added(), actor=f"{actor}:{run_id}", now=now,
                  kind_of=lambda c: kinds.get(id(c), _event_kind(c)), reason_of=lambda c: reasons.get(id(c), ""),
                  progress=progress)  # fmt: skip
    with mutate(workspace, actor=f"{actor}:{run_id}", now=now) as m:
        m.record("dream_run", run=run_id, status="finished", **report.counts)
    report.counts = {**report.counts, "run": run_id}
    due.record(workspace, due.DREAM, began_at_revision=began, own_actors=(f"{actor}:{run_id}",), due_ms=next_due, now=now)
    return report


DREAM_RUN_ID = re.compile(r"[0-9a-f]{12}")


def dream_undone_by(workspace: Workspace, run_id: str):
    """The `restored` event that undid dream run `run_id`, or None while it stands."""
    from memory.models import MemoryEvent

    return (MemoryEvent.objects.filter(workspace=workspace, kind="restored", data__run=run_id)
            .order_by("revision").first())  # fmt: skip


def dream_finished(workspace: Workspace, run_id: str) -> bool:
    """Whether dream run `run_id` wrote its closing `dream_run` event (False: it stopped, or still runs)."""
    from memory.models import MemoryEvent

    events = MemoryEvent.objects.filter(workspace=workspace, kind="dream_run", data__run=run_id)
    # Runs from before the opening event was written have one event, without a status.
    return any(data.get("status") != "started" for data in events.values_list("data", flat=True))


class _AlreadyUndone(Exception):
    pass


def undo_dream(workspace: Workspace, run_id: str, *, actor: str = "undo") -> int | None:
    """Reverse one dream run from its events: restore every changed field, remove the links it added.

    Returns how many changes were reverted, or None when the run was already undone: then nothing
    is written, not even an event (`dream_undone_by` says when it was undone).

    Events are replayed newest first, so a fact changed twice ends with the values it had before
    the run. The replay happens in memory and is written set-based: one query per few thousand
    links or facts, not one per event."""
    from memory.models import MemoryEvent
    from memory.services.errors import NotFoundError, RequestError

    # A run id is 12 hex digits (see run_dream); anything else could match other actors' events.
    if not DREAM_RUN_ID.fullmatch(run_id or ""):
        raise RequestError(f"{run_id!r} is not a dream run id (12 hex digits, as `dream` printed it)", kind="validation")
    run = MemoryEvent.objects.filter(workspace=workspace, kind="dream_run", actor__endswith=f":{run_id}", data__run=run_id)
    if not run.exists():
        raise NotFoundError(f"no dream run {run_id!r} in workspace {workspace.name!r}")
    try:
        return _undo_dream(workspace, run_id, actor)
    except _AlreadyUndone:
        return None


@dataclass
class _Replay:
    """What undoing a run needs of its events, read newest first: the links it added, each changed
    fact's values from before the run, and every fact it named."""

    added: list = field(default_factory=list)
    before: dict = field(default_factory=dict)  # memory id → field → value before the run
    changes: dict = field(default_factory=dict)  # memory id → how many of its changes
    named: set = field(default_factory=set)


def _replay(workspace: Workspace, run_id: str) -> _Replay:
    """Fold the run's events into a `_Replay`, a few thousand at a time: only three fields each, and
    no event kept (a million-fact run has 900,000 of them: as models they held 4 GB)."""
    from memory.models import MemoryEvent

    out = _Replay()
    events = MemoryEvent.objects.filter(workspace=workspace, actor__endswith=f":{run_id}").order_by("-revision", "-id")
    for kind, fact_ids, data in events.values_list("kind", "fact_ids", "data").iterator(chunk_size=5000):
        out.named.update(fact_ids or ())
        if kind == "linked":
            out.added.extend(tuple(link) for link in data.get("links", []))
        elif "before" in data and fact_ids:
            # Newest first: an older change's values overwrite a newer one's, so a fact changed
            # twice ends with the values it had before the run.
            values = out.before.setdefault(fact_ids[0], {})
            for name, value in data["before"].items():
                values[name] = from_ms(value) if name in _TIMESTAMP_FIELDS else value
            if data["before"].get("lifecycle") == "active":
                values["archived_at"] = values["pruned_at"] = None
            out.changes[fact_ids[0]] = out.changes.get(fact_ids[0], 0) + 1
    return out


def _undo_dream(workspace: Workspace, run_id: str, actor: str) -> int:
    with mutate(workspace, actor=actor) as m:
        if dream_undone_by(workspace, run_id) is not None:  # under the lock, so two undos cannot both run
            raise _AlreadyUndone  # rolls the revision back: nothing at all is written
        replay = _replay(workspace, run_id)
        _remove_links(workspace, replay.added)
        pks = _fact_pks(workspace, replay.before)
        # Facts purged since the run are left out.
        written = {pks[mid]: values for mid, values in replay.before.items() if mid in pks}
        undone = sum(count for mid, count in replay.changes.items() if mid in pks)
        _write_fields(workspace, written)
        m.record("restored", fact_ids=sorted(replay.named), reason=f"undo of dream run {run_id}", run=run_id,
                 changes=undone)  # fmt: skip
    # The facts back in the active set get their near-duplicate postings again, a few thousand at a
    # time (an undone million-fact dream brings back 900,000: all at once held 6 GB of models and rows).
    unindexed = list(Fact.objects.filter(workspace=workspace, lifecycle="active", terms__isnull=True)
                     .order_by("pk").values_list("pk", flat=True))  # fmt: skip
    for start in range(0, len(unindexed), REINDEX_BATCH):
        index_facts(Fact.objects.filter(pk__in=unindexed[start : start + REINDEX_BATCH]).order_by("pk"))
    return undone


def _fact_pks(workspace: Workspace, memory_ids) -> dict[str, int]:
    """memory_id → pk for those of `memory_ids` that exist in the workspace."""
    ids = sorted(memory_ids)
    out: dict[str, int] = {}
    for start in range(0, len(ids), _IN_CHUNK):
        chunk = ids[start : start + _IN_CHUNK]
        found = Fact.objects.filter(workspace=workspace, memory_id__in=chunk)
        out.update(found.values_list("memory_id", "pk"))
    return out


def _remove_links(workspace: Workspace, links: Sequence[tuple[str, str, str]]) -> None:
    """Delete the stored links named `(from, kind, to)` by memory id (those whose facts still exist)."""
    if not links:
        return
    pks = _fact_pks(workspace, {mid for src, _, dst in links for mid in (src, dst)})
    wanted = {(pks[src], kind, pks[dst]) for src, kind, dst in links if src in pks and dst in pks}
    sources = sorted({src for src, _, _ in wanted})
    doomed = []
    for start in range(0, len(sources), _IN_CHUNK):
        stored = Link.objects.filter(workspace=workspace, from_fact_id__in=sources[start : start + _IN_CHUNK])
        for pk, src, kind, dst in stored.values_list("pk", "from_fact_id", "kind", "to_fact_id"):
            if (src, kind, dst) in wanted:
                doomed.append(pk)
    for start in range(0, len(doomed), _IN_CHUNK):
        Link.objects.filter(pk__in=doomed[start : start + _IN_CHUNK]).delete()


def queue_for_each_workspace(func: str, label: str, pass_name: str | None = None) -> list[str]:
    """Queue `func(workspace_id)` once per workspace, each with the maintenance timeout; the task ids.

    With `pass_name`, only the workspaces that pass must visit (`due.due_workspaces`: changed since
    its last run there, or due by time); the others are counted in the log and left alone. With
    `TIDELINE_Q_SYNC` the tasks run right here, one after the other. Not a task itself: a schedule
    naming it could queue any function."""
    from django_q.tasks import async_task

    if pass_name is None:
        chosen = list(Workspace.objects.order_by("pk").values_list("pk", "name"))
    else:
        chosen = due.due_workspaces(pass_name)
        logger.info("%s: %d workspaces changed or due, the others skipped", label, len(chosen))
    return [
        async_task(func, pk, task_name=f"{label}: {name}", timeout=settings.TIDELINE_MAINTENANCE_TIMEOUT)
        for pk, name in chosen
    ]
