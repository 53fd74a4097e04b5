"""The memory graph export with Louvain communities (ENGINE-SPEC §5.7)."""

import json
import random
from dataclasses import asdict

import community as community_louvain
import networkx as nx
import numpy as np
import pytest

from memory.engine.maintenance.graph_export import (
    LOUVAIN_SEED,
    export_memory_graph,
    louvain,
    modularity,
    snippet,
    to_graphml,
    to_json,
)
from memory.engine.maintenance.links import STRENGTH_WEIGHT, link_strength
from tests.memory.engine.maintenance.maint_factory import DAY, NOW, fact


def two_pairs_and_a_singleton():
    facts = [
        fact("a1", "Deploy ships on Friday", "project"),
        fact("a2", "Friday deploy needs a rollback plan", "project"),
        fact("b1", "I prefer dark mode", "preference"),
        fact("b2", "Dark mode in the editor too", "preference"),
        fact("k", "Unrelated mountain weather note", "knowledge"),
    ]
    links = [
        ("a1", "relates", "a2"),
        ("a2", "relates", "a1"),
        ("b1", "relates", "b2"),
        ("b2", "relates", "b1"),
    ]
    return facts, links


def test_linked_facts_share_a_cluster_and_the_stats_describe_the_memory():
    """I90: 5 nodes, 2 connections, clusters 2/2/1, a weak relates edge, byType, addedLast7d 5."""
    facts, links = two_pairs_and_a_singleton()
    graph = export_memory_graph(facts, links, NOW)
    assert len(graph.nodes) == 5
    assert graph.stats.total_memories == 5 and graph.stats.connections == 2
    cluster = {node.id: node.cluster_id for node in graph.nodes}
    assert (
        cluster["a1"] == cluster["a2"] and cluster["b1"] == cluster["b2"] and cluster["a1"] != cluster["b1"]
    )
    assert [c.size for c in graph.clusters] == [2, 2, 1]
    assert all(c.label for c in graph.clusters)
    assert {e.strength for e in graph.edges if e.kind == "relates"} == {"weak"}
    assert graph.stats.by_type == {"knowledge": 1, "preference": 2, "project": 2}
    assert graph.stats.added_last_7d == 5
    assert graph.stats.modularity > 0.4


def test_max_nodes_caps_the_nodes_while_stats_cover_every_fact():
    """I90: maxNodes 3 of 10 facts; the most important ones are kept."""
    facts = [fact(f"f{k}", f"distinct fact {k}", importance=k / 10) for k in range(10)]
    graph = export_memory_graph(facts, [], NOW, max_nodes=3)
    assert [n.id for n in graph.nodes] == ["f7", "f8", "f9"]
    assert graph.stats.total_memories == 10 and graph.stats.clusters == 10
    assert graph.stats.modularity is None


def test_archived_facts_are_neither_nodes_nor_edge_ends():
    """I90: a superseded fact leaves the graph with its edges."""
    facts = [
        fact("x", "I live in Lisbon", "identity", lifecycle="archived"),
        fact("y", "I live in Tokyo now", "identity"),
    ]
    graph = export_memory_graph(facts, [("y", "supersedes", "x")], NOW)
    assert [n.id for n in graph.nodes] == ["y"] and graph.edges == () and graph.stats.connections == 0


def test_edges_are_exported_once_per_pair_and_kind():
    facts = [fact("a", "alpha"), fact("b", "beta")]
    links = [("a", "relates", "b"), ("b", "relates", "a"), ("a", "supports", "b"), ("a", "relates", "a")]
    graph = export_memory_graph(facts, links, NOW)
    assert [(e.source, e.target, e.kind, e.strength) for e in graph.edges] == [
        ("a", "b", "relates", "weak"), ("a", "b", "supports", "medium"),
    ]  # fmt: skip


def clusters_of(graph):
    groups = {}
    for node in graph.nodes:
        groups.setdefault(node.cluster_id, []).append(node.id)
    return sorted(sorted(members) for members in groups.values())


def test_two_dense_groups_joined_by_one_weak_link_are_two_communities():
    facts = [fact(f"{g}{k}", f"{g} fact {k}", importance=0.5 + k / 100) for g in "pq" for k in range(5)]
    links = [(f"{g}{i}", "supports", f"{g}{j}") for g in "pq" for i in range(5) for j in range(i + 1, 5)]
    links.append(("p0", "relates", "q0"))
    graph = export_memory_graph(facts, links, NOW)
    assert clusters_of(graph) == [[f"p{k}" for k in range(5)], [f"q{k}" for k in range(5)]]
    # The representative is the most important member; the id is the smallest member id.
    assert {(c.id, c.representative) for c in graph.clusters} == {("p0", "p4"), ("q0", "q4")}


