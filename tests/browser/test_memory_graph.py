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


def test_the_graph_is_usable_from_the_keyboard(live_server, page):
    load_demo()
    _login(page, live_server)
    page.goto(live_server.url + "/w/demo/graph/")
    page.wait_for_function("() => window.tidelineGraph && window.tidelineGraph.drawnAt")
    # Find a fact and press Enter: its panel opens and takes the focus.
    page.focus("#graph-search")
    word = page.evaluate("""() => {
        const { graph } = window.tidelineGraph;
        return graph.getNodeAttribute(graph.nodes()[0], 'label').split(' ').find((w) => w.length > 5);
    }""")
    page.keyboard.type(word)
    page.keyboard.press("Enter")
    page.wait_for_selector("#graph-panel-body")
    assert page.evaluate("document.activeElement.id") == "graph-panel"
    assert "Open in the inspector" in page.locator("#graph-panel").inner_text()
    # A community in the list is a button: it filters the drawing to that community.
    first = page.locator("button.cluster-pick").first
    first.focus()
    page.keyboard.press("Enter")
    assert page.eval_on_selector("#graph-cluster", "(s) => s.value") == first.get_attribute("data-cluster")
    screenshot(page, "memory-graph-keyboard")


@pytest.mark.parametrize("width", [1366, 390])
def test_labels_stay_inside_the_canvas_at_any_zoom(live_server, page, width):
    """Issue 18: a label near the canvas's edge is drawn on the side that fits, never clipped."""
    load_demo()
    _login(page, live_server)
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(live_server.url + "/w/demo/graph/")
    page.wait_for_function("() => window.tidelineGraph && window.tidelineGraph.drawnAt")
    for ratio in (0.15, 0.35, 0.6):
        # Frame the rightmost node at the canvas's right edge, zoomed in far enough for labels.
        boxes = page.evaluate("""(ratio) => new Promise((done) => {
            const { graph, renderer, labelBoxes } = window.tidelineGraph;
            const camera = renderer.getCamera();
            camera.setState({ x: 0.5, y: 0.5, ratio: 1, angle: 0 });
            renderer.refresh();
            let rightmost = null, best = -Infinity;
            graph.forEachNode((node) => {
                const { x } = renderer.getNodeDisplayData(node);
                if (x > best) { best = x; rightmost = node; }
            });
            const { x, y } = renderer.getNodeDisplayData(rightmost);
            camera.setState({ x: x - 0.35 * ratio, y, ratio, angle: 0 });
            renderer.refresh();
            requestAnimationFrame(() => done({ boxes: labelBoxes.slice(), ...renderer.getDimensions() }));
        })""", ratio)
        assert boxes["boxes"], f"no label drawn at zoom {ratio}"
        for box in boxes["boxes"]:
            assert box["left"] >= 0 and box["right"] <= boxes["width"] + 0.5, (ratio, box)
            assert box["top"] >= 0 and box["bottom"] <= boxes["height"] + 0.5, (ratio, box)
    # Hovering the node nearest the right edge: its highlighted label is inside the canvas too.
    page.locator("#graph").scroll_into_view_if_needed()
    target = page.evaluate("""() => {
        const { graph, renderer } = window.tidelineGraph;
        const { width, height } = renderer.getDimensions();
        let best = null;
        graph.forEachNode((node, attrs) => {
            const at = renderer.graphToViewport(attrs);
            if (at.x > 0 && at.x < width - 5 && at.y > 5 && at.y < height - 5 && (!best || at.x > best.x)) best = { node, ...at };
        });
        const box = document.getElementById('graph').getBoundingClientRect();
        window.tidelineGraph.labelBoxes.length = 0;
        return { node: best.node, label: graph.getNodeAttribute(best.node, 'label'), x: box.left + best.x, y: box.top + best.y, width };
    }""")
    page.mouse.move(target["x"], target["y"])
    page.wait_for_function("() => window.tidelineGraph.labelBoxes.length > 0")
    hovered = page.evaluate("() => window.tidelineGraph.labelBoxes.slice()")
    assert all(b["left"] >= 0 and b["right"] <= target["width"] + 0.5 for b in hovered), hovered
    screenshot(page, f"memory-graph-labels-at-the-edge-{width}")
