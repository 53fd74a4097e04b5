"""The memory graph for a dashboard: nodes, typed edges, communities and headline stats (ENGINE-SPEC §5.7).

Pure. Communities come from Louvain modularity optimisation (`python-louvain`) instead of the
original's label propagation: it finds tighter, better-balanced clusters on large graphs, and the
partition's modularity says how clustered the memory is. Louvain visits nodes in a random order, so
the graph is built in a fixed order (nodes and edges sorted by id) and the generator has a fixed seed:
the same memory always gets the same clusters, with the same ids.
"""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import asdict, dataclass

import community as community_louvain
import networkx as nx
import numpy as np

from memory.engine.decay import DAY_MS
from memory.engine.links import STRENGTH_WEIGHT, link_strength
from memory.engine.maintenance import Link, MaintFact

LOUVAIN_SEED = 20_240_601
SNIPPET_CHARS = 48
RECENT_MS = 7 * DAY_MS
_WHITESPACE = re.compile(r"\s+")


@dataclass(frozen=True)
class GraphNode:
    id: str
    label: str
    segment: str
    importance: float
    created_at: int
    cluster_id: str
    source_type: str | None = None


@dataclass(frozen=True)
class GraphEdge:
    source: str
    target: str
    kind: str
    strength: str


@dataclass(frozen=True)
class GraphCluster:
    """A community: its id (smallest member id), size, label and representative (most important member)."""

    id: str
    label: str
    size: int
    representative: str


@dataclass(frozen=True)
class GraphStats:
    total_memories: int
    connections: int
    clusters: int
    by_type: dict[str, int]
    added_last_7d: int
    modularity: float | None


@dataclass(frozen=True)
class GraphExport:
    nodes: tuple[GraphNode, ...]
    edges: tuple[GraphEdge, ...]
    clusters: tuple[GraphCluster, ...]
    stats: GraphStats


class _ReadOnlyAdjacencyGraph(nx.Graph):
    """A networkx graph whose `graph[node]` is the plain neighbour dict instead of a read-only view.

    python-louvain reads `graph[node].items()` for every node on every sweep; skipping the view
    wrapper makes community detection about a fifth faster. Nothing here writes through it.
    """

    def __getitem__(self, node):  # type: ignore[override]
        return self._adj[node]


def _modularity(partition: dict[str, int], pairs: list[tuple[tuple[str, str], float]]) -> float:
    """Newman modularity Q = Σ_c [ L_c / m − (D_c / 2m)² ] of the partition (m = total edge weight).

    L_c is the weight of edges inside community c and D_c the summed weighted degree of its nodes.
    """
    a = np.array([partition[x] for (x, _), _ in pairs])
    b = np.array([partition[y] for (_, y), _ in pairs])
    w = np.array([weight for _, weight in pairs], dtype=np.float64)
    m = w.sum()
    size = max(partition.values()) + 1
    inside = np.bincount(a[a == b], weights=w[a == b], minlength=size)
    degree = np.bincount(a, weights=w, minlength=size) + np.bincount(b, weights=w, minlength=size)
    return float((inside / m - (degree / (2 * m)) ** 2).sum())