def test_a_cluster_is_labelled_by_its_members_shared_words_never_a_subject_key():
    facts = [
        fact("a", "I live in Lisbon", "identity", subject_key=" home_city "),
        fact("b", "Lisbon has hills " * 5, "knowledge"),
        fact("c", "The Porto metro runs until one in the morning."),
        fact("d", "I take the Porto metro to work."),
        fact("e", "The metro in Porto is cheap."),
        fact("f", "My sister lives in Porto."),
    ]
    links = [("c", "relates", "d"), ("d", "relates", "e"), ("c", "relates", "e")]
    graph = export_memory_graph(facts, links, NOW)
    labels = {c.id: c.label for c in graph.clusters}
    # A lone fact is named by its opening words, never by its subject key.
    assert labels["a"] == "I live in Lisbon" and "home_city" not in labels.values()
    assert labels["b"] == snippet("Lisbon has hills " * 5) and len(labels["b"]) == 48 and labels["b"].endswith("…")
    # "metro" is in all three members and rarer across the memory than "porto" (also in "f").
    assert labels["c"] == "metro · porto"


def random_graph(seed, count=300, link_count=900):
    rng = random.Random(seed)
    facts = [
        fact(f"m{k:04d}", f"fact number {k}", rng.choice(["knowledge", "project", "preference"]),
             created_at=NOW - rng.randint(0, 20) * DAY, importance=rng.random())
        for k in range(count)
    ]  # fmt: skip
    kinds = ["relates", "supports", "causes", "supersedes", "same_topic"]
    links = [
        (f"m{rng.randrange(count):04d}", rng.choice(kinds), f"m{rng.randrange(count):04d}")
        for _ in range(link_count)
    ]
    return facts, links


def test_the_same_memory_always_yields_the_same_clusters_whatever_the_input_order():
    facts, links = random_graph(seed=5)
    first = export_memory_graph(facts, links, NOW)
    assert first == export_memory_graph(facts, links, NOW)
    rng = random.Random(1)
    shuffled_facts, shuffled_links = facts[:], links[:]
    rng.shuffle(shuffled_facts)
    rng.shuffle(shuffled_links)
    again = export_memory_graph(shuffled_facts, shuffled_links, NOW)
    assert again == first


def test_json_and_graphml_carry_nodes_clusters_typed_edges_and_stats():
    facts, links = two_pairs_and_a_singleton()
    facts.append(fact("t", "Tool says hi", "knowledge", source_type="tool_output"))
    graph = export_memory_graph(facts, [*links, ("t", "supports", "k")], NOW)
    document = to_json(graph)
    json.dumps(document)  # serialisable as is
    assert document["stats"]["totalMemories"] == 6 and document["stats"]["connections"] == 3
    assert {n["id"]: n["clusterId"] for n in document["nodes"]}["a2"] == {
        n["id"]: n["clusterId"] for n in document["nodes"]
    }["a1"]
    assert next(n for n in document["nodes"] if n["id"] == "t")["sourceType"] == "tool_output"
    assert "sourceType" not in next(n for n in document["nodes"] if n["id"] == "k")
    assert {e["kind"] for e in document["edges"]} == {"relates", "supports"}

    parsed = nx.parse_graphml(to_graphml(graph))
    assert sorted(parsed.nodes) == sorted(n.id for n in graph.nodes)
    assert parsed.nodes["a1"]["cluster"] == parsed.nodes["a2"]["cluster"]
    assert parsed.nodes["t"]["source_type"] == "tool_output"
    assert sorted(data["kind"] for _, _, data in parsed.edges(data=True)) == [
        "relates",
        "relates",
        "supports",
    ]
    assert parsed.graph["total_memories"] == 6 and parsed.graph["connections"] == 3
    assert len(json.loads(parsed.graph["cluster_list"])) == graph.stats.clusters


# Louvain is python-louvain's; these hold its use here (numbering, weights, warm starts) to account.


