"""Links as columns read as the tuples they hold, and their graph walks as `build_graph`'s does."""

from hypothesis import given, settings
from hypothesis import strategies as st

from memory.engine.maintenance.link_table import LinkTable, NodeTable, TableGraph, targets_by_source
from memory.engine.recall.graph_recall import build_graph

IDS = [f"m{i}" for i in range(7)]
KINDS = ["supports", "refines", "supersedes", "contradicts"]
links_st = st.lists(st.tuples(st.sampled_from(IDS), st.sampled_from(KINDS), st.sampled_from(IDS)), max_size=40)


@settings(max_examples=200, deadline=None)
@given(links_st)
def test_a_table_reads_as_its_links_in_order(links):
    table = LinkTable.of(NodeTable(), links)
    assert list(table) == links and len(table) == len(links) and table == links
    assert [table[i] for i in range(len(links))] == links
    assert list(table[1:4]) == links[1:4]


@settings(max_examples=200, deadline=None)
@given(links_st, links_st)
def test_joined_tables_hold_both_in_order_over_one_node_table(first, second):
    nodes = NodeTable()
    joined = LinkTable.of(nodes, first) + LinkTable.of(nodes, second)
    assert list(joined) == first + second


@settings(max_examples=200, deadline=None)
@given(links_st)
def test_the_table_graph_has_build_graph_s_edges_in_its_order(links):
    nodes = NodeTable()
    LinkTable.of(nodes, [("zz", "supports", "yy")])  # nodes outside this table are in no graph
    table = LinkTable.of(nodes, links)
    ends = dict.fromkeys(end for source, _, target in links for end in (source, target))
    expected, compact = build_graph(ends, links), TableGraph(table)
    for memory_id in [*IDS, "zz", "nowhere"]:
        assert (memory_id in compact) == (memory_id in expected)
        assert compact.out.get(memory_id, []) == expected.out.get(memory_id, [])
        assert compact.into.get(memory_id, []) == expected.into.get(memory_id, [])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 6), st.sampled_from(KINDS), st.sampled_from(IDS)), max_size=30),
       st.lists(st.integers(1, 8), max_size=4, unique=True),
       st.lists(st.tuples(st.integers(1, 8), st.sampled_from(KINDS), st.sampled_from(IDS)), max_size=10))  # fmt: skip
def test_replacing_groups_keeps_key_order_and_each_group_s_own_order(rows, keys, fresh):
    """`replacing` is what a sync does when an earlier fact's links changed: the same as laying out
    every group again from scratch."""
    rows.sort(key=lambda row: row[0])  # a stable sort: a group's links stay in their order
    fresh = sorted([row for row in fresh if row[0] in keys], key=lambda row: row[0])
    nodes = NodeTable()
    table = LinkTable.of(nodes, [(f"k{k}", kind, dst) for k, kind, dst in rows], [k for k, _, _ in rows])
    new = LinkTable.of(nodes, [(f"k{k}", kind, dst) for k, kind, dst in fresh], [k for k, _, _ in fresh])
    expected = sorted([row for row in rows if row[0] not in keys] + fresh, key=lambda row: row[0])
    replaced = table.replacing(keys, new)
    assert list(replaced) == [(f"k{k}", kind, dst) for k, kind, dst in expected]
    assert replaced.key.tolist() == [k for k, _, _ in expected]
    for key in range(10):
        assert replaced.group(key) == [(f"k{k}", kind, dst) for k, kind, dst in expected if k == key]


def test_targets_by_source_names_each_target_s_linking_keys_once():
    nodes = NodeTable()
    table = LinkTable.of(nodes, [("a", "supports", "x"), ("a", "refines", "x"), ("b", "supports", "x"),
                                 ("b", "supports", "y")], [3, 3, 9, 9])  # fmt: skip
    assert targets_by_source(table) == {"x": (3, 9), "y": 9}


def test_a_node_table_survives_a_pickle_with_its_lookups():
    import pickle

    nodes = NodeTable()
    table = LinkTable.of(nodes, [("a", "supports", "b")])
    back = pickle.loads(pickle.dumps(table))
    assert list(back) == [("a", "supports", "b")] and back.nodes.number == {"a": 0, "b": 1}
    assert back.nodes.kind("supports") == 0
