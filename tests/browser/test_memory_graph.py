"""In Chromium: the Memory Graph draws the demo's nodes, and clicking a node opens its fact."""

from __future__ import annotations

import pytest

from memory.services.demo import load_demo
from tests.browser.conftest import screenshot
from tests.browser.test_console import _login

pytestmark = pytest.mark.django_db(transaction=True)

# The first node with a link: its id, community and where it is drawn in the window (to click it).
LINKED_NODE = """() => {
    const { graph, renderer } = window.tidelineGraph;
    const id = graph.nodes().find((n) => graph.degree(n) > 0);
    const pos = renderer.graphToViewport(graph.getNodeAttributes(id));
    const box = document.getElementById('graph').getBoundingClientRect();
    return { id, cluster: graph.getNodeAttribute(id, 'cluster'), x: box.left + pos.x, y: box.top + pos.y };
}"""


def test_the_graph_draws_nodes_and_a_click_opens_the_side_panel(live_server, page):
    load_demo()
    _login(page, live_server)
    page.goto(live_server.url + "/w/demo/graph/")
    page.wait_for_function("() => window.tidelineGraph && window.tidelineGraph.graph.order > 20")
    assert page.locator("#graph canvas").count() >= 1
    node = page.evaluate(LINKED_NODE)
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


# What the last frame drew: its labels (the hover box aside), the canvas's size, and each labelled
# node's community.
_LABELS = """() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(() => {
    const { graph, renderer, labelBoxes } = window.tidelineGraph;
    const boxes = labelBoxes.filter((b) => !b.hover).map((b) => ({ ...b, cluster: graph.getNodeAttribute(b.node, 'cluster') }));
    done({ boxes, ...renderer.getDimensions() });
})))"""


def _open_graph(page, live_server, width, height=900):
    errors = []
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    load_demo()
    _login(page, live_server)
    page.set_viewport_size({"width": width, "height": height})
    page.goto(live_server.url + "/w/demo/graph/")
    page.wait_for_function("() => window.tidelineGraph && window.tidelineGraph.drawnAt")
    return errors


def _assert_apart_and_inside(drawn):
    boxes = drawn["boxes"]
    for box in boxes:
        assert box["left"] >= 0 and box["right"] <= drawn["width"], box
        assert box["top"] >= 0 and box["bottom"] <= drawn["height"], box
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            apart = a["right"] <= b["left"] or b["right"] <= a["left"] or a["bottom"] <= b["top"] or b["bottom"] <= a["top"]
            assert apart, (a, b)


@pytest.mark.parametrize(("width", "at_least"), [(1366, 20), (390, 10)])
def test_the_best_connected_facts_are_labelled_without_overlaps_and_more_when_zoomed_in(live_server, page, width, at_least):
    errors = _open_graph(page, live_server, width)
    drawn = page.evaluate(_LABELS)
    # Labels at the default zoom, with nothing searched or filtered: apart, inside the canvas, and
    # at least one in most communities (each community's best-connected fact goes first).
    assert len(drawn["boxes"]) >= at_least, drawn["boxes"]
    _assert_apart_and_inside(drawn)
    communities = page.evaluate("() => window.tidelineGraph.graph.reduceNodes((s, n, a) => s.add(a.cluster), new Set()).size")
    assert len({b["cluster"] for b in drawn["boxes"]}) >= min(communities, at_least) * 0.8
    # Zoomed in three times on the largest community: more of its facts are labelled, still apart.
    largest = page.eval_on_selector("button.cluster-pick", "(b) => b.dataset.cluster")
    before = sum(b["cluster"] == largest for b in drawn["boxes"])
    page.evaluate("""(cluster) => {
        const { graph, renderer } = window.tidelineGraph;
        const camera = renderer.getCamera();
        const members = graph.filterNodes((n, a) => a.cluster === cluster).map((n) => renderer.getNodeDisplayData(n));
        const x = members.reduce((s, d) => s + d.x, 0) / members.length, y = members.reduce((s, d) => s + d.y, 0) / members.length;
        camera.setState({ x, y, ratio: camera.getState().ratio / 3, angle: 0 });
    }""", largest)
    zoomed = page.evaluate(_LABELS)
    _assert_apart_and_inside(zoomed)
    members = page.evaluate("(c) => window.tidelineGraph.graph.filterNodes((n, a) => a.cluster === c).length", largest)
    after = sum(b["cluster"] == largest for b in zoomed["boxes"])
    screenshot(page, f"memory-graph-zoomed-{width}")
    assert after > before and after >= members * 0.7, (before, after, members)
    assert not errors, errors


def test_search_labels_its_matches_apart_and_inside_the_canvas(live_server, page):
    errors = _open_graph(page, live_server, 1366)
    page.fill("#graph-search", "the")
    page.wait_for_timeout(100)
    drawn = page.evaluate(_LABELS)
    matching = page.evaluate("""() => {
        const { graph } = window.tidelineGraph;
        return graph.filterNodes((n, a) => a.label.toLowerCase().includes('the'));
    }""")
    assert len(drawn["boxes"]) >= 15 and {b["node"] for b in drawn["boxes"]} <= set(matching)
    _assert_apart_and_inside(drawn)
    screenshot(page, "memory-graph-search")
    assert not errors, errors


