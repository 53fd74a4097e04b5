"""Plain factory functions with ORM defaults."""

from __future__ import annotations

import itertools

from django.utils import timezone

from memory.engine.facts import records as R
from memory.models import Fact, Link, Workspace

_ids = itertools.count(1)


def make_fact(workspace: Workspace, content: str = "I prefer tea over coffee.", *, save: bool = True, **overrides) -> Fact:
    segment = overrides.pop("segment", "preference")
    defaults = R.SEGMENT_DEFAULTS[segment]
    now = timezone.now()
    fields = dict(
        workspace=workspace,
        memory_id=f"mem_test_{next(_ids)}",
        origin=overrides.pop("origin", R.Origin.owner()),
        content=content,
        segment=segment,
        tier=defaults.tier,
        importance=defaults.importance,
        decay_rate=defaults.decay_rate,
        last_accessed_at=now,
        created_at=now,
    )
    fields.update(overrides)
    fact = Fact(**fields)
    if save:
        fact.save()
    return fact


def make_link(from_fact: Fact, to_fact: Fact, kind: str = "relates", **overrides) -> Link:
    return Link.objects.create(workspace=from_fact.workspace, from_fact=from_fact, to_fact=to_fact, kind=kind, **overrides)


def linked_records(count: int, t0: int = 1_750_000_000_000) -> list[dict]:
    """`count` facts.jsonl records, each linked to the next, to its opposite and to a missing id (a
    dangling link): what the import and resume tests feed in and expect back."""
    return [
        {"memoryId": f"mem_{k:05d}", "content": f"Fact number {k} about topic {k % 37}.", "segment": "knowledge",
         "tier": "long", "importance": 0.6, "decayRate": 0.03, "accessCount": 0, "lastAccessedAt": t0 + k,
         "createdAt": t0 + k, "lifecycle": "active", "createdBy": {"kind": "owner"},
         "links": [{"kind": "precedes", "target": f"mem_{(k + 1) % count:05d}"},
                   {"kind": "relates", "target": f"mem_{(k + count // 2) % count:05d}", "reason": f"pair {k}"},
                   {"kind": "supports", "target": f"mem_gone_{k}"}]}
        for k in range(count)
    ]  # fmt: skip
