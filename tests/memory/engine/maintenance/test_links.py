"""Link vocabulary, reading edges, link_related, invalidate and entity resolution (ENGINE-SPEC §5.1–§5.6)."""

from memory.engine.maintenance.entities import proper_noun_spans, resolve_entities
from memory.engine.maintenance.links import (
    LinkSpec,
    backlinks_to,
    edge_tuples,
    inverse_link_kind,
    link_strength,
    links_from,
    plan_invalidate,
    plan_link_related,
)
from memory.engine.maintenance.plans import apply_plan
from memory.engine.recall.graph_recall import build_graph, neighbors, spread
from tests.memory.engine.maintenance.maint_factory import NOW, fact


def test_links_from_merges_explicit_links_with_superseded_ids_without_duplicates():
    """I86: a bare supersedes list gives one supersedes edge; duplicates collapse, keeping a reason."""
    assert links_from([], ["x"]) == [LinkSpec("supersedes", "x")]
    explicit = [LinkSpec("corrects", "a"), LinkSpec("supersedes", "a")]
    assert links_from(explicit, ["a"]) == [LinkSpec("corrects", "a"), LinkSpec("supersedes", "a")]
    with_reason = [LinkSpec("supports", "b"), LinkSpec("supports", "b", reason="same study")]
    assert links_from(with_reason) == [LinkSpec("supports", "b", reason="same study")]
    assert edge_tuples("n", explicit, ["z"]) == [
        ("n", "corrects", "a"),
        ("n", "supersedes", "a"),
        ("n", "supersedes", "z"),
    ]


def test_backlinks_find_inbound_edges_from_explicit_links_and_superseded_ids():
    """I86: both sources of edges count, in record order."""
    records = [
        ("b", [LinkSpec("corrects", "a")], ["a"]),
        ("c", [LinkSpec("relates", "b")], []),
        ("d", [], ["a"]),
    ]
    assert backlinks_to(records, "a") == [("b", "corrects"), ("b", "supersedes"), ("d", "supersedes")]


def test_the_graph_drops_edges_leaving_the_set_and_neighbours_honour_direction_and_kind():
    """I86: buildGraph + neighbors."""
    graph = build_graph(
        ["a", "b", "c"], [("a", "relates", "b"), ("a", "derived_from", "ghost"), ("b", "supports", "c")]
    )
    assert neighbors(graph, "a", direction="out") == ["b"]
    assert neighbors(graph, "c", direction="in") == ["b"]
    assert sorted(neighbors(graph, "b")) == ["a", "c"]
    assert neighbors(graph, "b", kinds=["relates"], direction="in") == ["a"]
    assert neighbors(graph, "b", kinds=["contradicts"], direction="in") == []


def test_spread_is_bounded_by_hops_and_fan_out():
    """I87: hop 2 but not hop 3; fan-out 5 of a 20-leaf hub; maxHops 0; an unknown seed."""
    chain = build_graph("abcd", [("a", "relates", "b"), ("b", "relates", "c"), ("c", "relates", "d")])
    assert spread(chain, ["a"], max_hops=2) == {"a": 0, "b": 1, "c": 2}
    leaves = [f"h{k}" for k in range(20)]
    hub = build_graph(["hub", *leaves], [("hub", "relates", leaf) for leaf in leaves])
    assert len(spread(hub, ["hub"], max_hops=1, fan_out=5)) == 6
    assert spread(hub, ["hub"], max_hops=0) == {"hub": 0}
    assert spread(hub, ["nope"], max_hops=2) == {}


def test_entity_resolution_keeps_names_several_facts_mention():
    """I88: Bangalore and Biscuit recur; Paris, User, The do not count."""
    facts = [
        ("1", "User moved to Bangalore last year."),
        ("2", "The weather in Bangalore is mild."),
        ("3", "User adopted a dog named Biscuit."),
        ("4", "Biscuit is a golden retriever."),
        ("5", "User visited Paris once."),
    ]
    entities = resolve_entities(facts)
    assert [e.name for e in entities] == ["Bangalore", "Biscuit"]
    assert entities[0].mentions == ("1", "2")


def test_a_name_repeated_inside_one_fact_counts_once_for_its_spelling():
    """I88: "ATLAS" three times in one fact loses the casing to "Atlas" from two facts."""
    facts = [("1", "ATLAS shipped. ATLAS wins. ATLAS again."), ("2", "Atlas is fine."), ("3", "Atlas again.")]
    [atlas] = resolve_entities(facts)
    assert atlas.name == "Atlas" and len(atlas.mentions) == 3


def test_spans_strip_punctuation_and_possessives():
    assert proper_noun_spans('("Sarah\'s" team met Project Atlas.)') == ["Sarah", "Project Atlas"]


def test_link_related_adds_both_directions_once_and_caps_hubs():
    """I89: 2 for a new pair, 0 repeated, 0 for a self pair, a hub capped at 4."""
    ids = {"a", "b", "hub", *(f"leaf{k}" for k in range(9))}
    plan = plan_link_related([("a", "b")], ids, [])
    assert plan.count == 2 and plan.added == (("a", "relates", "b"), ("b", "relates", "a"))
    _, links = apply_plan([], [], plan)
    assert plan_link_related([("a", "b")], ids, links).count == 0
    assert plan_link_related([("a", "a")], ids, links).count == 0
    hub = plan_link_related([("hub", f"leaf{k}") for k in range(9)], ids, [], max_per_record=4)
    assert sum(1 for source, _, _ in hub.added if source == "hub") == 4


def test_link_related_skips_inactive_ends_and_writes_inverse_kinds():
    assert plan_link_related([("a", "gone")], {"a"}, []).count == 0
    plan = plan_link_related([("x", "y", "causes"), ("y", "z", "part_of")], {"x", "y", "z"}, [])
    assert plan.added == (
        ("x", "causes", "y"),
        ("y", "caused_by", "x"),
        ("y", "part_of", "z"),
        ("z", "part_of", "y"),
    )
    assert inverse_link_kind("precedes") == "follows" and inverse_link_kind("relates") == "relates"


def test_link_strength_classes():
    assert [link_strength(k) for k in ("supersedes", "contradicts", "supports", "relates", "same_topic")] == [
        "strong", "strong", "medium", "weak", "weak",
    ]  # fmt: skip


def test_invalidate_closes_valid_time_archives_and_links_the_superseder_once():
    """H79: validTo = T, archived, contradicts (and transition) on the new fact; a second call is a no-op."""
    old, new = (
        fact("old", "I live in Hyderabad", "identity"),
        fact("new", "I live in Bangalore now", "identity"),
    )
    invalidation = plan_invalidate(old, NOW, superseded_by="new")
    assert invalidation.targets == ["new"]
    assert invalidation.change.after == {"lifecycle": "archived", "valid_to": NOW}
    assert invalidation.added == (("new", "contradicts", "old"), ("new", "transition", "old"))
    facts, links = apply_plan([old, new], [], invalidation)
    assert facts[0].lifecycle == "archived" and facts[0].valid_to == NOW
    assert plan_invalidate(facts[0], NOW + 5, superseded_by="new", links=links) is None


def test_invalidate_without_a_known_superseder_adds_no_link():
    stale = fact("old", "x")
    assert plan_invalidate(stale, NOW).added == ()
    assert plan_invalidate(stale, NOW, superseded_by="ghost", existing_ids={"old"}).added == ()
    present = [("new", "contradicts", "old")]
    assert plan_invalidate(stale, NOW, superseded_by="new", links=present).added == (
        ("new", "transition", "old"),
    )
