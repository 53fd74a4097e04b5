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

BATCH = 500
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
) -> None:  # fmt: skip
    """Write field changes and new links in batches; each change gets an event with before/after."""
    now = now or timezone.now()
    for start in range(0, len(changes), BATCH):
        batch = changes[start : start + BATCH]
        with mutate(workspace, actor=actor, now=now) as m:
            rows = {f.memory_id: f for f in Fact.objects.filter(workspace=workspace, memory_id__in=[c.memory_id for c in batch])}
            left, returned = [], []
            for change in batch:
                fact = rows.get(change.memory_id)
                if fact is None:
                    continue  # purged since the plan was made
                for name, value in change.after.items():
                    setattr(fact, name, from_ms(value) if name in _TIMESTAMP_FIELDS else value)
                if change.after.get("lifecycle") in ("archived", "pruned"):
                    stamp = "archived_at" if change.after["lifecycle"] == "archived" else "pruned_at"
                    setattr(fact, stamp, m.now)
                    left.append(fact.pk)
                elif change.after.get("lifecycle") == "active":
                    returned.append(fact)
                fact.save(update_fields=[*change.after, "archived_at", "pruned_at"])
                m.record((kind_of or _event_kind)(change), fact_ids=[change.memory_id],
                         reason=reason_of(change) if reason_of else "",
                         before=_jsonable(change.before), after=_jsonable(change.after))  # fmt: skip
            unindex_facts(left)
            index_facts(returned)
    _add_links(workspace, links, actor, now)


def _add_links(workspace: Workspace, links: Sequence[tuple[str, str, str]], actor: str, now: datetime) -> None:
    for start in range(0, len(links), BATCH):
        batch = links[start : start + BATCH]
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
