"""The dream: a deterministic, reversible reflection over one or every origin (ENGINE-SPEC §4.2).

`plan_dream` returns a `DreamPlan` and changes nothing. Four steps, each seeing the previous ones:

1. CONFIRM a subject-keyed belief that was asserted, or corrected, `confirm_count` times;
2. CONSOLIDATE near-identical active facts of one origin (cosine ≥ 0.95): the keeper inherits the
   duplicate's richer metadata and links, the duplicate is archived with its valid time closed;
3. RELATE the pairs in the band below (cosine ≥ 0.8) with bidirectional `relates` links;
4. EVICT old, unconfirmed facts whose live score decayed below a floor.

Every change carries what undoing needs (`FactChange.before`, the links it added); `apply_plan` /
`undo_plan` in `maintenance` show how. Unlike the original, which compares all pairs of at most the
500 most recently used facts, the similar pairs come from `similarity.cosine_pairs` over the whole
origin: exact up to a few thousand facts, LSH above (a pair at the bar is missed with probability
below 1e-3). Ties are broken explicitly (similarity, then the ids), so the same facts and links
always give the same plan, whatever order they come in.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from memory.engine.links import SUPERSEDE_KINDS, RelateLedger
from memory.engine.maintenance import (
    DAY_MS,
    FactChange,
    Link,
    MaintFact,
    compare_richness,
    live_scores,
    merge_metadata,
    origin_order,
)
from memory.engine.similarity import DEFAULT_EXACT_LIMIT, DEFAULT_SEED, DEFAULT_TARGET_MISS
from memory.engine.synonymy import RELATES_THRESHOLD, BucketStats, SynonymyEdge, similar_pairs, synonymy_edges

__all__ = ["DreamPlan", "SynonymyEdge", "merge_metadata", "plan_dream", "synonymy_edges"]

CONFIRM_COUNT = 3
CONFIRM_CONFIDENCE = 0.9
CONFIRM_IMPORTANCE = 0.8
CONSOLIDATE_THRESHOLD = 0.95
EVICT_BELOW_SCORE = 0.05
EVICT_MIN_AGE_MS = 30 * DAY_MS
MAX_RELATED_PER_RECORD = 12


@dataclass(frozen=True)
class Confirmation:
    """A belief promoted to `confirmed`; `change.before` holds the prior status, confidence, importance."""

    memory_id: str
    origin_key: str
    subject_key: str
    assertions: int
    corrections: int
    reason: str
    change: FactChange


@dataclass(frozen=True)
class Merge:
    """`merged` folded into `kept`: the keeper's inherited fields, the archive, and the links added."""

    kept: str
    merged: str
    origin_key: str
    similarity: float
    reason: str
    keeper_change: FactChange
    merged_change: FactChange
    added: tuple[Link, ...]


@dataclass(frozen=True)
class DeclinedMerge:
    """Two confirmed near-duplicates: neither absorbs the other, and they are not related either."""

    a: str
    b: str
    origin_key: str
    similarity: float


@dataclass(frozen=True)
class Relation:
    """A related-but-not-merged pair and the `relates` links it added (0, 1 or 2 after the caps)."""

    a: str
    b: str
    origin_key: str
    similarity: float
    added: tuple[Link, ...]


@dataclass(frozen=True)
class Eviction:
    """A decayed fact archived; `change.before` holds its prior lifecycle and valid_to."""

    memory_id: str
    origin_key: str
    score: float
    age_ms: int
    reason: str
    change: FactChange


