"""Link graph reading (ENGINE-SPEC §5.3) and graph-augmented recall (§3.7)."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from memory.engine.facts.records import Origin
from memory.engine.recall.core import FactColumns, FactRow, recall_hybrid
from memory.engine.recall.graph_recall import build_graph, neighbors, recall_with_graph, spread, wants_walk

NOW = 1_750_000_000_000
OWNER = Origin.owner()
PEER = Origin("channel", "wa", "c1", "s1")


class Orthogonal:
    """Every text embeds to the same axis and every stored fact sits on the other: no vector hits."""

    dims = 2

    def embed(self, texts):
        return np.array([[1.0, 0.0] for _ in texts])


def columns(*rows):
    return FactColumns.from_rows(
        [FactRow(mid, text, created_at=NOW, embedding=[0.0, 1.0], **kw) for mid, text, kw in rows]
    )


def ids(hits):
    return [hit.memory_id for hit in hits]


def manager_corpus():
    cols = columns(
        ("mgr", "My manager is Priya", {}),
        ("sarah", "Sarah leads the platform infrastructure team", {}),
        ("coffee", "I drink coffee every morning", {}),
    )
    return cols, [("mgr", "relates_to", "sarah")]


def test_a_relational_query_pulls_in_a_linked_fact_through_the_graph():
    """BEHAVIOURS 49."""
    cols, links = manager_corpus()
    hits = recall_with_graph(cols, links, "who is connected to my manager", NOW, OWNER, embedder=Orthogonal())
    assert ids(hits) == ["mgr", "sarah"]
    assert hits[1].components["via_graph"] is True and hits[1].components["hop"] == 1
    assert hits[0].components["via_graph"] is False


def test_an_edge_between_two_seeds_engages_the_walk_without_marker_words():
    """BEHAVIOURS 50."""
    cols = columns(
        ("a", "deploy pipeline runs jenkins", {}),
        ("b", "deploy window is friday", {}),
        ("c", "the build server sits in rack four", {}),
    )
    links = [("a", "relates", "b"), ("b", "supports", "c")]
    hits = recall_with_graph(cols, links, "deploy", NOW, OWNER, embedder=Orthogonal())
    assert set(ids(hits)) == {"a", "b", "c"}
    reached = next(hit for hit in hits if hit.memory_id == "c")
    assert reached.components["via_graph"] and reached.components["hop"] == 1


def test_a_plain_query_without_markers_or_linked_seeds_returns_the_hybrid_result_unchanged():
    """BEHAVIOURS 51."""
    cols, links = manager_corpus()
    graph_hits = recall_with_graph(cols, links, "coffee morning", NOW, OWNER, embedder=Orthogonal())
    hybrid_hits = recall_hybrid(cols, "coffee morning", NOW, OWNER, embedder=Orthogonal())
    assert [(h.memory_id, h.score) for h in graph_hits] == [(h.memory_id, h.score) for h in hybrid_hits]
    assert all(h.components["via_graph"] is False for h in graph_hits)


def test_force_walk_follows_a_link_the_gate_would_not():
    """BEHAVIOURS 51: gated recall returns 1 result, forceWalk returns 2."""
    cols, links = manager_corpus()
    assert ids(recall_with_graph(cols, links, "priya", NOW, OWNER, embedder=Orthogonal())) == ["mgr"]
    forced = recall_with_graph(cols, links, "priya", NOW, OWNER, embedder=Orthogonal(), force_walk=True)
    assert ids(forced) == ["mgr", "sarah"]


def test_force_walk_on_an_edgeless_corpus_adds_nothing():
    """BEHAVIOURS 51."""
    cols, _ = manager_corpus()
    assert ids(recall_with_graph(cols, [], "priya", NOW, OWNER, embedder=Orthogonal(), force_walk=True)) == [
        "mgr"
    ]


def test_a_fact_whose_validity_ended_a_tick_ago_is_not_reached_and_a_future_end_is():
    """BEHAVIOURS 52."""
    for valid_to, expected in ((NOW - 1, ["mgr"]), (NOW + 60_000, ["mgr", "sarah"])):
        cols = columns(
            ("mgr", "My manager is Priya", {}), ("sarah", "Sarah leads infra", {"valid_to": valid_to})
        )
        hits = recall_with_graph(
            cols,
            [("mgr", "relates_to", "sarah")],
            "priya",
            NOW,
            OWNER,
            embedder=Orthogonal(),
            force_walk=True,
        )
        assert ids(hits) == expected


def test_the_walk_never_crosses_into_another_principals_facts():
    cols = columns(("mgr", "My manager is Priya", {}), ("peer", "Priya owes me money", {"origin": PEER}))
    hits = recall_with_graph(
        cols, [("mgr", "relates", "peer")], "manager", NOW, OWNER, embedder=Orthogonal(), force_walk=True
    )
    assert ids(hits) == ["mgr"]


def test_fused_scores_are_the_sum_of_the_reciprocal_rank_shares():
    cols, links = manager_corpus()
    for hit in recall_with_graph(cols, links, "manager", NOW, OWNER, embedder=Orthogonal(), force_walk=True):
        parts = hit.components
        assert hit.score == parts["rrf_lexical"] + parts["rrf_vector"] + parts["rrf_graph"]
        for lane, rank in (("rrf_lexical", parts["lex_rank"]), ("rrf_graph", parts["graph_rank"])):
            assert parts[lane] == (1 / (60 + rank) if rank else 0.0)


def test_a_reached_facts_graph_weight_is_the_hop_decay_over_root_degree():
    cols = columns(("a", "alpha", {}), ("b", "bravo", {}), ("c", "charlie", {}), ("d", "delta", {}))
    links = [("a", "relates", "b"), ("b", "relates", "c"), ("b", "relates", "d")]
    hits = {
        h.memory_id: h.components
        for h in recall_with_graph(cols, links, "alpha", NOW, OWNER, embedder=Orthogonal(), force_walk=True)
    }
    assert hits["b"]["graph_weight"] == 0.5 / np.sqrt(1 + 3)
    assert hits["c"]["graph_weight"] == 0.25 / np.sqrt(1 + 1)
    assert hits["b"]["graph_rank"] == 1


def test_marker_words_match_whole_words_only():
    assert wants_walk("what did I use before the move")
    assert wants_walk("things I USED   TO like") and wants_walk("no longer true")
    assert not wants_walk("what affects the build") and not wants_walk("it depends")


# ---------------------------------------------------------------- build_graph, neighbors, spread


def test_build_graph_drops_dangling_self_and_repeated_edges():
    """BEHAVIOURS 86."""
    graph = build_graph(
        ["a", "b"],
        [("a", "relates", "b"), ("a", "relates", "b"), ("a", "relates", "a"), ("a", "supports", "gone")],
    )
    assert graph.out["a"] == [("b", "relates")] and graph.into["b"] == [("a", "relates")]


def test_neighbors_honour_direction_and_kind():
    """BEHAVIOURS 86."""
    graph = build_graph(["a", "b", "c"], [("a", "supports", "b"), ("c", "corrects", "a")])
    assert neighbors(graph, "a") == ["b", "c"]
    assert neighbors(graph, "a", direction="out") == ["b"]
    assert neighbors(graph, "a", direction="in") == ["c"]
    assert neighbors(graph, "a", kinds=["corrects"]) == ["c"]


def test_spread_reaches_hop_two_but_not_hop_three():
    """BEHAVIOURS 87."""
    graph = build_graph(list("abcd"), [("a", "relates", "b"), ("b", "relates", "c"), ("c", "relates", "d")])
    assert spread(graph, ["a"], max_hops=2) == {"a": 0, "b": 1, "c": 2}


def test_fan_out_caps_the_neighbours_taken_from_a_hub():
    """BEHAVIOURS 87."""
    leaves = [f"leaf{i}" for i in range(20)]
    graph = build_graph(["hub", *leaves], [("hub", "relates", leaf) for leaf in leaves])
    assert len(spread(graph, ["hub"], max_hops=1, fan_out=5)) == 6


def test_zero_hops_returns_the_seed_and_an_unknown_seed_returns_nothing():
    """BEHAVIOURS 87."""
    graph = build_graph(["a", "b"], [("a", "relates", "b")])
    assert spread(graph, ["a"], max_hops=0) == {"a": 0}
    assert spread(graph, ["nope"]) == {}


WORDS = ["maria", "church", "yoga", "dog", "paris", "piano", "garden", "tea"]


@settings(max_examples=60, deadline=None)
@given(
    facts=st.lists(
        st.tuples(st.lists(st.sampled_from(WORDS), min_size=1, max_size=3), st.sampled_from(["active", "archived"]),
                  st.booleans()),
        min_size=2, max_size=14,
    ),
    edges=st.lists(st.tuples(st.integers(0, 13), st.sampled_from(["relates_to", "supports", "supersedes"]),
                             st.integers(0, 13)), max_size=40),
    query=st.lists(st.sampled_from(WORDS), min_size=1, max_size=2),
    fan_out=st.integers(1, 4),
)  # fmt: skip
def test_a_prebuilt_scope_graph_walks_exactly_like_the_per_query_filtered_one(facts, edges, query, fan_out):
    """The recall index keeps one graph of every link of a scope; restricting it on the fly to what a
    recall may see (archived facts, other principals) must give the same hits as filtering the links."""
    cols = FactColumns.from_rows([
        FactRow(f"f{i}", " ".join(words), created_at=NOW - i, lifecycle=life, embedding=[0.0, 1.0],
                origin=OWNER if mine else PEER)
        for i, (words, life, mine) in enumerate(facts)
    ])  # fmt: skip
    links = [(f"f{a}", kind, f"f{b}") for a, kind, b in edges]
    links += [(f"f{a}", "relates_to", "gone") for a, _, _ in edges[:2]]  # dangling: never walked
    every = build_graph(dict.fromkeys(end for s, _, t in links for end in (s, t)), links)
    text = " ".join(query)
    for force in (True, False):
        args = dict(limit=5, fan_out=fan_out, force_walk=force, embedder=Orthogonal())
        plain = recall_with_graph(cols, links, text, NOW, OWNER, **args)
        prebuilt = recall_with_graph(cols, links, text, NOW, OWNER, graph=every, **args)
        assert [(h.memory_id, h.score, h.components) for h in prebuilt] == [
            (h.memory_id, h.score, h.components) for h in plain
        ]
