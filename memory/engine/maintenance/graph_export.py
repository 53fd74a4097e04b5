"""The memory graph for a dashboard: nodes, typed edges, communities and headline stats (ENGINE-SPEC §5.7).

Pure. Communities come from Louvain modularity optimisation (python-louvain's `best_partition`)
instead of the original's label propagation: it finds tighter, better-balanced clusters on large
graphs, and the partition's modularity says how clustered the memory is. Louvain visits nodes in a
random order, so the graph is built in a fixed order (nodes and edges sorted by id) with a fixed
random state: the same memory always gets the same clusters, with the same ids. A cold run costs
seconds at 10,000 facts, so the service keeps each workspace's last partition and starts the next
run from it (`previous`), and the console draws from the kept one (`fixed`) while the worker
recomputes (memory/services/maintenance/graph.py).
"""

from __future__ import annotations

import itertools
import json
import math
import re
from collections import Counter, defaultdict
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field

import community as community_louvain
import networkx as nx
import numpy as np

from memory.engine.maintenance.decay import DAY_MS
from memory.engine.maintenance.links import STRENGTH_WEIGHT, link_strength
from memory.engine.maintenance.plans import Link, MaintFact
from memory.engine.recall.tokenize import STOPWORDS

LOUVAIN_SEED = 20_240_601
SNIPPET_CHARS = 48
RECENT_MS = 7 * DAY_MS
_WHITESPACE = re.compile(r"\s+")
_OTHER_LINE_BREAKS = re.compile("[\r\x0b\x0c\x1c\x1d\x1e]")
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")


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
    isolated: int = 0  # active facts without any link (each its own cluster)


@dataclass(frozen=True)
class GraphExport:
    nodes: tuple[GraphNode, ...]
    edges: tuple[GraphEdge, ...]
    clusters: tuple[GraphCluster, ...]
    stats: GraphStats
    # Every active fact's cluster id (the nodes may be trimmed): what the next export starts from.
    communities: Mapping[str, str] = field(default_factory=dict, compare=False)


def louvain(
    size: int,
    rows: np.ndarray,
    cols: np.ndarray,
    weights: np.ndarray,
    *,
    seed: int = LOUVAIN_SEED,
    resolution: float = 1.0,
    start: Sequence[int] | None = None,
) -> np.ndarray:
    """Louvain communities of an undirected weighted graph on nodes 0 … size−1: a community number per node.

    Each edge is given once as `rows[k]`–`cols[k]` with `weights[k]` > 0 (repeats add up). The
    optimisation is python-louvain's `best_partition` (Blondel et al. 2008) with a fixed random
    state, so the same graph always gets the same communities. `start` warm-starts it from an
    earlier partition (a community number per node; any negative number marks a node of its own,
    e.g. a fact added since): the first level then begins from those communities instead of from
    singletons, which after a few new facts converges in a fraction of a cold run's time.
    Communities are numbered 0, 1, … in order of their smallest member's number.
    """
    membership = np.arange(size)
    if size == 0 or not len(weights):
        return membership
    graph = nx.Graph()
    graph.add_nodes_from(range(size))
    for u, v, w in zip(rows.tolist(), cols.tolist(), weights.tolist(), strict=True):
        if graph.has_edge(u, v):
            graph[u][v]["weight"] += w
        else:
            graph.add_edge(u, v, weight=w)
    initial = None
    if start is not None:
        fresh = itertools.count(max(start, default=0) + 1)
        initial = {node: (int(number) if number >= 0 else next(fresh)) for node, number in enumerate(start)}
    # `resolution` is python-louvain's own parameter (1: plain modularity).
    found = community_louvain.best_partition(graph, partition=initial, weight="weight", resolution=resolution,
                                             random_state=seed)  # fmt: skip
    return by_smallest_member(np.fromiter((found[node] for node in range(size)), dtype=np.int64, count=size))


