// The Memory Graph: draws the server's nodes (already placed by community) with sigma, filters by
// segment, link kind and community, searches labels, and opens a fact in the side panel on click.
//
// The server sends columns, not one object per node and edge (see selectors.graph_payload): node
// fields as parallel lists, edges as flat (source, target, kind) index triples. It stays responsive
// at 5,000 nodes and 20,000 edges (docs: `python -m bench.memory.graph_page`): big graphs use sigma's
// single-draw point and line programs, reducers change sigma's copy of an item instead of copying it
// again, edges are hidden while the camera moves, and the side panel shows the node's label at once
// while its fact loads.
(function () {
  performance.mark("graph:start");
  const data = JSON.parse(document.getElementById("graph-data").textContent);
  performance.mark("graph:parsed");
  const panelUrl = document.currentScript.dataset.panelUrl;
  const { nodes, edges, clusters, segments, kinds } = data;
  const graph = new graphology.Graph({ multi: true, type: "directed" });
  const ids = nodes.id;
  const lowered = new Map();
  for (let i = 0; i < ids.length; i++) {
    const cluster = clusters[nodes.cluster[i]];
    graph.addNode(ids[i], {
      label: nodes.label[i], x: nodes.x[i], y: nodes.y[i], size: nodes.size[i], color: cluster.color,
      cluster: cluster.id, segment: segments[nodes.segment[i]],
    });
    lowered.set(ids[i], nodes.label[i].toLowerCase());
  }
  const strengths = data.kind_strength;
  const edgeColor = strengths.map((s) => data.strength_colors[s] || "#999");
  for (let i = 0; i < edges.length; i += 3) {
    const k = edges[i + 2];
    graph.addDirectedEdge(ids[edges[i]], ids[edges[i + 1]], {
      kind: kinds[k], strength: strengths[k], color: edgeColor[k], size: strengths[k] === "strong" ? 2 : 1,
    });
  }

  performance.mark("graph:built");
  const state = { segment: "", kind: "", cluster: "", query: "" };
  const shown = (attrs) => (!state.segment || attrs.segment === state.segment) && (!state.cluster || attrs.cluster === state.cluster);
  // Big graphs are drawn with sigma's point and line programs: one draw call for all nodes and one
  // for all edges, where the default circle and thick-edge programs draw one instance per item. On a
  // GPU both are quick; with software WebGL (no GPU, a VM, a remote desktop: SwiftShader, llvmpipe)
  // instancing made every frame of 5,000 nodes and 20,000 edges take ~0.8 s, points and lines ~0.1 s.
  // Edges are then one pixel wide; their colour still tells strong, medium and weak apart.
  const big = graph.order > 1500 || graph.size > 6000;
  // Zooming in grows nodes less than sigma's default (square root of the zoom), so a dense community
  // opens up instead of turning into one blot.
  const programs = big ? {
    defaultNodeType: "point", nodeProgramClasses: { point: Sigma.rendering.NodePointProgram },
    defaultEdgeType: "thin", edgeProgramClasses: { thin: Sigma.rendering.EdgeLineProgram },
    zoomToSizeRatioFunction: (ratio) => Math.pow(ratio, 0.25),
    // Sigma sizes its label grid at the full view and lets a cell show density / zoom² labels: with
    // whole communities in one cell, a low density keeps a zoomed-in community readable.
    labelGridCellSize: 200, labelDensity: 0.1,
  } : {};
  // A label goes to the right of its node, as sigma draws it, unless the left has more room; it is
  // cut with an ellipsis to the room it has. Sigma's own labels (and its hover box) ran past the
  // canvas's edge and were clipped whenever a zoom or a filter put a node near it. Every label drawn
  // in the last frame is kept in `api.labelBoxes` (tests check none leaves the canvas).
  const labelBoxes = [];
  const placeLabel = (context, data, settings) => {
    // The canvas's size on the page (sigma draws the first labels while it is still being built).
    const width = context.canvas.clientWidth, height = context.canvas.clientHeight;
    const size = settings.labelSize, gap = 3, margin = 2;
    context.font = `${settings.labelWeight} ${size}px ${settings.labelFont}`;
    const right = width - margin - (data.x + data.size + gap);
    const left = data.x - data.size - gap - margin;
    let text = data.label;
    let textWidth = context.measureText(text).width;
    const onRight = textWidth <= right || right >= left;
    const room = Math.min(onRight ? right : left, width - 2 * margin); // a node past the edge has "more" room
    while (textWidth > room && text.length > 2) {
      text = text.slice(0, Math.max(1, Math.floor((text.length - 1) * room / textWidth) - 1)) + "…";
      textWidth = context.measureText(text).width;
    }
    if (textWidth > room) return null; // no room on either side at all: no label
    const beside = onRight ? data.x + data.size + gap : data.x - data.size - gap - textWidth;
    const x = Math.min(Math.max(margin, beside), width - margin - textWidth); // its node is partly off the canvas
    const y = Math.min(Math.max(size, data.y + size / 3), height - margin);
    return { text, x, y, textWidth, size };
  };
  const writeLabel = (context, placed, settings) => {
    context.fillStyle = (settings.labelColor && settings.labelColor.color) || "#000";
    context.fillText(placed.text, placed.x, placed.y);
    labelBoxes.push({ left: placed.x, right: placed.x + placed.textWidth, top: placed.y - placed.size,
                      bottom: placed.y, text: placed.text });
  };
  const drawLabel = (context, data, settings) => {
    const placed = data.label ? placeLabel(context, data, settings) : null;
    if (placed) writeLabel(context, placed, settings);
  };
  const drawHover = (context, data, settings) => {
    const placed = data.label ? placeLabel(context, data, settings) : null;
    context.save();
    context.fillStyle = "#fff";
    context.shadowBlur = 8;
    context.shadowColor = "rgba(16, 33, 47, .35)";
    context.beginPath();
    context.arc(data.x, data.y, data.size + 3, 0, Math.PI * 2);
    if (placed) context.rect(placed.x - 4, placed.y - placed.size - 1, placed.textWidth + 8, placed.size + 6);
    context.fill();
    context.restore();
    if (placed) writeLabel(context, placed, settings);
  };
  // Sigma hands the reducers a copy of the attributes: changing and returning it is safe and cheap.
  const renderer = new Sigma(graph, document.getElementById("graph"), {
    ...programs,
    defaultDrawNodeLabel: drawLabel,
    defaultDrawNodeHover: drawHover,
    renderEdgeLabels: false,
    labelRenderedSizeThreshold: 9,
    hideEdgesOnMove: big,
    nodeReducer: (node, attrs) => {
      if (!shown(attrs)) {
        attrs.hidden = true;
      } else if (state.query) {
        if (lowered.get(node).includes(state.query)) attrs.highlighted = true;
        else attrs.color = "#ddd";
      }
      return attrs;
    },
    edgeReducer: (edge, attrs) => {
      if (state.kind && attrs.kind !== state.kind) attrs.hidden = true;
      return attrs;
    },
  });
  renderer.on("beforeRender", () => { labelBoxes.length = 0; });
  performance.mark("graph:rendered");
  const api = { graph, renderer, labelBoxes, renderedAt: performance.now() };
  window.tidelineGraph = api; // for tests, benchmarks and the curious
  // The frame after the one holding the first render: the graph is on screen.
  requestAnimationFrame(() => requestAnimationFrame(() => { api.drawnAt = performance.now(); }));

  // A filter frames what it leaves (a community fills the view) and redraws at once; typing in the
  // search box redraws at most once a frame.
  const camera = renderer.getCamera();
  camera.setState({ x: 0.5, y: 0.5, ratio: 1.25, angle: 0 }); // room for the labels at the edges
  const frame = () => {
    let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
    if (state.segment || state.cluster) {
      graph.forEachNode((node, attrs) => {
        if (!shown(attrs)) return;
        const { x, y } = renderer.getNodeDisplayData(node);
        if (x < minX) minX = x; if (x > maxX) maxX = x; if (y < minY) minY = y; if (y > maxY) maxY = y;
      });
    }
    if (minX === Infinity) camera.setState({ x: 0.5, y: 0.5, ratio: 1.25, angle: 0 }); // room for the labels at the edges
    else camera.setState({ x: (minX + maxX) / 2, y: (minY + maxY) / 2, ratio: Math.min(1, Math.max(0.04, 1.3 * Math.max(maxX - minX, maxY - minY))), angle: 0 });
  };
  let pending = 0;
  const refresh = () => renderer.refresh();
  const refreshFramed = () => { frame(); renderer.refresh(); }; // one render: refresh cancels the camera's
  const refreshSoon = () => {
    if (!pending) pending = requestAnimationFrame(() => { pending = 0; renderer.refresh(); });
  };
  const on = (id, event, key, value, redraw) => document.getElementById(id).addEventListener(event, (e) => { state[key] = value(e.target.value); redraw(); });
  on("graph-segment", "change", "segment", (v) => v, refreshFramed);
  on("graph-kind", "change", "kind", (v) => v, refresh);
  on("graph-cluster", "change", "cluster", (v) => v, refreshFramed);
  on("graph-search", "input", "query", (v) => v.trim().toLowerCase(), refreshSoon);

  const panel = document.getElementById("graph-panel");
  let clicks = 0;
  // Keyboard: Enter in "Find a fact" opens the first fact it matches (the panel then takes the
  // focus); a community in the list is a button that filters to it.
  document.getElementById("graph-search").addEventListener("keydown", (event) => {
    if (event.key !== "Enter" || !state.query) return;
    event.preventDefault();
    const match = graph.findNode((node, attrs) => shown(attrs) && lowered.get(node).includes(state.query));
    if (match) open(match, true);
  });
  document.querySelectorAll("[data-cluster]").forEach((button) => button.addEventListener("click", () => {
    const select = document.getElementById("graph-cluster");
    select.value = button.dataset.cluster;
    select.dispatchEvent(new Event("change"));
  }));
  renderer.on("clickNode", ({ node }) => open(node, false));
  function open(node, focus) {
    const ticket = ++clicks;
    const heading = document.createElement("p");
    heading.className = "muted";
    heading.textContent = graph.getNodeAttribute(node, "label") + " — loading…";
    panel.replaceChildren(heading);
    fetch(panelUrl.replace("MEMORY_ID", encodeURIComponent(node)), { headers: { "HX-Request": "true" } })
      .then((r) => (r.ok ? r.text() : Promise.reject(new Error(r.statusText))))
      .then((html) => {
        if (ticket !== clicks) return; // a later click won
        panel.innerHTML = html;
        api.panelShownAt = performance.now();
        if (focus) panel.focus();
      })
      .catch(() => { if (ticket === clicks) heading.textContent = "Could not load this fact; try again."; });
  }
})();
