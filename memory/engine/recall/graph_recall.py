"""Graph-augmented recall: hybrid seeds, a walk along links, and reciprocal-rank fusion (ENGINE-SPEC §3.7).

Links are plain `(source_id, kind, target_id)` tuples. Give them in the order the original reads
edges (facts in store order, each fact's explicit links first, then one `supersedes` edge per id in
its `supersedes` list, §5.2): that order decides which neighbours a fan-out cap keeps and how ties in
the graph lane fall.

The graph is closed over the candidate set (same origin scope, active, valid), so a walk can never
reach a fact the caller may not see.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from memory.engine.recall.core import DEFAULT_LIMIT, FactColumns, Hit, candidate_mask, recall_hybrid

Link = tuple[str, str, str]

_TEMPORAL = (
    "when",
    "before",
    "after",
    "previously",
    "used to",
    "history",
    "changed",
    "evolved",
    "became",
    "earlier",
    "originally",
    "since",
    "ago",
    "no longer",
    "anymore",
)
_RELATIONAL = (
    "related",
    "because",
    "due to",
    "led to",
    "connected",
    "linked",
    "associated",
    "caused",
    "reason",
    "affect",
    "depend",
)
_MARKERS = re.compile(
    r"\b(?:" + "|".join(re.escape(m).replace(r"\ ", r"\s+") for m in _TEMPORAL + _RELATIONAL) + r")\b",
    re.IGNORECASE,
)


@dataclass
class Graph:
    """Directed edges restricted to one set of facts: `out[id]` and `into[id]` as (other id, kind)."""

    out: dict[str, list[tuple[str, str]]]
    into: dict[str, list[tuple[str, str]]]

    def __contains__(self, memory_id: str) -> bool:
        return memory_id in self.out


def build_graph(ids: Iterable[str], links: Iterable[Link]) -> Graph:
    """Keep the edges whose both ends are in `ids`, dropping self-edges and repeated (source, kind, target).

    Dangling edges (to a fact outside the set: archived, another principal's, purged) disappear here.
    """
    out: dict[str, list[tuple[str, str]]] = {memory_id: [] for memory_id in ids}
    into: dict[str, list[tuple[str, str]]] = {memory_id: [] for memory_id in out}
    seen: set[Link] = set()
    for source, kind, target in links:
        if source == target or source not in out or target not in out or (source, kind, target) in seen:
            continue
        seen.add((source, kind, target))
        out[source].append((target, kind))
        into[target].append((source, kind))
    return Graph(out, into)


class _VisibleEdges:
    """`Graph.out` or `Graph.into` seen through a visibility test: only edges between visible facts."""

    def __init__(self, edges: dict[str, list[tuple[str, str]]], visible) -> None:
        self._edges, self._visible = edges, visible

    def get(self, memory_id: str, default=()):
        if not self._visible(memory_id):
            return default
        return [(other, kind) for other, kind in self._edges.get(memory_id, ()) if self._visible(other)]


class VisibleGraph:
    """A graph over every link of a scope, restricted on the fly to the facts one recall may see.

    The same neighbours, in the same order, as `build_graph` over only the visible facts and the links
    between them, without filtering every link for every query."""

    def __init__(self, graph: Graph, visible) -> None:
        self._visible = visible
        self.out = _VisibleEdges(graph.out, visible)
        self.into = _VisibleEdges(graph.into, visible)

    def __contains__(self, memory_id: str) -> bool:
        return self._visible(memory_id)


def neighbors(
    graph: Graph, memory_id: str, kinds: Sequence[str] | None = None, direction: str = "both"
) -> list[str]:
    """Out-neighbours in edge order, then in-neighbours, optionally by kind; deduplicated, self removed."""
    found: list[str] = []
    if direction in ("out", "both"):
        found += [other for other, kind in graph.out.get(memory_id, ()) if kinds is None or kind in kinds]
    if direction in ("in", "both"):
        found += [other for other, kind in graph.into.get(memory_id, ()) if kinds is None or kind in kinds]
    return [other for other in dict.fromkeys(found) if other != memory_id]


def spread(
    graph: Graph,
    seeds: Sequence[str],
    max_hops: int = 2,
    fan_out: int = 10,
    kinds: Sequence[str] | None = None,
) -> dict[str, int]:
    """Breadth-first hop distance from the seeds, up to `max_hops`; `{id: hop}` in discovery order.

    Seeds outside the graph are ignored; seeds are hop 0. From each frontier node only the first
    `fan_out` neighbours are considered, and the cap applies before already-reached nodes are skipped.
    """
    hops = {seed: 0 for seed in seeds if seed in graph}
    frontier = list(hops)
    for hop in range(1, max_hops + 1):
        reached = []
        for node in frontier:
            for other in neighbors(graph, node, kinds)[:fan_out]:
                if other not in hops:
                    hops[other] = hop
                    reached.append(other)
        frontier = reached
    return hops


def wants_walk(query: str) -> bool:
    """True when the query uses a temporal or relational marker word (whole words, any case)."""
    return _MARKERS.search(query) is not None


def recall_with_graph(
    cols: FactColumns,
    links: Iterable[Link],
    query: str,
    now: int,
    scope: Any,
    *,
    limit: int = DEFAULT_LIMIT,
    seed_count: int = 4,
    hop_decay: float = 0.5,
    graph_weight: float = 1.0,
    max_hops: int = 2,
    fan_out: int = 10,
    rrf_k: int = 60,
    min_sim: float | None = None,
    force_walk: bool = False,
    embedder: Any = None,
    seed_hits: Sequence[Hit] | None = None,
    graph: Graph | None = None,
) -> list[Hit]:
    """Hybrid recall, extended along links when the query or the seeds call for it.

    The hybrid gives up to max(limit, 2·seed_count) seeds. The walk runs when `force_walk` is set,
    the query has a marker word, or two of the first `seed_count` seeds are linked; otherwise the
    hybrid's first `limit` hits come back unchanged. The walk reaches facts up to `max_hops` links
    away in either direction, over every link kind; a reached fact weighs `hop_decay^hop /
    √(1 + degree)`. Three ranked lanes (BM25 rank and vector rank of the seeds, graph weight of the
    reached facts) are fused: `score = Σ 1/(rrf_k + rank)` over the lanes a fact is in, the graph
    lane's share times `graph_weight` (a workspace tuning knob, 1 by default). Ties fall to
    the newest `created_at`, then to lane order.
    """
    limit = limit if limit and limit > 0 else DEFAULT_LIMIT
    # `seed_hits` lets the caller seed from another lane (Tideline's default fused lane); its order
    # then stands in for the lexical rank, and there is no separate vector rank.
    if seed_hits is not None:
        seeds = list(seed_hits)
    else:
        seeds = recall_hybrid(
            cols, query, now, scope, limit=max(limit, 2 * seed_count), min_sim=min_sim, embedder=embedder
        )
    if not seeds:
        return []
    # Only links between two facts the caller may see take part. With a prebuilt `graph` (all of the
    # scope's links, built once per link change) visibility is checked per step of the walk, so a
    # recall costs what the walk touches; without one the visible links are filtered here, O(links).
    visible: list[np.ndarray] = []  # computed on the first step that needs it (most recalls never walk)

    def in_scope(memory_id: str) -> bool:
        row = cols.row_index.get(memory_id)
        if row is None:
            return False
        if not visible:
            visible.append(candidate_mask(cols, now, scope))
        return bool(visible[0][row])

    if graph is not None:
        graph = VisibleGraph(graph, in_scope)
    else:
        edges = [link for link in links if in_scope(link[0]) and in_scope(link[2])]
        nodes = dict.fromkeys([hit.memory_id for hit in seeds] + [end for s, _, t in edges for end in (s, t)])
        graph = build_graph(nodes, edges)
    seed_ids = [hit.memory_id for hit in seeds[:seed_count]]
    linked_seeds = any(other in seed_ids for seed in seed_ids for other in neighbors(graph, seed))
    if not (force_walk or wants_walk(query) or linked_seeds):
        return [
            Hit(h.memory_id, h.score, {**h.components, "route": "hybrid", "via_graph": False}, h.row)
            for h in seeds[:limit]
        ]

    hops = spread(graph, seed_ids, max_hops, fan_out)
    reached = [(mid, hop) for mid, hop in hops.items() if hop >= 1]
    weights = [hop_decay**hop / math.sqrt(1 + len(neighbors(graph, mid))) for mid, hop in reached]
    graph_order = sorted(range(len(reached)), key=lambda i: -weights[i])  # stable: BFS order on ties
    graph_rank = {reached[i][0]: pos + 1 for pos, i in enumerate(graph_order)}
    weight_of = {mid: weight for (mid, _), weight in zip(reached, weights, strict=True)}
    row_of = {mid: cols.row_index[mid] for mid in dict.fromkeys([*(h.memory_id for h in seeds), *graph_rank])}
    if seed_hits is not None:
        lex_rank = {h.memory_id: position + 1 for position, h in enumerate(seeds)}
        vec_rank: dict[str, int] = {}
    else:
        lex_rank = {h.memory_id: h.components["lex_rank"] for h in seeds if h.components.get("lex_rank")}
        vec_rank = {h.memory_id: h.components["vec_rank"] for h in seeds if h.components.get("vec_rank")}

    fused = []
    for position, mid in enumerate(dict.fromkeys([*lex_rank, *vec_rank, *graph_rank])):
        parts = {"lexical": lex_rank.get(mid), "vector": vec_rank.get(mid), "graph": graph_rank.get(mid)}
        shares = {lane: (1.0 / (rrf_k + rank) if rank else 0.0) for lane, rank in parts.items()}
        shares["graph"] *= graph_weight
        score = 0.0
        for lane in ("lexical", "vector", "graph"):
            score += shares[lane]
        components = {
            "route": "graph",
            "formula": "rrf_lexical + rrf_vector + rrf_graph",
            "rrf_k": rrf_k,
            "lex_rank": parts["lexical"],
            "vec_rank": parts["vector"],
            "graph_rank": parts["graph"],
            "hop": hops.get(mid),
            "graph_weight": weight_of.get(mid),
            "via_graph": parts["lexical"] is None and parts["vector"] is None,
            "rrf_lexical": shares["lexical"],
            "rrf_vector": shares["vector"],
            "rrf_graph": shares["graph"],
            "score": score,
        }
        fused.append((score, position, mid, components))
    fused.sort(key=lambda item: (-item[0], -int(cols.created_at[row_of[item[2]]]), item[1]))
    return [Hit(mid, score, components, row_of[mid]) for score, _, mid, components in fused[:limit]]
