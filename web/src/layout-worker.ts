// The graph layout worker: dagre. A layout can take seconds (a long sum
// over many terms makes one dummy node per rank an edge crosses), so it
// runs here and the page stays responsive; the client ends this worker
// when a newer layout supersedes the one running.
import { Graph, layout } from "@dagrejs/dagre";
import type { LayoutRequest, LayoutResult } from "./layout-client.js";

self.onmessage = (ev: MessageEvent<LayoutRequest>) => {
  const req = ev.data;
  const g = new Graph();
  g.setGraph({ rankdir: "TB", nodesep: 18, ranksep: 28, marginx: 8, marginy: 8 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const n of req.nodes) g.setNode(n.id, { width: n.width, height: n.height });
  for (const [a, b] of req.edges) g.setEdge(a, b);
  layout(g);
  const { width = 100, height = 100 } = g.graph();
  const nodes: LayoutResult["nodes"] = {};
  for (const id of g.nodes()) {
    const n = g.node(id);
    nodes[id] = { x: n.x, y: n.y, width: n.width, height: n.height };
  }
  const edges = g.edges().map((e) => (g.edge(e).points ?? []).map((p: { x: number; y: number }) => ({ x: p.x, y: p.y })));
  const result: LayoutResult = { id: req.id, width, height, nodes, edges };
  (self as unknown as Worker).postMessage(result);
};