@dataclass(frozen=True)
class DreamPlan:
    """Everything one dream would change, in application order (confirm, merge, relate, evict)."""

    now: int
    reflected: int
    origins: tuple[str, ...]
    confirmations: tuple[Confirmation, ...]
    merges: tuple[Merge, ...]
    declined: tuple[DeclinedMerge, ...]
    relations: tuple[Relation, ...]
    evictions: tuple[Eviction, ...]
    buckets: tuple[BucketStats, ...]

    @property
    def related(self) -> int:
        """New link entries written by the relate step (a new pair counts 2)."""
        return sum(len(relation.added) for relation in self.relations)

    def fact_changes(self) -> list[FactChange]:
        changes = [c.change for c in self.confirmations]
        for merge in self.merges:
            changes += [change for change in (merge.keeper_change, merge.merged_change) if not change.empty]
        return changes + [e.change for e in self.evictions]

    def links_added(self) -> list[Link]:
        return [link for m in self.merges for link in m.added] + [
            link for r in self.relations for link in r.added
        ]

    def summary(self) -> dict[str, int]:
        return {
            "reflected": self.reflected,
            "confirmed": len(self.confirmations),
            "consolidated": len(self.merges),
            "related": self.related,
            "evicted": len(self.evictions),
        }


def plan_dream(
    facts: Sequence[MaintFact],
    links: Sequence[Link],
    now: int,
    *,
    origin: str | None = None,
    confirm_count: int = CONFIRM_COUNT,
    confirm_confidence: float = CONFIRM_CONFIDENCE,
    confirm_importance: float = CONFIRM_IMPORTANCE,
    consolidate_threshold: float = CONSOLIDATE_THRESHOLD,
    relates_threshold: float = RELATES_THRESHOLD,
    evict_below_score: float = EVICT_BELOW_SCORE,
    evict_min_age_ms: float = EVICT_MIN_AGE_MS,
    max_related_per_record: int = MAX_RELATED_PER_RECORD,
    embedder: Any = None,
    exact_limit: int = DEFAULT_EXACT_LIMIT,
    target_miss: float = DEFAULT_TARGET_MISS,
    seed: int = DEFAULT_SEED,
    workers: int = 2,
) -> DreamPlan:
    """Plan one dream over the facts of `origin` (an origin key), or of every origin when None.

    Pass facts of every lifecycle: archived predecessors count as corrections. Links are
    `(from, kind, to)` tuples (explicit links and the `supersedes` edges). A fact without an
    embedding is embedded from its content with `embedder` (HRR by default). `relates_threshold ≥ 1`
    turns relating off; `evict_min_age_ms = math.inf` turns eviction off. Every cross-fact step runs
    per origin bucket (owner first, then the other keys in code-point order), so nothing ever merges
    or links across principals.
    """
    if not 0.0 < consolidate_threshold <= 1.0:
        raise ValueError("consolidate_threshold must lie in (0, 1]")
    relating = relates_threshold < 1.0
    if relating and relates_threshold <= 0.0:
        raise ValueError("relates_threshold must be above 0 (or ≥ 1 to turn relating off)")
    scope = sorted((f for f in facts if origin is None or f.origin_key == origin), key=lambda f: f.memory_id)
    state = {fact.memory_id: fact for fact in scope}
    links = sorted(set(links))  # a fixed order, so inherited links come out the same whatever the input order
    reflected = sum(1 for fact in scope if fact.is_active)

    confirmations = _confirm(scope, links, confirm_count, confirm_confidence, confirm_importance)
    for confirmation in confirmations:
        state[confirmation.memory_id] = dataclasses.replace(
            state[confirmation.memory_id], **confirmation.change.after
        )

    ledger = RelateLedger(links)
    out_links: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for source, kind, target in links:
        out_links[source].append((kind, target))
    active = [fact for fact in state.values() if fact.is_active]
    buckets = defaultdict(list)
    for fact in active:
        buckets[fact.origin_key].append(fact)
    bar = min(consolidate_threshold, relates_threshold) if relating else consolidate_threshold

    merges: list[Merge] = []
    declined: list[DeclinedMerge] = []
    to_relate: list[tuple[str, str, str, float]] = []
    stats: list[BucketStats] = []
    for key in origin_order(buckets):
        bucket = buckets[key]  # already in memory-id order, and a snapshot: keeper choices read it
        pairs, bucket_stats = similar_pairs(bucket, bar, embedder, exact_limit, target_miss, seed, workers)
        stats.append(bucket_stats)
        scores = dict(zip((f.memory_id for f in bucket), live_scores(bucket, now).tolist(), strict=True))
        merged: set[str] = set()
        declined_here: set[tuple[str, str]] = set()
        for a, b, sim in pairs:
            if sim < consolidate_threshold:
                break  # pairs come strongest first
            if a.memory_id in merged or b.memory_id in merged:
                continue
            keep, drop, reason = _choose_keeper(a, b, scores)
            if keep.is_confirmed and drop.is_confirmed:
                declined_here.add((a.memory_id, b.memory_id))
                declined.append(DeclinedMerge(a.memory_id, b.memory_id, key, sim))
                continue
            merges.append(
                _merge(state, ledger, out_links, keep.memory_id, drop.memory_id, key, sim, reason, now)
            )
            merged.add(drop.memory_id)
        if relating:
            for a, b, sim in pairs:
                if sim < relates_threshold:
                    break
                if (
                    a.memory_id in merged
                    or b.memory_id in merged
                    or (a.memory_id, b.memory_id) in declined_here
                ):
                    continue
                to_relate.append((a.memory_id, b.memory_id, key, sim))

    relations = []
    for a, b, key, sim in to_relate:
        # Both ends are still active: merged facts were skipped above, and nothing else archives here.
        added = [
            link
            for link in (
                ledger.add(a, "relates", b, max_related_per_record),
                ledger.add(b, "relates", a, max_related_per_record),
            )
            if link is not None
        ]
        if added:
            relations.append(Relation(a, b, key, sim, tuple(added)))

    evictions = _evict(state, now, evict_below_score, evict_min_age_ms)
    return DreamPlan(
        now,
        reflected,
        tuple(origin_order(buckets)),
        tuple(confirmations),
        tuple(merges),
        tuple(declined),
        tuple(relations),
        tuple(evictions),
        tuple(stats),
    )


