"""The memory graph export with Louvain communities (ENGINE-SPEC §5.7)."""

import json
import random

import networkx as nx

from memory.engine.graph_export import export_memory_graph, snippet, to_graphml, to_json
from tests.engine.maint_factory import DAY, NOW, fact


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


def test_a_cluster_is_labelled_by_its_representatives_subject_key_or_a_snippet():
    facts = [
        fact("a", "I live in Lisbon", "identity", subject_key=" home_city "),
        fact("b", "Lisbon has hills " * 5, "knowledge"),
    ]
    graph = export_memory_graph(facts, [], NOW)
    labels = {c.id: c.label for c in graph.clusters}
    assert labels["a"] == "home_city"
    assert (
        labels["b"] == snippet("Lisbon has hills " * 5)
        and len(labels["b"]) == 48
        and labels["b"].endswith("…")
    )


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
