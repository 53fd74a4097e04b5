"""Maintenance passes (decay GC, the dream, contradictions) applied to the database in batches.

The engine plans (`memory.engine.decay_gc`, `dream`, …): pure functions over `MaintFact`s that return
field changes and links to add. This module loads the facts, asks for the plan, and applies it in
batches of `BATCH` changes, each batch one mutation (workspace lock held only for that batch), with
one event per change carrying its before/after so any change can be undone from the log. A run ends
with a `*_run` event holding the counts. `dry_run` plans and reports without writing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.utils import timezone

from memory import sealing
from memory.engine.maintenance import FactChange, MaintFact
from memory.models import Fact, Link, Workspace
from memory.services.mutation import mutate
from memory.services.near_duplicates import index_facts, unindex_facts
from memory.timestamps import from_ms, to_ms

BATCH = 2000
LINK_BATCH = 10000
_TIMESTAMP_FIELDS = {"valid_to", "valid_from"}
_LIFECYCLE_EVENT = {"archived": "archived", "pruned": "pruned", "active": "restored"}


@dataclass
class RunReport:
    kind: str
    workspace: str
    dry_run: bool
    counts: dict[str, int] = field(default_factory=dict)
    changes: int = 0
    links_added: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "workspace": self.workspace, "dry_run": self.dry_run, "counts": self.counts,
                "changes": self.changes, "links_added": self.links_added}  # fmt: skip


def maint_facts(workspace: Workspace, *, lifecycles: Sequence[str] | None = ("active",)) -> list[MaintFact]:
    """The workspace's facts as maintenance records (content decrypted; shredded origins skipped)."""
    facts = Fact.objects.filter(workspace=workspace)
    if lifecycles is not None:
        facts = facts.filter(lifecycle__in=list(lifecycles))
    out = []
    for fact in facts.order_by("pk").iterator(chunk_size=2000):
        try:
            content = fact.content
        except sealing.KeyDestroyedError:
            continue
        out.append(MaintFact(
            memory_id=fact.memory_id, content=content, segment=fact.segment, tier=fact.tier,
            importance=fact.importance, decay_rate=fact.decay_rate, access_count=fact.access_count,
            last_accessed_at=int(to_ms(fact.last_accessed_at)), created_at=int(to_ms(fact.created_at)),
            lifecycle=fact.lifecycle, status=fact.status, confidence=fact.confidence, subject_key=fact.subject_key,
            source_type=fact.source_type, origin_key=fact.origin_key, valid_to=to_ms(fact.valid_to),
            source_turn=fact.source_turn, valid_from=to_ms(fact.valid_from),
        ))  # fmt: skip
    return out


def apply_changes(
    workspace: Workspace, *, changes: Sequence[FactChange], links: Sequence[tuple[str, str, str]], actor: str,
    reason_of: Callable[[FactChange], str] | None = None, kind_of: Callable[[FactChange], str] | None = None,
    now: datetime | None = None,
) -> list[str]:  # fmt: skip
    """Write field changes and new links in batches; each change gets an event with before/after.

    Returns the ids whose change was skipped because the fact changed after the plan was made."""
    now = now or timezone.now()
    skipped: list[str] = []
    for start in range(0, len(changes), BATCH):
        batch = changes[start : start + BATCH]
        with mutate(workspace, actor=actor, now=now) as m:
            rows = {f.memory_id: f for f in Fact.objects.filter(workspace=workspace, memory_id__in=[c.memory_id for c in batch])}
            left, returned, touched, fields = [], [], [], set()
            for change in batch:
                fact = rows.get(change.memory_id)
                if fact is None or not _unchanged(fact, change):
                    # Purged, or changed by a writer since the plan was made (a reinforcement, a
                    # feedback): the plan's values are stale, so this change is skipped, never forced.
                    skipped.append(change.memory_id)
                    continue
                for name, value in change.after.items():
                    setattr(fact, name, from_ms(value) if name in _TIMESTAMP_FIELDS else value)
                fields.update(change.after)
                if change.after.get("lifecycle") in ("archived", "pruned"):
                    stamp = "archived_at" if change.after["lifecycle"] == "archived" else "pruned_at"
                    setattr(fact, stamp, m.now)
                    fields.add(stamp)
                    left.append(fact.pk)
                elif change.after.get("lifecycle") == "active":
                    returned.append(fact)
                touched.append(fact)
                m.record((kind_of or _event_kind)(change), fact_ids=[change.memory_id],
                         reason=reason_of(change) if reason_of else "",
                         before=_jsonable(change.before), after=_jsonable(change.after))  # fmt: skip
            # One UPDATE statement per batch instead of one per fact (a fact changed twice in a
            # batch is one object here, so its last values win, as applying in order would).
            if touched:
                Fact.objects.bulk_update(list({id(f): f for f in touched}.values()), sorted(fields), batch_size=1000)
            unindex_facts(left)
            index_facts(returned)
    _add_links(workspace, links, actor, now)
    return skipped


