"""Decay garbage collection: archive or prune active facts whose live score has decayed (ENGINE-SPEC §4.1).

Pure: `plan_decay_gc` returns a `GcPlan`; nothing is changed until the service applies it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from memory.engine.maintenance.plans import FactChange, Link, MaintFact, live_scores

ARCHIVE_BELOW = 0.15
PRUNE_BELOW = 0.05


@dataclass(frozen=True)
class GcAction:
    """One lifecycle flip: the fact, its live score at `now`, why, and the change (prior lifecycle)."""

    memory_id: str
    score: float
    reason: str
    change: FactChange


@dataclass(frozen=True)
class GcPlan:
    """What a decay GC pass would do. `kept` counts every active fact left alone (immune ones too)."""

    now: int
    archive_below: float
    prune_below: float
    archived: tuple[GcAction, ...]
    pruned: tuple[GcAction, ...]
    kept: int

    def fact_changes(self) -> list[FactChange]:
        return [action.change for action in (*self.archived, *self.pruned)]

    def links_added(self) -> list[Link]:
        return []

    def summary(self) -> dict[str, int]:
        return {"archived": len(self.archived), "pruned": len(self.pruned), "kept": self.kept}


def plan_decay_gc(
    facts: Sequence[MaintFact],
    now: int,
    *,
    archive_below: float = ARCHIVE_BELOW,
    prune_below: float = PRUNE_BELOW,
) -> GcPlan:
    """Archive or prune decayed active facts, across every origin.

    Over the active facts only, with the live score `effective_score(fact, now)`:
    * a `permanent` fact and a `confirmed` fact are immune (they count as kept);
    * a `long`-tier fact is archived when its score is below `prune_below` (0.05), and never pruned;
    * any other tier is pruned below `prune_below`, else archived below `archive_below` (0.15).
    Only the lifecycle flips (no `valid_to`), so undoing restores `active`. Running the plan twice is
    harmless: the second pass finds nothing active to flip. Actions are ordered by memory id.
    """
    active = sorted((f for f in facts if f.is_active), key=lambda f: f.memory_id)
    scores = live_scores(active, now)
    archived: list[GcAction] = []
    pruned: list[GcAction] = []
    for fact, score in zip(active, scores.tolist(), strict=True):
        if fact.tier == "permanent" or fact.is_confirmed:
            continue
        if fact.tier == "long":
            if score < prune_below:
                archived.append(
                    _action(fact, "archived", score, f"long-tier score {score:.4f} < {prune_below}")
                )
        elif score < prune_below:
            pruned.append(_action(fact, "pruned", score, f"score {score:.4f} < {prune_below}"))
        elif score < archive_below:
            archived.append(_action(fact, "archived", score, f"score {score:.4f} < {archive_below}"))
    kept = len(active) - len(archived) - len(pruned)
    return GcPlan(now, archive_below, prune_below, tuple(archived), tuple(pruned), kept)


def _action(fact: MaintFact, lifecycle: str, score: float, reason: str) -> GcAction:
    return GcAction(
        fact.memory_id,
        score,
        reason,
        FactChange(fact.memory_id, {"lifecycle": fact.lifecycle}, {"lifecycle": lifecycle}),
    )
