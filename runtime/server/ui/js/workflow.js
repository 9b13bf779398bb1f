// A workflow run drawn as a graph (inline SVG, laid out here): every node of the workflow with the
// path the run took marked, each node coloured by how its run ended. Without the workflow's own
// graph (its app is not served here) the path the run took is drawn alone, from the log.
"use strict";

const NODE_W = 168, NODE_H = 46, GAP_X = 36, GAP_Y = 58;

const WorkflowPage = {
  async render(app, user, session, params) {
    const base = `/chronicle/apps/${encodeURIComponent(app)}/users/${encodeURIComponent(user)}/sessions/${encodeURIComponent(session)}/workflow`;
    const run = await Api.get(base, { invocation: params.invocation });
    const head = [h("h1", {}, "Workflow ", h("span", { class: "mono" }, session)),
      h("div", { class: "row", style: "margin-bottom:12px" }, link("Timeline", sessionHash("session", app, user, session)))];
    if (!run.invocations.length) return h("div", { id: "workflow" }, head, h("div", { class: "empty panel" }, "This session ran no workflow."));
    const pick = h("select", { id: "workflow-run", onchange: () => go(sessionHash("workflow", app, user, session, { invocation: pick.value })) },
      run.invocations.map((id, i) => h("option", { value: id, selected: id === run.invocation_id }, `${i + 1}. ${id}`)));
    const ran = run.nodes.filter((n) => n.taken && n.id !== "START").length;
    return h("div", { id: "workflow" }, head,
      h("div", { class: "row sub" }, h("label", {}, "Run", pick),
        h("span", {}, `${plural(ran, "node")} ran · `, run.whole_graph ? "the whole graph, the path taken in colour" : "the path taken (the app is not served here, so its whole graph is unknown)")),
      h("div", { class: "panel" }, drawGraph(run), statusLegend()),
      h("table", { id: "node-runs" }, h("thead", {}, h("tr", {}, ["node", "status", "attempts", "time", "error"].map((t) => h("th", {}, t)))),
        h("tbody", {}, run.nodes.filter((n) => n.status).map((n) => h("tr", { dataset: { node: n.id } },
          h("td", { class: "mono" }, n.path || n.id), h("td", {}, badge(n.status, "node-" + n.status)), h("td", {}, n.attempts),
          h("td", {}, n.seconds === null ? "" : ms(n.seconds * 1000)), h("td", {}, n.error ? h("span", { class: "bad-text" }, n.error) : ""))))),
    );
  },
};

// Layers by longest distance from START (a loop back is drawn but does not push a node down).
function layers(graph) {
  const depth = { START: 0 };
  const order = graph.nodes.map((n) => n.id);
  for (let pass = 0; pass < order.length; pass++) {
    let moved = false;
    graph.edges.forEach((e) => {
      if (depth[e.from] === undefined || e.from === e.to) return;
      const want = depth[e.from] + 1;
      if ((depth[e.to] === undefined || depth[e.to] < want) && want < order.length) { depth[e.to] = want; moved = true; }
    });
    if (!moved) break;
  }
  order.forEach((id) => { if (depth[id] === undefined) depth[id] = 0; });
  const rows = [];
  order.forEach((id) => { (rows[depth[id]] = rows[depth[id]] || []).push(id); });
  return rows.filter(Boolean);
}

function drawGraph(graph) {
  const rows = layers(graph);
  const widest = Math.max(...rows.map((r) => r.length));
  const width = Math.max(widest * (NODE_W + GAP_X) + GAP_X, 360), height = rows.length * (NODE_H + GAP_Y) + 10;
  const at = {};
  rows.forEach((row, i) => row.forEach((id, j) => {
    const left = (width - row.length * (NODE_W + GAP_X) + GAP_X) / 2;
    at[id] = { x: left + j * (NODE_W + GAP_X), y: 10 + i * (NODE_H + GAP_Y) };
  }));
  const svg = s("svg", { viewBox: `0 0 ${width} ${height}`, width, height, class: "graph", role: "img", "aria-label": "workflow graph" },
    s("defs", {}, ["taken", "idle"].map((kind) => s("marker", { id: "arrow-" + kind, viewBox: "0 0 10 10", refX: 9, refY: 5, markerUnits: "userSpaceOnUse", markerWidth: 10, markerHeight: 10, orient: "auto-start-reverse" },
      s("path", { d: "M0,0 L10,5 L0,10 z", class: "arrow " + kind })))));
  graph.edges.forEach((e) => {
    const a = at[e.from], b = at[e.to];
    if (!a || !b) return;
    const x1 = a.x + NODE_W / 2, y1 = a.y + NODE_H, x2 = b.x + NODE_W / 2, y2 = b.y;
    const back = y2 <= y1;  // a loop back up: around the side
    const d = back ? `M${a.x + NODE_W},${a.y + NODE_H / 2} C${a.x + NODE_W + 60},${a.y + NODE_H / 2} ${b.x + NODE_W + 60},${b.y + NODE_H / 2} ${b.x + NODE_W},${b.y + NODE_H / 2}`
      : `M${x1},${y1} C${x1},${y1 + GAP_Y / 2} ${x2},${y2 - GAP_Y / 2} ${x2},${y2}`;
    const kind = e.taken ? "taken" : "idle";
    svg.append(s("path", { d, class: `edge ${kind}${e.dynamic ? " dynamic" : ""}`, "marker-end": `url(#arrow-${kind})` },
      s("title", {}, `${e.from} → ${e.to}${e.label ? ` (route ${e.label})` : ""}${e.taken ? ", taken" : ", not taken"}`)));
    // the route's name beside the edge, near its end, on the side it leans to
    if (e.label) svg.append(s("text", { x: x1 + (x2 - x1) * 0.72 + (x2 < x1 ? -8 : 8), y: y1 + (y2 - y1) * 0.72, "text-anchor": x2 < x1 ? "end" : "start", class: "edge-label " + kind }, e.label));
  });
  graph.nodes.forEach((n) => {
    const p = at[n.id];
    const g = s("g", { class: `node ${n.taken ? "taken" : "idle"} ${n.status ? "node-" + n.status : ""}`, "data-node": n.id, transform: `translate(${p.x},${p.y})` });
    if (n.id === "START") {
      g.append(s("rect", { width: NODE_W, height: NODE_H, rx: NODE_H / 2 }), s("text", { x: NODE_W / 2, y: NODE_H / 2 + 4, "text-anchor": "middle" }, "START"));
    } else {
      const extra = n.attempts > 1 ? ` ×${n.attempts}` : "";
      g.append(s("rect", { width: NODE_W, height: NODE_H, rx: 6 }),
        s("text", { x: NODE_W / 2, y: 19, "text-anchor": "middle", class: "name" }, short(n.label, 24)),
        s("text", { x: NODE_W / 2, y: 36, "text-anchor": "middle", class: "status" }, n.status ? n.status + extra + (n.seconds !== null ? " · " + ms(n.seconds * 1000) : "") : "not run"),
        s("title", {}, [n.path || n.label, n.status || "not run", n.error || ""].filter(Boolean).join("\n")));
    }
    svg.append(g);
  });
  return svg;
}

function statusLegend() {
  return h("div", { class: "legend graph-legend" }, ["completed", "failed", "waiting", "started"].map((st) => [h("i", { class: "node-" + st }), st]),
    h("i", { class: "idle" }), "not run");
}