def by_smallest_member(membership: np.ndarray) -> np.ndarray:
    """The same partition numbered 0, 1, … in order of each community's smallest member."""
    size = membership.size
    if size == 0:
        return membership
    _, membership = np.unique(membership, return_inverse=True)
    first = np.full(int(membership.max()) + 1, size)
    np.minimum.at(first, membership, np.arange(size))
    return np.argsort(np.argsort(first))[membership]


def _start(active: Sequence[MaintFact], previous: Mapping[str, str]) -> np.ndarray:
    """An earlier export's communities as numbers per fact (-1: a fact it did not have)."""
    numbers: dict[str, int] = {}
    return np.array([numbers.setdefault(previous[f.memory_id], len(numbers)) if f.memory_id in previous else -1
                     for f in active], dtype=np.int64)  # fmt: skip


def modularity(community: np.ndarray, rows: np.ndarray, cols: np.ndarray, weights: np.ndarray) -> float:
    """Newman modularity Q = Σ_c [ L_c / m − (D_c / 2m)² ] of a partition (m = total edge weight).

    L_c is the weight of edges inside community c and D_c the summed weighted degree of its nodes;
    edges are given once each, as for `louvain`.
    """
    m = float(weights.sum())
    a, b = community[rows], community[cols]
    same = a == b
    size = int(community.max()) + 1
    degree = np.bincount(a, weights=weights, minlength=size) + np.bincount(b, weights=weights, minlength=size)
    return float(weights[same].sum() / m - ((degree / (2 * m)) ** 2).sum())


LABEL_WORDS = 3
_WORD = re.compile(r"[^\W\d_]{3,}")


def _label_words(text: str) -> frozenset[str]:
    return frozenset(w for w in (m.group(0).lower() for m in _WORD.finditer(text)) if w not in STOPWORDS)