# ------------------------------------------------------------------ confirm


def _confirm(
    scope: Sequence[MaintFact], links: Sequence[Link], needed: int, confidence: float, importance_floor: float
) -> list[Confirmation]:
    """Promote each unconfirmed active fact with a subject key whose assertions or corrections reach `needed`.

    assertions = access_count + 1 (each restatement bumps the count). corrections = how many
    non-active facts of the same slot (origin, subject key) were superseded by a fact of that same
    slot, i.e. are the target of a `contradicts`/`transition` link from it. Requiring the same slot
    counts genuine user corrections and leaves out consolidation merges across slots.
    """
    by_id = {fact.memory_id: fact for fact in scope}

    def slot(fact: MaintFact) -> tuple[str, str | None]:
        return (fact.origin_key, fact.subject_key)

    superseded = set()
    for source, kind, target in links:
        if kind not in SUPERSEDE_KINDS or source not in by_id or target not in by_id:
            continue
        a, t = by_id[source], by_id[target]
        if a.subject_key and t.subject_key and slot(a) == slot(t):
            superseded.add(target)
    corrections: dict[tuple[str, str | None], int] = defaultdict(int)
    for fact in scope:
        if not fact.is_active and fact.subject_key and fact.memory_id in superseded:
            corrections[slot(fact)] += 1
    out = []
    for fact in scope:
        if not fact.is_active or not fact.subject_key or fact.is_confirmed:
            continue
        assertions = fact.access_count + 1
        corrected = corrections.get(slot(fact), 0)
        if max(assertions, corrected) < needed:
            continue
        reason = f"asserted {assertions}×" if assertions >= needed else f"corrected {corrected}× in its slot"
        prior = {"status": fact.status, "confidence": fact.confidence, "importance": fact.importance}
        after = {
            "status": "confirmed",
            "confidence": confidence,
            "importance": max(fact.importance, importance_floor),
        }
        out.append(
            Confirmation(
                fact.memory_id, fact.origin_key, fact.subject_key, assertions, corrected, reason,
                FactChange(fact.memory_id, prior, after),
            )
        )  # fmt: skip
    return out


# ------------------------------------------------------------------ consolidate