def _unchanged(fact: Fact, change: FactChange) -> bool:
    """Does the row still hold the values the plan saw? (Optimistic check under the workspace lock.)"""
    for name, value in change.before.items():
        current = getattr(fact, name)
        if name in _TIMESTAMP_FIELDS:
            current = to_ms(current)
        if isinstance(value, float) and isinstance(current, float):
            if abs(value - current) > 1e-12:
                return False
        elif current != value:
            return False
    return True


def _add_links(workspace: Workspace, links: Sequence[tuple[str, str, str]], actor: str, now: datetime) -> None:
    for start in range(0, len(links), LINK_BATCH):
        batch = links[start : start + LINK_BATCH]
        with mutate(workspace, actor=actor, now=now) as m:
            ids = {mid for src, _, dst in batch for mid in (src, dst)}
            pks = dict(Fact.objects.filter(workspace=workspace, memory_id__in=list(ids)).values_list("memory_id", "pk"))
            rows = [Link(workspace=workspace, from_fact_id=pks[src], to_fact_id=pks[dst], kind=kind, created_by=actor)
                    for src, kind, dst in batch if src in pks and dst in pks]  # fmt: skip
            Link.objects.bulk_create(rows, ignore_conflicts=True)
            m.record("linked", fact_ids=sorted({src for src, _, _ in batch}), links=[list(link) for link in batch])


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


def run_gc(workspace: Workspace, *, dry_run: bool = False, now: datetime | None = None, actor: str = "gc") -> RunReport:
    """Decay GC (ENGINE-SPEC §4.1): archive or prune what decayed; permanent and confirmed facts are immune."""
    from memory.engine.decay_gc import plan_decay_gc

    now = now or timezone.now()
    plan = plan_decay_gc(maint_facts(workspace), int(to_ms(now)))
    report = RunReport("gc", workspace.name, dry_run, plan.summary(), len(plan.fact_changes()))
    if dry_run:
        return report
    reasons = {action.memory_id: action.reason for action in (*plan.archived, *plan.pruned)}
    apply_changes(workspace, changes=plan.fact_changes(), links=[], actor=actor, now=now,
                  reason_of=lambda change: reasons.get(change.memory_id, ""))  # fmt: skip
    with mutate(workspace, actor=actor, now=now) as m:
        m.record("gc_run", **report.counts)
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


def run_dream(workspace: Workspace, *, dry_run: bool = False, now: datetime | None = None, actor: str = "dream") -> RunReport:
    """The dream (ENGINE-SPEC §4.2): confirm, consolidate, relate, evict — per origin, deterministic.

    Every change is logged with its before/after and the run's id, so `undo_dream` can put the
    workspace back exactly: merged facts restored, confirmations reverted, added links removed.
    """
    import uuid

    from memory.engine.dream import plan_dream

    now = now or timezone.now()
    plan = plan_dream(maint_facts(workspace, lifecycles=None), workspace_links(workspace), int(to_ms(now)))
    report = RunReport("dream", workspace.name, dry_run, plan.summary(), len(plan.fact_changes()), len(plan.links_added()))
    if dry_run:
        return report
    run_id = uuid.uuid4().hex[:12]
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
                  kind_of=lambda c: kinds.get(id(c), _event_kind(c)), reason_of=lambda c: reasons.get(id(c), ""))  # fmt: skip
    with mutate(workspace, actor=f"{actor}:{run_id}", now=now) as m:
        m.record("dream_run", run=run_id, **report.counts)
    report.counts = {**report.counts, "run": run_id}
    return report