def planted_partition(seed, groups, size, p_in, p_out):
    """Groups of `size` nodes, each pair joined with probability p_in inside a group and p_out across."""
    rng = random.Random(seed)
    rows, cols, weights = [], [], []
    for i in range(groups * size):
        for j in range(i + 1, groups * size):
            if rng.random() < (p_in if i // size == j // size else p_out):
                rows.append(i)
                cols.append(j)
                weights.append(rng.choice([0.3, 0.6, 1.0]))
    return groups * size, np.array(rows), np.array(cols), np.array(weights)


def reference_partition(size, rows, cols, weights):
    """python-louvain's partition of the same graph, as community numbers, and its graph."""
    graph = nx.Graph()
    graph.add_nodes_from(range(size))
    graph.add_weighted_edges_from(zip(rows.tolist(), cols.tolist(), weights.tolist(), strict=True))
    partition = community_louvain.best_partition(graph, weight="weight", random_state=7)
    return [partition[node] for node in range(size)], graph


def groups_of(community):
    groups = {}
    for node, number in enumerate(community):
        groups.setdefault(number, set()).add(node)
    return {frozenset(members) for members in groups.values()}


def test_louvain_finds_the_same_clear_communities_as_python_louvain():
    size, rows, cols, weights = planted_partition(0, groups=12, size=40, p_in=0.25, p_out=0.005)
    ours = louvain(size, rows, cols, weights)
    reference, _ = reference_partition(size, rows, cols, weights)
    assert groups_of(ours.tolist()) == groups_of(reference)
    assert len(set(ours.tolist())) == 12
    # Numbered 0, 1, … in order of each community's smallest node.
    assert [int(ours[min(group)]) for group in sorted(groups_of(ours.tolist()), key=min)] == list(range(12))


def test_louvain_matches_python_louvains_modularity_on_a_noisy_graph():
    size, rows, cols, weights = planted_partition(3, groups=20, size=50, p_in=0.1, p_out=0.01)
    ours = modularity(louvain(size, rows, cols, weights), rows, cols, weights)
    reference, graph = reference_partition(size, rows, cols, weights)
    expected = community_louvain.modularity(dict(enumerate(reference)), graph, weight="weight")
    assert ours > 0.27 and ours >= expected - 0.015


def test_modularity_is_newmans_as_python_louvain_computes_it():
    size, rows, cols, weights = planted_partition(1, groups=5, size=20, p_in=0.3, p_out=0.05)
    rng = random.Random(2)
    community = np.array([rng.randrange(7) for _ in range(size)])
    _, graph = reference_partition(size, rows, cols, weights)
    expected = community_louvain.modularity(dict(enumerate(community.tolist())), graph, weight="weight")
    assert modularity(community, rows, cols, weights) == pytest.approx(expected, abs=1e-12)


def test_louvain_is_deterministic_for_a_seed_and_good_for_any_seed():
    size, rows, cols, weights = planted_partition(4, groups=10, size=30, p_in=0.15, p_out=0.01)
    first = louvain(size, rows, cols, weights, seed=11)
    assert np.array_equal(first, louvain(size, rows, cols, weights, seed=11))
    scores = [modularity(louvain(size, rows, cols, weights, seed=s), rows, cols, weights) for s in range(5)]
    assert max(scores) - min(scores) < 0.02


def test_louvain_edge_cases():
    empty = np.array([], dtype=np.int64)
    assert louvain(0, empty, empty, np.array([])).tolist() == []
    assert louvain(3, empty, empty, np.array([])).tolist() == [0, 1, 2]
    # A repeated pair adds up; an isolated node stays alone.
    joined = louvain(4, np.array([0, 1, 0]), np.array([1, 0, 2]), np.array([1.0, 1.0, 0.3])).tolist()
    assert joined[0] == joined[1] and joined[3] not in joined[:3]
    size, rows, cols, weights = planted_partition(5, groups=6, size=20, p_in=0.3, p_out=0.02)
    assert len(set(louvain(size, rows, cols, weights).tolist())) == 6


def test_a_topic_graph_at_bench_shape_gets_python_louvains_modularity():
    """The benchmark's link shape (four in five links inside ~√n topics), scaled down to 1,500 facts."""
    from bench.memory.maintenance import topic_links

    facts = [fact(f"mem_{k:05d}", f"fact {k}") for k in range(1500)]
    links = topic_links(facts, 7500, seed=3)
    graph = export_memory_graph(facts, links, NOW)
    index = {f.memory_id: k for k, f in enumerate(facts)}
    reference = nx.Graph()
    reference.add_nodes_from(range(len(facts)))
    for source, kind, target in set(links):
        if source != target:
            a, b = index[source], index[target]
            old = reference.get_edge_data(a, b, {"weight": 0.0})["weight"]
            reference.add_edge(a, b, weight=old + STRENGTH_WEIGHT[link_strength(kind)])
    partition = community_louvain.best_partition(reference, weight="weight", random_state=LOUVAIN_SEED)
    expected = community_louvain.modularity(partition, reference, weight="weight")
    assert graph.stats.modularity >= expected - 0.01
    ours = {index[n.id]: n.cluster_id for n in graph.nodes}
    assert graph.stats.modularity == pytest.approx(
        community_louvain.modularity(ours, reference, weight="weight")
    )


# GraphML: written line by line, the same document networkx's writer gives.


def networkx_graphml(export):
    """The GraphML the export used to be written with: a networkx MultiDiGraph through generate_graphml."""
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


def test_graphml_is_the_document_networkx_writes_even_for_awkward_text():
    rng = random.Random(3)
    awkward = [
        "a&b",
        "x<y>",
        'q"uote',
        "tab\there",
        "nl\nx",
        "cr\rx",
        "crlf\r\nx",
        "ü–ñ…",
        "",
        "  ",
    ]
    for _ in range(120):
        facts = [
            fact(f"{rng.choice(awkward)}{k}", rng.choice(awkward) * rng.randint(0, 3), rng.choice(["knowledge", "project"]),
                 source_type=rng.choice([None, None, "tool_output"]), subject_key=rng.choice([None, "", " s&k\r "]),
                 importance=rng.random())
            for k in range(rng.randint(0, 12))
        ]  # fmt: skip
        ids = [f.memory_id for f in facts] or ["none"]
        links = [
            (rng.choice(ids), rng.choice(["relates", "supports", "causes", "contradicts"]), rng.choice(ids))
            for _ in range(rng.randint(0, 30))
        ]
        export = export_memory_graph(facts, links, NOW, max_nodes=rng.choice([None, None, 0, 3]))
        assert to_graphml(export) == networkx_graphml(export)


def test_graphml_of_a_larger_graph_parses_back_with_every_node_and_edge():
    facts, links = random_graph(seed=9, count=400, link_count=1600)
    export = export_memory_graph(facts, links, NOW)
    text = to_graphml(export)
    assert text == networkx_graphml(export)
    parsed = nx.parse_graphml(text)
    assert parsed.number_of_nodes() == len(export.nodes) and parsed.number_of_edges() == len(export.edges)
    assert parsed.graph["modularity"] == pytest.approx(export.stats.modularity)


def test_a_warm_start_keeps_the_communities_and_places_new_nodes_with_their_group():
    size, rows, cols, weights = planted_partition(6, groups=8, size=30, p_in=0.3, p_out=0.01)
    cold = louvain(size, rows, cols, weights)
    # Ten new nodes, each tied to three members of group k % 8.
    extra_rows, extra_cols = [], []
    for k in range(10):
        for member in range(3):
            extra_rows.append(size + k)
            extra_cols.append((k % 8) * 30 + member)
    grown_rows = np.concatenate([rows, extra_rows])
    grown_cols = np.concatenate([cols, extra_cols])
    grown_weights = np.concatenate([weights, np.ones(len(extra_rows))])
    start = np.concatenate([cold, -np.ones(10, dtype=np.int64)])
    warm = louvain(size + 10, grown_rows, grown_cols, grown_weights, start=start)
    assert groups_of(warm[:size].tolist()) == groups_of(cold.tolist())
    assert all(warm[size + k] == warm[(k % 8) * 30] for k in range(10))
    cold_again = louvain(size + 10, grown_rows, grown_cols, grown_weights)
    assert modularity(warm, grown_rows, grown_cols, grown_weights) >= modularity(
        cold_again, grown_rows, grown_cols, grown_weights) - 0.01


def test_an_export_can_reuse_a_kept_partition_as_it_is():
    facts = [fact(f"mem_{k}", f"fact number {k}") for k in range(6)]
    links = [("mem_0", "relates", "mem_1"), ("mem_2", "relates", "mem_3"), ("mem_3", "supports", "mem_4")]
    first = export_memory_graph(facts, links, NOW)
    assert first.communities["mem_0"] == first.communities["mem_1"] == "mem_0"
    assert first.stats.isolated == 1  # mem_5
    grown = [*facts, fact("mem_9", "a new fact")]
    kept = export_memory_graph(grown, [*links, ("mem_9", "relates", "mem_0")], NOW, previous=first.communities, fixed=True)
    assert {k: v for k, v in kept.communities.items() if k != "mem_9"} == dict(first.communities)
    assert kept.communities["mem_9"] == "mem_9"  # not placed until Louvain runs again
    warm = export_memory_graph(grown, [*links, ("mem_9", "relates", "mem_0")], NOW, previous=first.communities)
    assert warm.communities["mem_9"] == warm.communities["mem_0"]
