"""What the maintenance passes read and return: plain facts, links, field changes (ENGINE-SPEC §4, §5).

The passes themselves live next door: `decay_gc` (§4.1), `dream` (§4.2), `contradictions` (§4.3),
`links` (§5.2–§5.5), `entities` (§5.6) and `graph_export` (§5.7); `similarity` and `jaccard_join`
find the similar pairs they need without comparing all pairs. Each pass is a pure function over
`MaintFact` records and `(from, kind, to)` link tuples, takes `now` (epoch ms) and every threshold
as arguments, and returns a PLAN instead of changing anything. A plan lists, in application order:

* `FactChange`s — one fact's fields before and after a step. Applying writes `after`; undoing writes
  `before`, in reverse order, so a fact changed by several steps comes back exactly as it was;
* links added — undoing removes them again.

The service layer applies a plan in database batches and logs one event per change; `apply_plan` and
`undo_plan` below do the same on plain lists, and are what the tests use to prove reversibility.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from memory.engine.facts.records import SEGMENT_DEFAULTS, is_untrusted_source
from memory.engine.maintenance.decay import DAY_MS, effective_score

Link = tuple[str, str, str]  # (source memory_id, kind, target memory_id)

OWNER_KEY = "owner"
# Fields a maintenance step may change; everything else about a fact is fixed once written.
MUTABLE_FIELDS = (
    "segment",
    "tier",
    "importance",
    "decay_rate",
    "access_count",
    "lifecycle",
    "status",
    "confidence",
    "subject_key",
    "valid_to",
    "source_turn",
    "valid_from",
)

__all__ = [
    "DAY_MS",
    "OWNER_KEY",
    "FactChange",
    "Link",
    "MaintFact",
    "apply_plan",
    "compare_richness",
    "live_scores",
    "merge_metadata",
    "origin_order",
    "richness",
    "specificity",
    "undo_plan",
]


@dataclass(frozen=True, slots=True)  # slots: a dream at a million facts holds a million of them
class MaintFact:
    """One fact as the maintenance passes see it (the fields of ENGINE-SPEC §1.2 they need).

    Times are epoch milliseconds. `origin_key` is `Origin.key` (the bucket every cross-fact pass
    groups by). `embedding` is optional and takes no part in equality.
    """

    memory_id: str
    content: str
    segment: str
    tier: str
    importance: float
    decay_rate: float
    access_count: int
    last_accessed_at: int
    created_at: int
    lifecycle: str = "active"
    status: str | None = None
    confidence: float | None = None
    subject_key: str | None = None
    source_type: str | None = None
    origin_key: str = OWNER_KEY
    valid_to: int | None = None
    source_turn: str | None = None
    valid_from: int | None = None
    embedding: Any = field(default=None, compare=False, repr=False)

    @property
    def is_active(self) -> bool:
        return self.lifecycle == "active"

    @property
    def is_confirmed(self) -> bool:
        return self.status == "confirmed"

    @property
    def is_trusted(self) -> bool:
        """Written by a trusted source (absent ⇒ legacy owner write ⇒ trusted), ENGINE-SPEC §1.5."""
        return not is_untrusted_source(self.source_type)

    def state(self, names: Iterable[str] = MUTABLE_FIELDS) -> dict[str, Any]:
        return {name: getattr(self, name) for name in names}


@dataclass(frozen=True, slots=True)  # slots: a million-fact dream makes about a million of them
class FactChange:
    """One fact's changed fields before and after a step; only the fields that change are listed."""

    memory_id: str
    before: dict[str, Any] = field(hash=False)
    after: dict[str, Any] = field(hash=False)

    @classmethod
    def between(cls, old: MaintFact, new: MaintFact) -> FactChange:
        changed = [name for name in MUTABLE_FIELDS if getattr(old, name) != getattr(new, name)]
        return cls(old.memory_id, old.state(changed), new.state(changed))

    @property
    def empty(self) -> bool:
        return not self.after


class Plan(Protocol):
    """What `apply_plan` needs: the field changes and the added links, in application order."""

    def fact_changes(self) -> Sequence[FactChange]: ...

    def links_added(self) -> Sequence[Link]: ...


