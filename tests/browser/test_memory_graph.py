"""In Chromium: the Memory Graph draws the demo's nodes, and clicking a node opens its fact."""

from __future__ import annotations

import pytest

from memory.services.demo import load_demo
from tests.browser.conftest import screenshot
from tests.browser.test_console import _login

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_graph_draws_nodes_and_a_click_opens_the_side_panel(live_server, page):
    load_demo()
    _login(page, live_server)
    page.goto(live_server.url + "/w/demo/graph/")
    page.wait_for_function("() => window.tidelineGraph && window.tidelineGraph.graph.order > 20")
    assert page.locator("#graph canvas").count() >= 1
    node = page.evaluate("""() => {
        const { graph, renderer } = window.tidelineGraph;
        const id = graph.nodes().find((n) => graph.degree(n) > 0);
        const pos = renderer.graphToViewport(graph.getNodeAttributes(id));
        const box = document.getElementById('graph').getBoundingClientRect();
        return { id, x: box.left + pos.x, y: box.top + pos.y };
    }""")
    page.mouse.click(node["x"], node["y"])
    page.wait_for_selector("#graph-panel-body")
    assert "Open in the inspector" in page.locator("#graph-panel").inner_text()
    page.select_option("#graph-segment", "identity")
    screenshot(page, "memory-graph")
