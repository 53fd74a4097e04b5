"""Plain factory functions with ORM defaults."""

from __future__ import annotations

import itertools

from django.utils import timezone

from memory.engine import records as R
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