def apply_plan(
    facts: Sequence[MaintFact], links: Sequence[Link], plan: Plan
) -> tuple[list[MaintFact], list[Link]]:
    """The facts and links after the plan: every change's `after` in order, added links appended.

    Pure: the inputs are not modified. A change whose `before` does not match the fact raises
    ValueError, so a plan is never applied to data it was not made for.
    """
    by_id = {fact.memory_id: fact for fact in facts}
    for change in plan.fact_changes():
        current = by_id[change.memory_id]
        if current.state(change.before) != change.before:
            raise ValueError(f"{change.memory_id} changed since the plan was made")
        by_id[change.memory_id] = dataclasses.replace(current, **change.after)
    present = set(links)
    added = [link for link in dict.fromkeys(plan.links_added()) if link not in present]
    return [by_id[fact.memory_id] for fact in facts], [*links, *added]


def undo_plan(
    facts: Sequence[MaintFact], links: Sequence[Link], plan: Plan
) -> tuple[list[MaintFact], list[Link]]:
    """Reverse an applied plan: every change's `before`, last change first, and the added links removed."""
    by_id = {fact.memory_id: fact for fact in facts}
    for change in reversed(plan.fact_changes()):
        current = by_id[change.memory_id]
        if current.state(change.after) != change.after:
            raise ValueError(f"{change.memory_id} changed since the plan was applied")
        by_id[change.memory_id] = dataclasses.replace(current, **change.before)
    added = set(plan.links_added())
    return [by_id[fact.memory_id] for fact in facts], [link for link in links if link not in added]


# ------------------------------------------------------------------ shared rules


def specificity(segment: str) -> int:
    """How specific a segment is for survivor selection (§1.3); an unknown segment is 0."""
    defaults = SEGMENT_DEFAULTS.get(segment)
    return defaults.specificity if defaults else 0


def richness(fact: MaintFact) -> tuple[int, int, float, float, int]:
    """(has a subject key, segment specificity, confidence or 0, importance, access count), §1.12.

    Compared lexicographically; recency is deliberately not part of it.
    """
    return (
        1 if fact.subject_key else 0,
        specificity(fact.segment),
        fact.confidence or 0.0,
        fact.importance,
        fact.access_count,
    )


def compare_richness(a: MaintFact, b: MaintFact) -> int:
    """Positive when `a` is richer, negative when `b` is, 0 on an exact tie."""
    left, right = richness(a), richness(b)
    return (left > right) - (left < right)


def live_scores(facts: Sequence[MaintFact], now: int) -> np.ndarray:
    """`effective_score(fact, now)` of every fact at once (§3.3); a permanent fact scores 1."""
    if not facts:
        return np.zeros(0, dtype=np.float64)
    return np.asarray(
        effective_score(
            np.array([f.importance for f in facts], dtype=np.float64),
            np.array([f.decay_rate for f in facts], dtype=np.float64),
            np.array([f.access_count for f in facts], dtype=np.float64),
            np.array([f.last_accessed_at for f in facts], dtype=np.float64),
            now,
            np.array([f.tier == "permanent" for f in facts], dtype=bool),
        ),
        dtype=np.float64,
    ).reshape(len(facts))


def origin_order(keys: Iterable[str]) -> list[str]:
    """Distinct origin keys, the owner first, then the others in code-point order (deterministic)."""
    distinct = set(keys)
    rest = sorted(distinct - {OWNER_KEY})
    return [OWNER_KEY, *rest] if OWNER_KEY in distinct else rest


def merge_metadata(survivor: MaintFact, loser: MaintFact) -> MaintFact:
    """The survivor after inheriting the loser's richer metadata (§1.12 `inheritRicherMetadata`).

    Subject key: copied when the survivor has none. Segment: the loser's when strictly more specific,
    with tier and decay rate re-based to that segment's defaults. Importance and access count: the
    larger. Confidence: the larger, only when the loser has one. Source turn and valid-from: filled
    when missing. Source type, origin, status and content never change. (Links: see `_merge`.)
    """
    changes: dict[str, Any] = {}
    if not survivor.subject_key and loser.subject_key:
        changes["subject_key"] = loser.subject_key
    if specificity(loser.segment) > specificity(survivor.segment):
        defaults = SEGMENT_DEFAULTS[loser.segment]
        changes.update(segment=loser.segment, tier=defaults.tier, decay_rate=defaults.decay_rate)
    changes["importance"] = max(survivor.importance, loser.importance)
    if loser.confidence is not None:
        changes["confidence"] = max(survivor.confidence or 0.0, loser.confidence)
    changes["access_count"] = max(survivor.access_count, loser.access_count)
    if survivor.source_turn is None and loser.source_turn is not None:
        changes["source_turn"] = loser.source_turn
    if survivor.valid_from is None and loser.valid_from is not None:
        changes["valid_from"] = loser.valid_from
    return dataclasses.replace(survivor, **changes)