def test_every_community_is_listed_with_its_own_colour_and_number(live_server, page):
    errors = _open_graph(page, live_server, 1366)
    data = page.evaluate("() => JSON.parse(document.getElementById('graph-data').textContent).clusters")
    listed = page.eval_on_selector_all("ol.clusters li", """(items) => items.map((li) => ({
        color: li.querySelector('.swatch circle').getAttribute('fill'),
        number: li.querySelector('.swatch text').textContent,
        cluster: li.querySelector('button').dataset.cluster,
        name: li.querySelector('button').innerText,
    }))""")
    communities = [c for c in data if c["size"] > 1]
    assert len(communities) >= 16 and {c["cluster"] for c in listed} == {c["id"] for c in communities}
    assert [c["number"] for c in listed] == [str(i) for i in range(1, len(listed) + 1)]
    assert len({c["color"] for c in listed}) == len(listed)  # 18 communities, 20 colours: none repeats
    drawn_colour = {c["id"]: c["color"] for c in data}
    assert all(drawn_colour[c["cluster"]] == c["color"] for c in listed)  # the nodes wear the listed colour
    # The list is open and whole on a desktop: no scroll box, every community in view of the page.
    assert page.eval_on_selector("#graph-legend", "(d) => d.open")
    assert page.eval_on_selector("ol.clusters", "(ol) => ol.scrollHeight <= ol.clientHeight + 1")
    summary = page.inner_text("#graph-legend summary")
    assert str(len(listed)) in summary
    # The community filter names each by its number too, and the panel says which community a fact is in.
    options = page.eval_on_selector_all("#graph-cluster option", "(os) => os.slice(1).map((o) => o.textContent)")
    assert all(option.startswith(f"{i} · ") for i, option in enumerate(options, start=1))
    node = page.evaluate(LINKED_NODE)
    page.mouse.click(node["x"], node["y"])
    page.wait_for_selector("#graph-panel-body")
    number = next(c["number"] for c in listed if c["cluster"] == node["cluster"])
    assert f"Community {number}:" in page.inner_text("#graph-panel .graph-community")
    assert not errors, errors


def test_on_a_phone_the_graph_takes_the_width_and_the_controls_fold(live_server, page):
    errors = _open_graph(page, live_server, 390, 844)
    assert page.evaluate("document.documentElement.scrollWidth - innerWidth") <= 1
    canvas = page.eval_on_selector("#graph", "(g) => g.getBoundingClientRect().toJSON()")
    assert canvas["width"] >= 390 - 2 * 16 and canvas["height"] <= 844 * 0.75
    # The filters and the list of communities are folded behind their summaries, which open them.
    assert page.eval_on_selector_all("details.graph-fold", "(ds) => ds.map((d) => d.open)") == [False, False]
    assert page.is_visible("#graph-search") and not page.is_visible("ol.clusters")
    # The camera fits the drawing: every node inside the canvas, the drawing nearly as wide or as
    # tall as the canvas.
    spread = page.evaluate("""() => {
        const { graph, renderer } = window.tidelineGraph;
        const { width, height } = renderer.getDimensions();
        let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
        graph.forEachNode((n, a) => {
            const { x, y } = renderer.graphToViewport(a);
            minX = Math.min(minX, x); maxX = Math.max(maxX, x); minY = Math.min(minY, y); maxY = Math.max(maxY, y);
        });
        return { minX, minY, maxX, maxY, width, height };
    }""")
    assert spread["minX"] >= 0 and spread["maxX"] <= spread["width"] and spread["minY"] >= 0 and spread["maxY"] <= spread["height"]
    assert max((spread["maxX"] - spread["minX"]) / spread["width"], (spread["maxY"] - spread["minY"]) / spread["height"]) >= 0.8
    screenshot(page, "memory-graph-phone")
    # A tap on a node brings its fact, under the drawing, into view.
    node = page.evaluate(LINKED_NODE)
    assert 0 < node["y"] < 844, node  # the drawing is in view
    page.mouse.click(node["x"], node["y"])
    page.wait_for_selector("#graph-panel-body")
    page.wait_for_function("() => document.getElementById('graph-panel').getBoundingClientRect().top < innerHeight - 40")
    page.click("#graph-legend summary")
    assert page.is_visible("ol.clusters") and page.evaluate("document.documentElement.scrollWidth - innerWidth") <= 1
    screenshot(page, "memory-graph-phone-legend")
    # Turned sideways, the drawing is framed again to the new canvas.
    page.set_viewport_size({"width": 844, "height": 390})
    page.wait_for_function("""() => {
        const { graph, renderer } = window.tidelineGraph;
        const { width, height } = renderer.getDimensions();
        return width > 700 && graph.everyNode((n, a) => {
            const { x, y } = renderer.graphToViewport(a);
            return x >= 0 && x <= width && y >= 0 && y <= height;
        });
    }""")
    assert not errors, errors
