// The Memory Graph: draws the server's nodes (already placed by community) with sigma, labels the
// most connected facts, filters by segment, link kind and community, searches labels, and opens a
// fact in the side panel on click.
//
// The server sends columns, not one object per node and edge (see selectors.graph_payload): node
// fields as parallel lists, edges as flat (source, target, kind) index triples. It stays responsive
// at 5,000 nodes and 20,000 edges (docs: `python -m bench.memory.graph_page`): big graphs use sigma's
// single-draw point and line programs, reducers change sigma's copy of an item instead of copying it
// again, edges are hidden while the camera moves, and the side panel shows the node's label at once
// while its fact loads.
(function () {
  performance.mark("graph:start");
  // On a phone the filters and the list of communities fold away (they are <details open>, so they
  // stay open where this script does not run).
  if (window.matchMedia("(max-width: 700px)").matches) {
    document.querySelectorAll("details.graph-fold").forEach((details) => { details.open = false; });
  }
  const data = JSON.parse(document.getElementById("graph-data").textContent);
  performance.mark("graph:parsed");
  const panelUrl = document.currentScript.dataset.panelUrl;
  const { nodes, edges, clusters, segments, kinds } = data;
  clusters.forEach((cluster, i) => { cluster.number = cluster.number || i + 1; cluster.ink = cluster.ink || "#fff"; });
  const graph = new graphology.Graph({ multi: true, type: "directed" });
  const ids = nodes.id;
  const count = ids.length;
  const lowered = new Map();
  const indexOf = new Map();
  for (let i = 0; i < count; i++) {
    const cluster = clusters[nodes.cluster[i]];
    graph.addNode(ids[i], {
      label: nodes.label[i], x: nodes.x[i], y: nodes.y[i], size: nodes.size[i], color: cluster.color,
      cluster: cluster.id, segment: segments[nodes.segment[i]],
    });
    lowered.set(ids[i], nodes.label[i].toLowerCase());
    indexOf.set(ids[i], i);
  }
  const strengths = data.kind_strength;
  const edgeColor = strengths.map((s) => data.strength_colors[s] || "#999");
  const degree = new Uint32Array(count);
  for (let i = 0; i < edges.length; i += 3) {
    const k = edges[i + 2];
    degree[edges[i]]++; degree[edges[i + 1]]++;
    graph.addDirectedEdge(ids[edges[i]], ids[edges[i + 1]], {
      kind: kinds[k], strength: strengths[k], color: edgeColor[k], size: strengths[k] === "strong" ? 2 : 1,
    });
  }
  // Which labels are drawn first: each community's best-connected fact (largest community first), so
  // every island is named, then every fact by its number of links, then by size.
  const byWeight = Array.from({ length: count }, (_, i) => i)
    .sort((a, b) => degree[b] - degree[a] || nodes.size[b] - nodes.size[a] || a - b);
  const hubOf = new Map();
  for (const i of byWeight) if (!hubOf.has(nodes.cluster[i])) hubOf.set(nodes.cluster[i], i);
  const hubs = [...hubOf.entries()].sort((a, b) => a[0] - b[0]).map((entry) => entry[1]);
  const isHub = new Set(hubs);
  const ranked = hubs.concat(byWeight.filter((i) => !isHub.has(i))).map((i) => ids[i]);

  performance.mark("graph:built");
  const state = { segment: "", kind: "", cluster: "", query: "" };
  const shown = (attrs) => (!state.segment || attrs.segment === state.segment) && (!state.cluster || attrs.cluster === state.cluster);
  const matches = (node) => lowered.get(node).includes(state.query);
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
  } : {};

  // Labels. Sigma's own labels are off: it chose them by a grid of cells, drew them over one another
  // and past the canvas's edge, and drew none at all until a node was large enough. Here, after every
  // frame, labels are laid out greedily in `ranked` order (only the matches while searching): each
  // goes beside its node (right, left, above, below or at a slant) wherever it stays inside the
  // canvas and overlaps no label already drawn nor a labelled node. A community's hub (or a match)
  // takes the place that covers the fewest other nodes; any other label only a place that covers
  // none. A label with no such place is left out: zooming in spreads the nodes, so more find room.
  // Every label drawn in the last frame is kept in `api.labelBoxes` (tests check that none overlaps
  // another or leaves the canvas).
  const FONT = 'system-ui, -apple-system, "Segoe UI", sans-serif';
  const LABEL_SIZE = 12, GAP = 3, MARGIN = 3, PAD = 2, CELL = 40, CANDIDATES = 400;
  const labelBoxes = [];
  const placedBy = new Map(); // node → its label's box in the last frame
  const fitted = new Map(); // "room node" → { text, width }: the label cut to the room allowed
  const fitText = (context, label, room) => {
    let text = label;
    let width = context.measureText(text).width;
    if (width <= room) return { text, width };
    // Cut at a word where one is near enough, else mid-word, and end with an ellipsis.
    let end = Math.max(1, Math.floor(label.length * room / width));
    for (; end > 1; end--) {
      const space = label.lastIndexOf(" ", end);
      const cut = space > end * 0.6 ? label.slice(0, space) : label.slice(0, end);
      text = cut.replace(/[\s.,;:·-]+$/, "") + "…";
      width = context.measureText(text).width;
      if (width <= room) return { text, width };
    }
    return null;
  };
  const overlaps = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  class Grid { // boxes (label boxes, node discs) by the cells of CELL pixels they touch
    constructor() { this.cells = new Map(); this.stamp = 0; }
    add(box) {
      for (let cx = Math.floor(box.left / CELL), x2 = Math.floor(box.right / CELL); cx <= x2; cx++) {
        for (let cy = Math.floor(box.top / CELL), y2 = Math.floor(box.bottom / CELL); cy <= y2; cy++) {
          const cell = this.cells.get(cx * 65536 + cy);
          if (cell) cell.push(box); else this.cells.set(cx * 65536 + cy, [box]);
        }
      }
    }
    // How many boxes `box` overlaps (`self` aside), counting up to `enough` at most.
    count(box, enough, self) {
      const stamp = ++this.stamp;
      let n = 0;
      for (let cx = Math.floor(box.left / CELL), x2 = Math.floor(box.right / CELL); cx <= x2; cx++) {
        for (let cy = Math.floor(box.top / CELL), y2 = Math.floor(box.bottom / CELL); cy <= y2; cy++) {
          const cell = this.cells.get(cx * 65536 + cy);
          if (!cell) continue;
          for (let i = 0; i < cell.length; i++) {
            const other = cell[i];
            if (other.stamp === stamp || other.node === self || !overlaps(box, other)) continue;
            other.stamp = stamp;
            if (++n >= enough) return n;
          }
        }
      }
      return n;
    }
    hits(box) { return this.count(box, 1) > 0; }
  }
  const drawText = (context, text, x, y) => {
    context.strokeText(text, x, y);
    context.fillText(text, x, y);
  };
  const labelTimes = []; // how long each label layout took (ms), the latest 50, for the benchmark
  const layoutLabels = () => {
    const started = performance.now();
    labelBoxes.length = 0;
    placedBy.clear();
    const context = renderer.getCanvases().labels.getContext("2d");
    const { width, height } = renderer.getDimensions();
    if (!width || !height) return;
    const room = Math.round(Math.max(80, Math.min(210, width * 0.4)));
    const cache = renderer.nodeDataCache || {};
    const display = (node) => cache[node] || renderer.getNodeDisplayData(node);
    // Where every visible node is on screen this frame, and the grid of their centres.
    const at = new Map();
    const points = new Grid();
    for (const node of ranked) {
      const d = display(node);
      if (!d || d.hidden) continue;
      const { x, y } = renderer.framedGraphToViewport(d);
      const r = renderer.scaleSize(d.size);
      if (x < -r || x > width + r || y < -r || y > height + r) continue;
      const p = { node, x, y, r, left: x - r, right: x + r, top: y - r, bottom: y + r };
      at.set(node, p);
      points.add(p);
    }
    const taken = new Grid(); // labels drawn, and the discs of their nodes
    context.save();
    context.font = `500 ${LABEL_SIZE}px ${FONT}`;
    context.textBaseline = "middle";
    context.lineJoin = "round";
    context.lineWidth = 3;
    context.strokeStyle = "rgba(255, 255, 255, .92)";
    context.fillStyle = "#10212f";
    const half = LABEL_SIZE / 2 + 1;
    // The place for a label of width w beside node p: of eight places inside the canvas and clear of
    // the labels drawn, the first that covers no other node, else the one that covers the fewest, if
    // that is no more than `most`.
    const spotFor = (p, w, most) => {
      const slant = p.r * 0.7 + 1;
      const spots = [
        [p.x + p.r + GAP, p.y - half], // right
        [p.x - p.r - GAP - w, p.y - half], // left
        [p.x - w / 2, p.y - p.r - 1 - 2 * half], // above
        [p.x - w / 2, p.y + p.r + 1], // below
        [p.x + slant, p.y - slant - 2 * half], // above right
        [p.x + slant, p.y + slant], // below right
        [p.x - slant - w, p.y - slant - 2 * half], // above left
        [p.x - slant - w, p.y + slant], // below left
      ];
      let best = null, fewest = Infinity;
      for (const [left, top] of spots) {
        const box = { left, right: left + w, top, bottom: top + 2 * half };
        if (box.left < MARGIN || box.right > width - MARGIN || box.top < MARGIN || box.bottom > height - MARGIN) continue;
        if (taken.hits({ left: left - PAD, right: box.right + PAD, top: top - PAD / 2, bottom: box.bottom + PAD / 2 })) continue;
        const covered = points.count(box, Math.min(fewest, most + 1), p.node);
        if (covered < fewest && covered <= most) { best = box; fewest = covered; }
        if (!covered) break;
      }
      return best;
    };
    const zoom = framedRatio / renderer.getCamera().getState().ratio;
    const fitOf = (node, allowed) => {
      const key = `${allowed} ${node}`;
      let fit = fitted.get(key);
      if (!fit) fitted.set(key, fit = fitText(context, graph.getNodeAttribute(node, "label"), allowed) || { text: "", width: 0 });
      return fit;
    };
    // Each community's hub (or, while searching, each match) is labelled even over other nodes if it
    // must; any other label only where it covers no node (two at most once zoomed in, where a dense
    // community's nodes touch). Past the hubs, the first CANDIDATES nodes on screen are tried: a big
    // graph stays quick to pan and zoom.
    const order = state.query ? ranked.filter((node) => at.has(node) && matches(node)) : ranked;
    const anyway = state.query ? order.length : hubs.length;
    const mostOf = (k) => (k < anyway ? Infinity : zoom >= 1.5 ? 2 : 0);
    let tries = 0;
    const candidates = big ? CANDIDATES / 2 : CANDIDATES;
    for (let k = 0; k < order.length && tries < candidates; k++) {
      const node = order[k];
      const p = at.get(node);
      if (!p || !graph.getNodeAttribute(node, "label")) continue;
      if (k >= anyway) tries++;
      const disc = { left: p.x - p.r, right: p.x + p.r, top: p.y - p.r, bottom: p.y + p.r, node };
      if (taken.hits(disc)) continue; // a label already covers this node
      const fit = fitOf(node, room);
      const best = fit.text && spotFor(p, fit.width, mostOf(k));
      if (!best) continue;
      const placed = { left: best.left, right: best.right, top: best.top, bottom: best.bottom, text: fit.text, node, k };
      labelBoxes.push(placed);
      placedBy.set(node, placed);
      taken.add(placed);
      taken.add(disc);
    }
    // Zoomed in, a label cut short grows (away from its node) into the room left around it.
    if (zoom >= 1.5) {
      const wide = Math.round(Math.min(width - 2 * MARGIN - 40, room * 1.8));
      for (const placed of labelBoxes) {
        const fit = fitOf(placed.node, wide);
        const grow = fit.width - (placed.right - placed.left);
        if (!fit.text || grow < 1) continue;
        const p = at.get(placed.node);
        const shift = placed.left >= p.x ? 0 : placed.right <= p.x ? grow : grow / 2;
        const box = { left: placed.left - shift, right: placed.right - shift + grow, top: placed.top, bottom: placed.bottom };
        if (box.left < MARGIN || box.right > width - MARGIN) continue;
        if (taken.count({ left: box.left - PAD, right: box.right + PAD, top: box.top - PAD / 2, bottom: box.bottom + PAD / 2 }, 1, placed.node)) continue;
        if (points.count(box, mostOf(placed.k) + 1, placed.node) > Math.min(mostOf(placed.k), points.count(placed, Infinity, placed.node))) continue;
        Object.assign(placed, box, { text: fit.text });
        taken.add(placed);
      }
    }
    for (const placed of labelBoxes) drawText(context, placed.text, placed.left, (placed.top + placed.bottom) / 2);
    context.restore();
    if (labelTimes.push(performance.now() - started) > 50) labelTimes.shift();
  };

  // The hovered node: its whole label (as much as the canvas holds) and its community's number in a
  // white box, where its label was, or on the side with room; never past the canvas's edge.
  const drawBadge = (context, cluster, cx, cy, r) => {
    context.fillStyle = cluster.color;
    context.beginPath();
    context.arc(cx, cy, r, 0, Math.PI * 2);
    context.fill();
    context.fillStyle = cluster.ink;
    context.font = `700 ${cluster.number > 9 ? 9 : 10}px ${FONT}`;
    context.textAlign = "center";
    context.textBaseline = "middle";
    context.fillText(String(cluster.number), cx, cy + 0.5);
    context.textAlign = "start";
  };
  const drawHover = (context, d, settings) => {
    const width = context.canvas.clientWidth, height = context.canvas.clientHeight;
    const cluster = clusters[nodes.cluster[indexOf.get(d.key)]];
    const badge = 16, inner = 4;
    context.save();
    context.font = `500 ${LABEL_SIZE}px ${FONT}`;
    const right = width - MARGIN - (d.x + d.size + GAP) - badge - 2 * inner;
    const left = d.x - d.size - GAP - MARGIN - badge - 2 * inner;
    const full = context.measureText(d.label || "").width;
    const before = placedBy.get(d.key);
    const onRight = before ? before.left >= d.x : full <= right || right >= left;
    const fit = d.label ? fitText(context, d.label, Math.max(40, Math.min(width - 2 * MARGIN - badge - 2 * inner, Math.max(right, left, full)))) : null;
    const w = badge + inner + (fit ? fit.width : 0) + 2 * inner, h = LABEL_SIZE + 8;
    let x = onRight ? d.x + d.size + GAP : d.x - d.size - GAP - w;
    let y = d.y - h / 2;
    if (before) { x = onRight ? before.left - badge - 2 * inner : before.right + inner - w; y = (before.top + before.bottom) / 2 - h / 2; }
    x = Math.min(Math.max(MARGIN, x), width - MARGIN - w);
    y = Math.min(Math.max(MARGIN, y), height - MARGIN - h);
    context.fillStyle = "#fff";
    context.shadowBlur = 8;
    context.shadowColor = "rgba(16, 33, 47, .35)";
    context.beginPath();
    context.arc(d.x, d.y, d.size + 3, 0, Math.PI * 2);
    context.rect(x, y, w, h);
    context.fill();
    context.shadowBlur = 0;
    drawBadge(context, cluster, x + inner + badge / 2, y + h / 2, badge / 2);
    if (fit) {
      context.font = `500 ${LABEL_SIZE}px ${FONT}`;
      context.fillStyle = "#10212f";
      context.textBaseline = "middle";
      context.fillText(fit.text, x + 2 * inner + badge, y + h / 2);
    }
    context.restore();
    labelBoxes.push({ left: x, right: x + w, top: y, bottom: y + h, text: fit ? fit.text : "", hover: true });
  };

  // Sigma hands the reducers a copy of the attributes: changing and returning it is safe and cheap.
  const renderer = new Sigma(graph, document.getElementById("graph"), {
    ...programs,
    defaultDrawNodeHover: drawHover,
    renderLabels: false,
    renderEdgeLabels: false,
    hideEdgesOnMove: big,
    zIndex: true,
    // A page squeezed to nothing for a moment (a browser taking a full-page screenshot does, ~1 px)
    // draws nothing until it has a size again, instead of throwing.
    allowInvalidContainer: true,
    nodeReducer: (node, attrs) => {
      if (!shown(attrs)) {
        attrs.hidden = true;
      } else if (state.query) {
        if (matches(node)) attrs.zIndex = 1; // drawn over the others
        else attrs.color = "#dde3ea";
      }
      return attrs;
    },
    edgeReducer: (edge, attrs) => {
      if (state.kind && attrs.kind !== state.kind) attrs.hidden = true;
      return attrs;
    },
  });
  renderer.on("afterRender", layoutLabels);
  performance.mark("graph:rendered");
  const api = { graph, renderer, labelBoxes, labelTimes, renderedAt: performance.now() };
  window.tidelineGraph = api; // for tests, benchmarks and the curious
  // The frame after the one holding the first render: the graph is on screen.
  requestAnimationFrame(() => requestAnimationFrame(() => { api.drawnAt = performance.now(); }));

  // The camera frames what is drawn (all of it, or what a filter leaves: a community fills the view)
  // with a margin for the labels at the edges; a filter redraws at once, typing in the search box at
  // most once a frame.
  const camera = renderer.getCamera();
  let framedRatio = 1; // the zoom that shows everything drawn
  const frame = () => {
    // Where the nodes left would be with the camera at the centre of their box and no zoom, then the
    // zoom that fits that box into the canvas less a margin.
    let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
    const cache = renderer.nodeDataCache || {};
    graph.forEachNode((node, attrs) => {
      if (!shown(attrs)) return;
      const { x, y } = cache[node] || renderer.getNodeDisplayData(node);
      if (x < minX) minX = x; if (x > maxX) maxX = x; if (y < minY) minY = y; if (y > maxY) maxY = y;
    });
    if (minX === Infinity) { camera.setState({ x: 0.5, y: 0.5, ratio: framedRatio = 1, angle: 0 }); return; }
    const view = { x: (minX + maxX) / 2, y: (minY + maxY) / 2, ratio: 1, angle: 0 };
    const { width, height } = renderer.getDimensions();
    const corner = (x, y) => renderer.framedGraphToViewport({ x, y }, { cameraState: view });
    const a = corner(minX, minY), b = corner(maxX, maxY);
    const margin = Math.min(40, width * 0.06);
    const ratio = Math.max(Math.abs(b.x - a.x) / Math.max(1, width - 2 * margin), Math.abs(b.y - a.y) / Math.max(1, height - 2 * margin));
    framedRatio = Math.min(1.2, Math.max(0.04, ratio));
    camera.setState({ ...view, ratio: framedRatio });
  };
  frame();
  // A new size (a phone turned, a window resized) frames the drawing again, unless it was moved.
  let framed = camera.getState();
  const unmoved = () => { const now = camera.getState(); return now.x === framed.x && now.y === framed.y && now.ratio === framed.ratio; };
  let reframe = false; // after sigma's next render: until then its node data is being rebuilt
  window.addEventListener("resize", () => {
    if (reframe || !unmoved()) return;
    reframe = true;
    renderer.once("afterRender", () => { reframe = false; frame(); framed = camera.getState(); });
  });
  let pending = 0;
  const refresh = () => renderer.refresh();
  const refreshFramed = () => { frame(); framed = camera.getState(); renderer.refresh(); }; // one render: refresh cancels the camera's
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
    const match = graph.findNode((node, attrs) => shown(attrs) && matches(node));
    if (match) open(match, true);
  });
  document.querySelectorAll("[data-cluster]").forEach((button) => button.addEventListener("click", () => {
    const select = document.getElementById("graph-cluster");
    select.value = button.dataset.cluster;
    select.dispatchEvent(new Event("change"));
  }));
  renderer.on("clickNode", ({ node }) => open(node, false));
  // The panel names the fact's community by its number and colour, as the list does.
  const SVG = "http://www.w3.org/2000/svg";
  const communityLine = (node) => {
    const cluster = clusters[nodes.cluster[indexOf.get(node)]];
    const line = document.createElement("p");
    line.className = "graph-community muted";
    const swatch = document.createElementNS(SVG, "svg");
    swatch.setAttribute("class", "swatch");
    swatch.setAttribute("viewBox", "0 0 20 20");
    swatch.setAttribute("aria-hidden", "true");
    const circle = document.createElementNS(SVG, "circle");
    for (const [k, v] of [["cx", 10], ["cy", 10], ["r", 10], ["fill", cluster.color]]) circle.setAttribute(k, v);
    const number = document.createElementNS(SVG, "text");
    for (const [k, v] of [["x", 10], ["y", 10], ["fill", cluster.ink]]) number.setAttribute(k, v);
    number.textContent = String(cluster.number);
    swatch.append(circle, number);
    line.append(swatch, ` Community ${cluster.number}: ${cluster.label}`);
    return line;
  };
  function open(node, focus) {
    const ticket = ++clicks;
    const heading = document.createElement("p");
    heading.className = "muted";
    heading.textContent = graph.getNodeAttribute(node, "label") + " — loading…";
    panel.replaceChildren(communityLine(node), heading);
    fetch(panelUrl.replace("MEMORY_ID", encodeURIComponent(node)), { headers: { "HX-Request": "true" } })
      .then((r) => (r.ok ? r.text() : Promise.reject(new Error(r.statusText))))
      .then((html) => {
        if (ticket !== clicks) return; // a later click won
        panel.innerHTML = html;
        panel.prepend(communityLine(node));
        api.panelShownAt = performance.now();
        if (focus) panel.focus();
        // On a phone the panel is under the drawing: bring its start into view.
        else if (panel.getBoundingClientRect().top > window.innerHeight - 80) panel.scrollIntoView({ block: "nearest" });
      })
      .catch(() => { if (ticket === clicks) heading.textContent = "Could not load this fact; try again."; });
  }
})();