def _choose_keeper(a: MaintFact, b: MaintFact, scores: dict[str, float]) -> tuple[MaintFact, MaintFact, str]:
    """(keeper, duplicate, deciding rule). Each rule dominates the next; `a` is the smaller id.

    1. a trusted source beats an untrusted one (untrusted content must never archive an owner fact);
    2. the richer fact wins (§1.12: subject key, segment specificity, confidence, importance, uses);
    3. a confirmed belief beats an unconfirmed one;
    4. the higher live score wins, and a tie keeps `a`.
    """
    if a.is_trusted != b.is_trusted:
        return (a, b, "trusted source") if a.is_trusted else (b, a, "trusted source")
    richer = compare_richness(a, b)
    if richer:
        return (a, b, "richer metadata") if richer > 0 else (b, a, "richer metadata")
    if a.is_confirmed != b.is_confirmed:
        return (a, b, "confirmed belief") if a.is_confirmed else (b, a, "confirmed belief")
    if scores[a.memory_id] >= scores[b.memory_id]:
        tie = scores[a.memory_id] == scores[b.memory_id]
        return a, b, "equal live score: smaller id kept" if tie else "higher live score"
    return b, a, "higher live score"


def _merge(
    state: dict[str, MaintFact],
    ledger: RelateLedger,
    out_links: dict[str, list[tuple[str, str]]],
    keep_id: str,
    drop_id: str,
    key: str,
    sim: float,
    reason: str,
    now: int,
) -> Merge:
    """Fold `drop` into `keep` on the working state: metadata, links, then the bi-temporal archive.

    The keeper gains every outbound link of the duplicate it lacks (except links to itself), then
    `contradicts` and `transition` links to the duplicate. The duplicate is archived with
    `valid_to = now`. Both read the CURRENT state, so chains of merges compose.
    """
    keep, drop = state[keep_id], state[drop_id]
    new_keep = merge_metadata(keep, drop)
    inherited = [(keep_id, kind, target) for kind, target in out_links[drop_id] if target != keep_id]
    wanted = [*inherited, *((keep_id, kind, drop_id) for kind in SUPERSEDE_KINDS)]
    added = []
    for link in dict.fromkeys(wanted):
        if link not in ledger.present:
            ledger.present.add(link)
            ledger.count[(link[0], link[1])] += 1
            out_links[keep_id].append((link[1], link[2]))
            added.append(link)
    new_drop = dataclasses.replace(drop, lifecycle="archived", valid_to=now)
    state[keep_id], state[drop_id] = new_keep, new_drop
    archive = FactChange(
        drop_id,
        {"lifecycle": drop.lifecycle, "valid_to": drop.valid_to},
        {"lifecycle": "archived", "valid_to": now},
    )
    return Merge(
        keep_id, drop_id, key, sim, reason, FactChange.between(keep, new_keep), archive, tuple(added)
    )


# ------------------------------------------------------------------ evict


def _evict(state: dict[str, MaintFact], now: int, below: float, min_age_ms: float) -> list[Eviction]:
    """Archive active, unconfirmed facts at least `min_age_ms` old whose live score is below `below`.

    Reads the state after confirmations and merges, so a freshly confirmed belief is spared and a
    keeper is scored with what it inherited. `valid_to` is set to `now` unless the fact has one.
    """
    candidates = [
        f for f in state.values() if f.is_active and not f.is_confirmed and now - f.created_at >= min_age_ms
    ]
    candidates.sort(key=lambda f: f.memory_id)
    out = []
    for fact, score in zip(candidates, live_scores(candidates, now).tolist(), strict=True):
        if score >= below:
            continue
        valid_to = fact.valid_to if fact.valid_to is not None else now
        change = FactChange(
            fact.memory_id,
            {"lifecycle": fact.lifecycle, "valid_to": fact.valid_to},
            {"lifecycle": "archived", "valid_to": valid_to},
        )
        reason = f"live score {score:.4f} < {below} at {(now - fact.created_at) / DAY_MS:.1f} days old"
        out.append(Eviction(fact.memory_id, fact.origin_key, score, now - fact.created_at, reason, change))
    return out
