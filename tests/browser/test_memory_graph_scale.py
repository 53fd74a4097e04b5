"""In Chromium: the Memory Graph of 5,000 linked facts (~20,000 edges) draws, a click on a node opens its
fact in the side panel, and a community filter hides every other community.

Timings are written to test-artifacts/ as JSON, never asserted: performance is for the benchmark
(`python -m bench.memory.graph_page`, docs/BENCHMARKS.md), not for a test on a shared machine.
"""

from __future__ import annotations

import json
import os

import pytest

from bench.memory.graph_page import load_graph_workspace, login, measure
from tests.browser.conftest import ARTIFACTS, screenshot

pytestmark = pytest.mark.django_db(transaction=True)

FACTS = 5000
TIMINGS = ARTIFACTS.parent / "memory-graph-5000-timings.json"


def test_a_5000_node_graph_draws_opens_a_fact_on_click_and_filters(live_server, page):
    workspace, _ = load_graph_workspace("graph-5k", FACTS)
    login(page, live_server.url)
    timings = measure(page, live_server.url, workspace.name)  # navigates, clicks a node, filters, resets
    assert FACTS * 0.9 <= timings["nodes"] <= FACTS and timings["edges"] > 15_000  # facts without links are not drawn
    panel = page.locator("#graph-panel").inner_text()
    assert "Open in the inspector" in panel and "Note " in panel

    # A community filter leaves only that community's nodes drawn.
    cluster = page.eval_on_selector("#graph-cluster", "(s) => s.options[1].value")
    page.select_option("#graph-cluster", cluster)
    shown = page.evaluate("""(cluster) => {
        const { graph, renderer } = window.tidelineGraph;
        const visible = graph.filterNodes((n) => !renderer.getNodeDisplayData(n).hidden);
        return { visible: visible.length, others: visible.filter((n) => graph.getNodeAttribute(n, 'cluster') !== cluster).length };
    }""", cluster)
    assert 0 < shown["visible"] < FACTS and shown["others"] == 0
    screenshot(page, "memory-graph-5000")

    # With everything drawn again, the best-connected facts are labelled, none over another or past
    # the canvas's edge; every community is listed with its number.
    page.select_option("#graph-cluster", "")
    drawn = page.evaluate("""() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(() => {
        const { renderer, labelBoxes } = window.tidelineGraph;
        done({ boxes: labelBoxes.filter((b) => !b.hover), ...renderer.getDimensions() });
    })))""")
    boxes = drawn["boxes"]
    assert len(boxes) >= 15
    assert all(b["left"] >= 0 and b["right"] <= drawn["width"] and b["top"] >= 0 and b["bottom"] <= drawn["height"] for b in boxes)
    assert not [(a, b) for i, a in enumerate(boxes) for b in boxes[i + 1 :]
                if a["left"] < b["right"] and b["left"] < a["right"] and a["top"] < b["bottom"] and b["top"] < a["bottom"]]  # fmt: skip
    numbers = page.eval_on_selector_all("ol.clusters .swatch text", "(ts) => ts.map((t) => t.textContent)")
    assert numbers == [str(i) for i in range(1, len(numbers) + 1)] and len(numbers) == page.eval_on_selector_all("#graph-cluster option", "(os) => os.length - 1")

    TIMINGS.parent.mkdir(parents=True, exist_ok=True)
    TIMINGS.write_text(json.dumps({"test": "memory graph, 5,000 nodes", **timings,
                                   "load_average": [round(x, 2) for x in os.getloadavg()]}, indent=2) + "\n")  # fmt: skip
