// The Memory Graph: draws the server's nodes (already placed by community) with sigma, filters by
// segment, link kind and community, searches labels, and opens a fact in the side panel on click.
(function () {
  const data = JSON.parse(document.getElementById("graph-data").textContent);
  const panelUrl = document.currentScript.dataset.panelUrl;
  const graph = new graphology.Graph({ multi: true, type: "directed" });
  data.nodes.forEach((n) => graph.addNode(n.id, { ...n, label: n.label }));
  data.edges.forEach((e) => {
    if (graph.hasNode(e.source) && graph.hasNode(e.target)) graph.addEdge(e.source, e.target, { ...e, size: e.strength === "strong" ? 2 : 1 });
  });
  const state = { segment: "", kind: "", cluster: "", query: "" };
  const renderer = new Sigma(graph, document.getElementById("graph"), {
    renderEdgeLabels: false,
    labelRenderedSizeThreshold: 9,
    nodeReducer: (node, attrs) => {
      const hidden = (state.segment && attrs.segment !== state.segment) || (state.cluster && attrs.cluster !== state.cluster);
      const dim = state.query && !attrs.label.toLowerCase().includes(state.query);
      return { ...attrs, hidden, color: dim ? "#ddd" : attrs.color, highlighted: !!state.query && !dim };
    },
    edgeReducer: (edge, attrs) => ({ ...attrs, hidden: !!state.kind && attrs.kind !== state.kind }),
  });
  window.tidelineGraph = { graph, renderer };  // for tests and the curious
  const refresh = () => renderer.refresh();
  document.getElementById("graph-segment").addEventListener("change", (e) => { state.segment = e.target.value; refresh(); });
  document.getElementById("graph-kind").addEventListener("change", (e) => { state.kind = e.target.value; refresh(); });
  document.getElementById("graph-cluster").addEventListener("change", (e) => { state.cluster = e.target.value; refresh(); });
  document.getElementById("graph-search").addEventListener("input", (e) => { state.query = e.target.value.trim().toLowerCase(); refresh(); });
  renderer.on("clickNode", ({ node }) => {
    fetch(panelUrl.replace("MEMORY_ID", encodeURIComponent(node)), { headers: { "HX-Request": "true" } })
      .then((r) => r.text())
      .then((html) => { document.getElementById("graph-panel").innerHTML = html; });
  });
})();