def snippet(text: str, limit: int = SNIPPET_CHARS) -> str:
    """Whitespace collapsed; if longer than `limit`, its first `limit − 1` characters and `…`."""
    flat = _WHITESPACE.sub(" ", text).strip()
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def export_memory_graph(
    facts: Sequence[MaintFact],
    links: Sequence[Link],
    now: int,
    *,
    max_nodes: int | None = None,
    seed: int = LOUVAIN_SEED,
    resolution: float = 1.0,
) -> GraphExport:
    """Active facts as nodes, their links as typed edges, Louvain communities, and stats.

    * Edges: each link between two active facts (self links dropped), exported once per unordered
      pair and kind, with its strength class (§5.1); when both directions are stored, the one from
      the smaller id is kept.
    * Communities: Louvain on the undirected graph where every distinct stored link adds its strength
      weight (strong 1, medium 0.6, weak 0.3) to its pair, so links both ways and of several kinds
      pull harder.
      A fact without links is a community of its own. A cluster's id is its smallest member id, its
      representative the most important member (ties: smallest id), its label the representative's
      subject key or else a 48-character snippet. Clusters are sorted by size, then id.
    * Nodes: with `max_nodes` below the active count, the most important facts (ties: smallest id);
      edges are trimmed to the node set. Stats always describe every active fact: count, untrimmed
      connections, clusters, facts per segment, facts added in the last 7 days, and modularity
      (None when there are no edges).
    """
    active = sorted((f for f in facts if f.is_active), key=lambda f: f.memory_id)
    by_id = {f.memory_id: f for f in active}
    edges: dict[tuple[str, str, str], GraphEdge] = {}
    weight: dict[tuple[str, str], float] = defaultdict(float)
    # Sorted, so the direction kept for a pair (the smaller source id) never depends on input order.
    for source, kind, target in sorted(set(links)):
        if source == target or source not in by_id or target not in by_id:
            continue
        pair = (source, target) if source < target else (target, source)
        weight[pair] += STRENGTH_WEIGHT[link_strength(kind)]
        edges.setdefault((*pair, kind), GraphEdge(source, target, kind, link_strength(kind)))

    graph = nx.Graph()
    graph.add_nodes_from(by_id)
    graph.add_weighted_edges_from((a, b, w) for (a, b), w in sorted(weight.items()))
    partition = community_louvain.best_partition(
        graph, weight="weight", random_state=seed, resolution=resolution
    )
    modularity = (
        community_louvain.modularity(partition, graph, weight="weight") if graph.number_of_edges() else None
    )

    members: dict[int, list[MaintFact]] = defaultdict(list)
    for fact in active:  # in id order, so members[0] is the smallest id
        members[partition[fact.memory_id]].append(fact)
    cluster_of: dict[str, str] = {}
    clusters = []
    for group in members.values():
        cluster_id = group[0].memory_id
        representative = min(group, key=lambda f: (-f.importance, f.memory_id))
        label = (representative.subject_key or "").strip() or snippet(representative.content)
        clusters.append(GraphCluster(cluster_id, label, len(group), representative.memory_id))
        for fact in group:
            cluster_of[fact.memory_id] = cluster_id
    clusters.sort(key=lambda c: (-c.size, c.id))

    chosen = active
    if max_nodes is not None and max_nodes < len(active):
        chosen = sorted(active, key=lambda f: (-f.importance, f.memory_id))[: max(0, max_nodes)]
        chosen.sort(key=lambda f: f.memory_id)
    node_ids = {f.memory_id for f in chosen}
    nodes = tuple(
        GraphNode(
            f.memory_id,
            snippet(f.content),
            f.segment,
            f.importance,
            f.created_at,
            cluster_of[f.memory_id],
            f.source_type,
        )
        for f in chosen
    )
    kept_edges = tuple(e for e in edges.values() if e.source in node_ids and e.target in node_ids)
    stats = GraphStats(
        total_memories=len(active),
        connections=len(edges),
        clusters=len(clusters),
        by_type=dict(sorted(Counter(f.segment for f in active).items())),
        added_last_7d=sum(1 for f in active if now - f.created_at <= RECENT_MS),
        modularity=modularity,
    )
    return GraphExport(nodes, kept_edges, tuple(clusters), stats)


def to_json(export: GraphExport) -> dict:
    """A JSON-ready dict: nodes (with cluster ids), typed edges, clusters and stats, in camelCase."""
    return {
        "nodes": [
            {
                "id": n.id, "label": n.label, "segment": n.segment, "importance": n.importance,
                "createdAt": n.created_at, "clusterId": n.cluster_id,
                **({"sourceType": n.source_type} if n.source_type else {}),
            }
            for n in export.nodes
        ],
        "edges": [
            {"from": e.source, "to": e.target, "kind": e.kind, "strength": e.strength} for e in export.edges
        ],
        "clusters": [asdict(c) for c in export.clusters],
        "stats": {
            "totalMemories": export.stats.total_memories,
            "connections": export.stats.connections,
            "clusters": export.stats.clusters,
            "byType": dict(export.stats.by_type),
            "addedLast7d": export.stats.added_last_7d,
            "modularity": export.stats.modularity,
        },
    }  # fmt: skip


def to_graphml(export: GraphExport) -> str:
    """GraphML text: nodes carry label, segment, importance, created_at and cluster; edges kind and strength.

    Parallel links of different kinds between two facts are kept (a multigraph keyed by kind). The
    stats are graph attributes; the cluster list is a JSON string attribute (GraphML has no lists).
    """
    graph = nx.MultiDiGraph()
    graph.graph.update(
        total_memories=export.stats.total_memories,
        connections=export.stats.connections,
        clusters=export.stats.clusters,
        added_last_7d=export.stats.added_last_7d,
        modularity=export.stats.modularity if export.stats.modularity is not None else float("nan"),
        by_type=json.dumps(export.stats.by_type, sort_keys=True),
        cluster_list=json.dumps([asdict(c) for c in export.clusters], ensure_ascii=False),
    )
    for n in export.nodes:
        attributes = {"label": n.label, "segment": n.segment, "importance": float(n.importance),
                      "created_at": int(n.created_at), "cluster": n.cluster_id}  # fmt: skip
        if n.source_type:
            attributes["source_type"] = n.source_type
        graph.add_node(n.id, **attributes)
    for e in export.edges:
        graph.add_edge(e.source, e.target, key=e.kind, kind=e.kind, strength=e.strength)
    return "\n".join(nx.generate_graphml(graph))
