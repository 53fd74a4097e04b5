"""GraphML is well-formed XML whatever a fact holds: characters XML 1.0 forbids are replaced."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import networkx as nx
from hypothesis import given, settings
from hypothesis import strategies as st

from memory.engine.maintenance.graph_export import export_memory_graph, to_graphml
from tests.memory.engine.maintenance.maint_factory import NOW, fact

FORBIDDEN = "".join(chr(c) for c in range(0x20) if chr(c) not in "\t\n\r") + "\ufffe\uffff\ud800\udfff"


def test_a_fact_full_of_control_characters_exports_to_graphml_that_parses():
    facts = [
        fact(f"mem_{FORBIDDEN}_1", f"Bell\x07 and escape\x1b[31m red {FORBIDDEN} end", "knowledge",
             source_type="tool_output\x00", subject_key="key\x01"),  # fmt: skip
        fact("mem_plain_2", "The plain neighbour\ufffe of the bell\x07", "knowledge"),
    ]
    export = export_memory_graph(facts, [(facts[0].memory_id, "relates", "mem_plain_2")], NOW)
    text = to_graphml(export)
    root = ET.fromstring(text)
    assert root.tag.endswith("graphml")
    graph = nx.parse_graphml(text)
    assert graph.number_of_nodes() == 2 and graph.number_of_edges() == 1
    labels = " ".join(data["label"] for _, data in graph.nodes(data=True))
    assert "Bell\ufffd and escape\ufffd[31m red" in labels
    assert not any(ch in labels for ch in FORBIDDEN)


def test_graphml_written_to_a_file_reads_back_with_networkx(tmp_path):
    facts = [fact("mem_a", f"Line{FORBIDDEN}feed", "project"), fact("mem_b", "Vertical\x0btab", "project")]
    path = tmp_path / "graph.graphml"
    path.write_text(to_graphml(export_memory_graph(facts, [("mem_a", "supports", "mem_b")], NOW)))
    graph = nx.read_graphml(path)
    assert set(graph.nodes) == {"mem_a", "mem_b"}


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(min_size=1, max_size=40), min_size=1, max_size=6))
def test_any_text_in_any_field_gives_well_formed_graphml(contents):
    facts = [fact(f"{text[:8]}{k}", text, "knowledge", subject_key=text[:5]) for k, text in enumerate(contents)]
    ids = [f.memory_id for f in facts]
    links = [(a, "relates", b) for a, b in zip(ids, ids[1:], strict=False)]
    ET.fromstring(to_graphml(export_memory_graph(facts, links, NOW)))