def undo_dream(workspace: Workspace, run_id: str, *, actor: str = "undo") -> int:
    """Reverse one dream run from its events: restore every changed field, remove the links it added."""
    from memory.models import MemoryEvent

    events = list(MemoryEvent.objects.filter(workspace=workspace, actor__endswith=f":{run_id}").order_by("-revision", "-id"))
    if not events:
        from memory.services.errors import NotFoundError

        raise NotFoundError(f"no dream run {run_id!r} in workspace {workspace.name!r}")
    undone = 0
    with mutate(workspace, actor=actor) as m:
        for event in events:
            if event.kind == "linked":
                for src, kind, dst in event.data.get("links", []):
                    Link.objects.filter(workspace=workspace, from_fact__memory_id=src, kind=kind, to_fact__memory_id=dst).delete()
            elif "before" in event.data and event.fact_ids:
                fact = Fact.objects.filter(workspace=workspace, memory_id=event.fact_ids[0]).first()
                if fact is None:
                    continue
                for name, value in event.data["before"].items():
                    setattr(fact, name, from_ms(value) if name in _TIMESTAMP_FIELDS else value)
                if event.data["before"].get("lifecycle") == "active":
                    fact.archived_at = fact.pruned_at = None
                fact.save()
                undone += 1
        m.record("restored", fact_ids=sorted({fid for e in events for fid in e.fact_ids}), reason=f"undo of dream run {run_id}",
                 run=run_id, changes=undone)  # fmt: skip
    index_facts(list(Fact.objects.filter(workspace=workspace, lifecycle="active", terms__isnull=True)))
    return undone


REVIEW_LIMIT = 50  # the strongest pairs per run: a review queue people can actually work through


def find_contradictions(workspace: Workspace, *, actor: str = "contradictions", dry_run: bool = False,
                        limit: int = REVIEW_LIMIT) -> RunReport:  # fmt: skip
    """Surface contradictions (ENGINE-SPEC §4.3) as review items: the strongest `limit` pairs per run,
    one item per pair, never twice across runs (a dismissed pair stays dismissed)."""
    from governance.models import ReviewItem
    from memory.engine.contradictions import find_contradictions as detect

    report_data = detect(maint_facts(workspace), limit=limit)
    report = RunReport("contradictions", workspace.name, dry_run, {"found": report_data.found, "opened": 0})
    if dry_run or not report_data.items:
        return report
    pks = dict(Fact.objects.filter(workspace=workspace, memory_id__in={i.a for i in report_data.items} | {i.b for i in report_data.items})
               .values_list("memory_id", "pk"))  # fmt: skip
    seen = set(ReviewItem.objects.filter(workspace=workspace, kind="contradiction").values_list("fact_id", "other_fact_id"))
    with mutate(workspace, actor=actor) as m:
        for item in report_data.items:
            pair = (pks[item.a], pks[item.b])
            if pair in seen or pair[::-1] in seen:
                continue
            review = ReviewItem.objects.create(
                workspace=workspace, kind="contradiction", fact_id=pair[0], other_fact_id=pair[1],
                reason=f"same {item.segment} facts share words (overlap {item.overlap:.2f}) but diverge ({item.divergence:.2f})",
                details={"score": item.score, "basis": item.basis},
            )  # fmt: skip
            seen.add(pair)
            report.counts["opened"] += 1
            m.record("linked", fact_ids=[item.a, item.b], reason="contradiction review opened", review_item=review.pk)
    return report


def export_graph(workspace: Workspace, *, max_nodes: int | None = None, now: datetime | None = None):
    """The Memory Graph (ENGINE-SPEC §5.7): active facts, typed edges, Louvain communities, stats."""
    from memory.engine.graph_export import export_memory_graph

    facts = maint_facts(workspace)
    return export_memory_graph(facts, workspace_links(workspace, active_only=True), int(to_ms(now or timezone.now())),
                               max_nodes=max_nodes)  # fmt: skip
