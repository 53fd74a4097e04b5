"""Typed links between facts: kinds, reading edges, relating and invalidating (ENGINE-SPEC §5.1–§5.5).

The graph walk itself (`build_graph`, `neighbors`, `spread`) is in `graph_recall`. This module holds
the link vocabulary the maintenance passes share, the record-level reading rules of §5.2, and the two
link writers of §5.4–§5.5 as pure planners: they return what to add and change, never mutate.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass

from memory.engine.maintenance.plans import FactChange, Link, MaintFact

# Export strength classes (§5.1) and the weights community detection gives them (§5.7).
STRONG_KINDS = frozenset({"supersedes", "transition", "corrects", "contrasts_with", "contradicts"})
WEAK_KINDS = frozenset({"same_topic", "relates"})
STRENGTH_WEIGHT = {"strong": 1.0, "medium": 0.6, "weak": 0.3}
# The kinds `link_related` writes back in the other direction as a different kind; all others mirror.
_INVERSE = {"causes": "caused_by", "caused_by": "causes", "precedes": "follows", "follows": "precedes"}
# What a superseder points at the fact it replaced (§5.5).
SUPERSEDE_KINDS = ("contradicts", "transition")
MAX_RELATED_PER_RECORD = 12


def link_strength(kind: str) -> str:
    """`strong`, `medium` or `weak`: how a link kind is drawn and weighted in the graph export."""
    if kind in STRONG_KINDS:
        return "strong"
    if kind in WEAK_KINDS:
        return "weak"
    return "medium"


def inverse_link_kind(kind: str) -> str:
    """The kind `link_related` stores on the way back: causes↔caused_by, precedes↔follows, else the same."""
    return _INVERSE.get(kind, kind)


# ------------------------------------------------------------------ reading edges (§5.2)


@dataclass(frozen=True)
class LinkSpec:
    """A stored outbound link of one fact (`MemoryLink`): kind, target and the optional extras."""

    kind: str
    target: str
    reason: str | None = None
    strength: int | None = None


def links_from(links: Sequence[LinkSpec], supersedes: Sequence[str] = ()) -> list[LinkSpec]:
    """A fact's outbound edges: its explicit links, then one `supersedes` edge per superseded id.

    Deduplicated by (kind, target), keeping the first position; but when a later duplicate carries a
    reason and the kept one has none, the later one takes its place (so the reason survives).
    """
    out: list[LinkSpec] = []
    where: dict[tuple[str, str], int] = {}
    for link in [*links, *(LinkSpec("supersedes", target) for target in supersedes)]:
        key = (link.kind, link.target)
        if key not in where:
            where[key] = len(out)
            out.append(link)
        elif link.reason and not out[where[key]].reason:
            out[where[key]] = link
    return out


def edge_tuples(memory_id: str, links: Sequence[LinkSpec], supersedes: Sequence[str] = ()) -> list[Link]:
    """`links_from` as `(from, kind, to)` tuples, the form the graph and maintenance passes take."""
    return [(memory_id, link.kind, link.target) for link in links_from(links, supersedes)]


def backlinks_to(
    records: Iterable[tuple[str, Sequence[LinkSpec], Sequence[str]]], memory_id: str
) -> list[tuple[str, str]]:
    """`(from, kind)` of every edge pointing at `memory_id`, scanning `(id, links, supersedes)` records.

    Records of every lifecycle count: history is part of the answer.
    """
    return [
        (source, link.kind)
        for source, links, supersedes in records
        for link in links_from(links, supersedes)
        if link.target == memory_id
    ]


# ------------------------------------------------------------------ link_related (§5.4)


class RelateLedger:
    """The links as they stand during a planning pass: which exist, and how many of each kind a fact has.

    `add` applies the rules of one `link_related` edge and remembers what it added, so later edges in
    the same pass see the earlier ones (the per-record cap counts them).
    """

    def __init__(self, links: Iterable[Link]) -> None:
        self.present: set[Link] = set(links)
        self.count = Counter((source, kind) for source, kind, _ in self.present)

    def add(self, source: str, kind: str, target: str, max_per_record: int) -> Link | None:
        """Add `source → target` unless it is a self edge, already exists, or the source is at the cap."""
        link = (source, kind, target)
        if source == target or link in self.present or self.count[(source, kind)] >= max_per_record:
            return None
        self.present.add(link)
        self.count[(source, kind)] += 1
        return link


@dataclass(frozen=True)
class LinkRelatedPlan:
    """The links `link_related` would add; `count` is what the original returns."""

    added: tuple[Link, ...]

    @property
    def count(self) -> int:
        return len(self.added)

    def fact_changes(self) -> list[FactChange]:
        return []

    def links_added(self) -> list[Link]:
        return list(self.added)


def plan_link_related(
    pairs: Iterable[tuple[str, str] | tuple[str, str, str]],
    active_ids: Collection[str],
    links: Iterable[Link],
    *,
    max_per_record: int = MAX_RELATED_PER_RECORD,
) -> LinkRelatedPlan:
    """Link each pair both ways: `a → b` with its kind (default `relates`) and `b → a` with the inverse.

    A pair is skipped unless both ends are active. An edge is skipped when it would point at its own
    source, when the same (source, kind, target) already exists, or when the source already has
    `max_per_record` edges of that kind; otherwise it is added and counted. So a new pair adds 2, a
    repeated pair 0, a self pair 0. Callers pass same-origin pairs only (this does not check).
    """
    ledger = RelateLedger(links)
    added: list[Link] = []
    for pair in pairs:
        a, b = pair[0], pair[1]
        kind = pair[2] if len(pair) > 2 else "relates"
        if a not in active_ids or b not in active_ids:
            continue
        for link in (
            ledger.add(a, kind, b, max_per_record),
            ledger.add(b, inverse_link_kind(kind), a, max_per_record),
        ):
            if link is not None:
                added.append(link)
    return LinkRelatedPlan(tuple(added))


# ------------------------------------------------------------------ invalidate (§5.5)


@dataclass(frozen=True)
class Invalidation:
    """Close a fact's valid time and archive it; the superseder gains `contradicts` and `transition` edges."""

    memory_id: str
    superseded_by: str | None
    change: FactChange
    added: tuple[Link, ...]

    @property
    def targets(self) -> list[str]:
        """The `targets` of the `invalidated` event."""
        return [self.superseded_by] if self.superseded_by else []

    def fact_changes(self) -> list[FactChange]:
        return [self.change]

    def links_added(self) -> list[Link]:
        return list(self.added)


def plan_invalidate(
    stale: MaintFact,
    now: int,
    *,
    superseded_by: str | None = None,
    links: Iterable[Link] = (),
    existing_ids: Collection[str] | Mapping[str, object] | None = None,
) -> Invalidation | None:
    """Archive `stale` with `valid_to = now`; None (a no-op, no event) unless it is active.

    When `superseded_by` names an existing fact (any lifecycle; `existing_ids` says which exist, all
    when omitted), that fact gains `contradicts` and `transition` edges to the stale one, each only
    if it is not there yet, so invalidating twice never duplicates an edge.
    """
    if not stale.is_active:
        return None
    change = FactChange(
        stale.memory_id,
        {"lifecycle": stale.lifecycle, "valid_to": stale.valid_to},
        {"lifecycle": "archived", "valid_to": now},
    )
    added: list[Link] = []
    if superseded_by is not None and (existing_ids is None or superseded_by in existing_ids):
        present = set(links)
        added = [(superseded_by, kind, stale.memory_id) for kind in SUPERSEDE_KINDS]
        added = [link for link in added if link not in present and link[0] != link[2]]
    return Invalidation(stale.memory_id, superseded_by, change, tuple(added))