def _cluster_label(group: Sequence[MaintFact], words_of: Mapping[str, frozenset[str]],
                   document_frequency: Counter, total: int) -> str:  # fmt: skip
    """A community's name from its facts' own words: the few that most of its members share and the
    rest of the memory mostly does not (members holding a word × the word's IDF over all active
    facts), e.g. "porto · metro · train". Empty when no word is shared by two members; the caller
    then uses the representative fact's opening words."""
    if len(group) < 2:
        return ""
    held = Counter(word for fact in group for word in words_of[fact.memory_id])
    scored = [(-count * math.log((1 + total) / (1 + document_frequency[word])), word)
              for word, count in held.items() if count >= 2]  # fmt: skip
    return " · ".join(word for _, word in sorted(scored)[:LABEL_WORDS])


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
    previous: Mapping[str, str] | None = None,
    fixed: bool = False,
) -> GraphExport:
    """Active facts as nodes, their links as typed edges, Louvain communities, and stats.

    * Edges: each link between two active facts (self links dropped), exported once per unordered
      pair and kind, with its strength class (§5.1); when both directions are stored, the one from
      the smaller id is kept.
    * Communities: Louvain (`louvain`) on the undirected graph where every distinct stored link adds
      its strength weight (strong 1, medium 0.6, weak 0.3) to its pair, so links both ways and of
      several kinds pull harder.
      A fact without links is a community of its own. `previous` (an earlier export's
      `communities`) warm-starts Louvain; with `fixed`, those communities are used as they are
      (facts they lack each alone), so a page can show a graph without running Louvain. A
      cluster's id is its smallest member id, its representative the most important member (ties:
      smallest id), its label its members' shared words (`_cluster_label`, never a raw subject
      key) or else the representative's 48-character snippet. Clusters are sorted by size, then id.
    * Nodes: with `max_nodes` below the active count, the most important facts (ties: smallest id);
      edges are trimmed to the node set. Stats always describe every active fact: count, untrimmed
      connections, clusters, facts per segment, facts added in the last 7 days, and modularity
      (None when there are no edges).
    """
    active = sorted((f for f in facts if f.is_active), key=lambda f: f.memory_id)
    index = {f.memory_id: k for k, f in enumerate(active)}
    edges: dict[tuple[str, str, str], GraphEdge] = {}
    weight: dict[tuple[int, int], float] = defaultdict(float)
    # Sorted, so the direction kept for a pair (the smaller source id) never depends on input order.
    for source, kind, target in sorted(set(links)):
        if source == target or source not in index or target not in index:
            continue
        pair = (source, target) if source < target else (target, source)
        strength = link_strength(kind)
        weight[index[pair[0]], index[pair[1]]] += STRENGTH_WEIGHT[strength]
        edges.setdefault((*pair, kind), GraphEdge(source, target, kind, strength))

    ends = np.array(list(weight), dtype=np.int64).reshape(-1, 2)
    pair_weights = np.fromiter(weight.values(), dtype=np.float64, count=len(weight))
    start = _start(active, previous) if previous else None
    if fixed and start is not None:
        alone = start < 0
        start[alone] = start.max(initial=-1) + 1 + np.arange(int(alone.sum()))
        community = by_smallest_member(start)
    else:
        community = louvain(len(active), ends[:, 0], ends[:, 1], pair_weights, seed=seed, resolution=resolution,
                            start=start)  # fmt: skip
    score = modularity(community, ends[:, 0], ends[:, 1], pair_weights) if len(weight) else None

    members: dict[int, list[MaintFact]] = defaultdict(list)
    # In id order, so members[0] is the smallest id.
    for fact, number in zip(active, community.tolist(), strict=True):
        members[number].append(fact)
    cluster_of: dict[str, str] = {}
    clusters = []
    words_of = {f.memory_id: _label_words(f.content) for f in active}
    document_frequency = Counter(word for words in words_of.values() for word in words)
    for group in members.values():
        cluster_id = group[0].memory_id
        representative = min(group, key=lambda f: (-f.importance, f.memory_id))
        label = _cluster_label(group, words_of, document_frequency, len(active)) or snippet(representative.content)
        clusters.append(GraphCluster(cluster_id, label, len(group), representative.memory_id))
        for fact in group:
            cluster_of[fact.memory_id] = cluster_id
    clusters.sort(key=lambda c: (-c.size, c.id))

    chosen = active
    if max_nodes is not None and max_nodes < len(active):
        chosen = sorted(active, key=lambda f: (-f.importance, f.memory_id))[: max(0, max_nodes)]
        chosen.sort(key=lambda f: f.memory_id)
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
    kept_edges = tuple(edges.values())
    if len(chosen) < len(active):
        node_ids = {f.memory_id for f in chosen}
        kept_edges = tuple(e for e in kept_edges if e.source in node_ids and e.target in node_ids)
    stats = GraphStats(
        total_memories=len(active),
        connections=len(edges),
        clusters=len(clusters),
        by_type=dict(sorted(Counter(f.segment for f in active).items())),
        added_last_7d=sum(1 for f in active if now - f.created_at <= RECENT_MS),
        modularity=score,
        isolated=len(active) - len(np.unique(ends)) if len(weight) else len(active),
    )
    return GraphExport(nodes, kept_edges, tuple(clusters), stats, cluster_of)


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


_GRAPHML_OPEN = (
    '<graphml xmlns="http://graphml.graphdrawing.org/xmlns" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"'
    ' xsi:schemaLocation="http://graphml.graphdrawing.org/xmlns http://graphml.graphdrawing.org/xmlns/1.0/graphml.xsd">'
)
_GRAPH_KEYS = (("total_memories", "long"), ("connections", "long"), ("clusters", "long"), ("added_last_7d", "long"),
               ("modularity", "double"), ("by_type", "string"), ("cluster_list", "string"))  # fmt: skip
_NODE_KEYS = (("label", "string"), ("segment", "string"), ("importance", "double"), ("created_at", "long"),
              ("cluster", "string"))  # fmt: skip
_EDGE_KEYS = (("kind", "string"), ("strength", "string"))


def _text(value: str) -> str:
    return value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _attribute(value: str) -> str:
    return (_text(value).replace('"', "&quot;").replace("\r", "&#13;").replace("\n", "&#10;")
            .replace("\t", "&#09;"))  # fmt: skip


def _data(key: str, value: object, indent: str) -> str:
    text = str(value)
    return f'{indent}<data key="{key}">{_text(text)}</data>' if text else f'{indent}<data key="{key}" />'


def to_graphml(export: GraphExport) -> str:
    """GraphML text: nodes carry label, segment, importance, created_at and cluster; edges kind and strength.

    Parallel links of different kinds between two facts are kept (a multigraph keyed by kind). The
    stats are graph attributes; the cluster list is a JSON string attribute (GraphML has no lists).
    """
    # Characters XML 1.0 forbids even as references (C0 controls but tab, newline and CR; U+FFFE,
    # U+FFFF; lone surrogates) would make the whole file unreadable: each becomes U+FFFD, so a reader
    # sees that something was there. Then ASCII with character references for the rest, as
    # ElementTree writes it by default.
    text = _NOT_XML.sub("\ufffd", "\n".join(_graphml_lines(export)))
    text = text.encode("ascii", "xmlcharrefreplace").decode("ascii")
    # Any other line break in a value (a subject key with a CR, say) becomes a newline, as it did when
    # the document came from `generate_graphml`, which yields the lines of the document.
    return "\n".join(text.splitlines()) if _OTHER_LINE_BREAKS.search(text) else text


def _graphml_lines(export: GraphExport) -> Iterator[str]:
    """The document line by line, written directly (networkx's writer took ~5 s on 10,000 nodes).

    The text is the same as `networkx.generate_graphml` gives for the equivalent `MultiDiGraph` (key
    ids d0, d1, … in order of first use, declared newest first; edges grouped by source node, then by
    target in order of first appearance), so exports stay comparable with earlier ones.
    """
    keys = list(_GRAPH_KEYS)
    if export.nodes:
        keys += _NODE_KEYS
        if any(n.source_type for n in export.nodes):
            keys.append(("source_type", "string"))
    if export.edges:
        keys += _EDGE_KEYS
    key_id = {name: f"d{k}" for k, (name, _) in enumerate(keys)}
    scope = {name: "graph" for name, _ in _GRAPH_KEYS} | {name: "edge" for name, _ in _EDGE_KEYS}
    yield _GRAPHML_OPEN
    for k in range(len(keys) - 1, -1, -1):
        name, kind = keys[k]
        yield f'  <key id="d{k}" for="{scope.get(name, "node")}" attr.name="{name}" attr.type="{kind}" />'
    yield '  <graph edgedefault="directed">'
    for n in export.nodes:
        yield f'    <node id="{_attribute(n.id)}">'
        yield _data(key_id["label"], n.label, "      ")
        yield _data(key_id["segment"], n.segment, "      ")
        yield _data(key_id["importance"], float(n.importance), "      ")
        yield _data(key_id["created_at"], int(n.created_at), "      ")
        yield _data(key_id["cluster"], n.cluster_id, "      ")
        if n.source_type:
            yield _data(key_id["source_type"], n.source_type, "      ")
        yield "    </node>"
    by_source: dict[str, dict[str, list[GraphEdge]]] = {}
    for e in export.edges:
        by_source.setdefault(e.source, {}).setdefault(e.target, []).append(e)
    order = {n.id: k for k, n in enumerate(export.nodes)}
    for source in sorted(by_source, key=lambda s: order.get(s, len(order))):
        for group in by_source[source].values():
            for e in group:
                yield f'    <edge source="{_attribute(e.source)}" target="{_attribute(e.target)}" id="{_attribute(e.kind)}">'
                yield _data(key_id["kind"], e.kind, "      ")
                yield _data(key_id["strength"], e.strength, "      ")
                yield "    </edge>"
    stats = export.stats
    values = (stats.total_memories, stats.connections, stats.clusters, stats.added_last_7d,
              stats.modularity if stats.modularity is not None else float("nan"),
              json.dumps(stats.by_type, sort_keys=True),
              json.dumps([asdict(c) for c in export.clusters], ensure_ascii=False))  # fmt: skip
    for (name, _), value in zip(_GRAPH_KEYS, values, strict=True):
        yield _data(key_id[name], value, "    ")
    yield "  </graph>"
    yield "</graphml>"
