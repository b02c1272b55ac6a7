// The graph layout worker: dagre. A layout can take seconds (a long sum
// over many terms makes one dummy node per rank an edge crosses), so it
// runs here and the page stays responsive; the client ends this worker
// when a newer layout supersedes the one running.
import { Graph, layout } from "@dagrejs/dagre";
import type { LayoutRequest, LayoutResult } from "./layout-client.js";

const SPACING = { nodesep: 18, ranksep: 28, margin: 8 };

function dagreLayout(req: LayoutRequest): LayoutResult {
  const g = new Graph();
  g.setGraph({ rankdir: "TB", nodesep: SPACING.nodesep, ranksep: SPACING.ranksep, marginx: SPACING.margin, marginy: SPACING.margin });
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
  return { id: req.id, width, height, nodes, edges };
}

/**
 * Layers without crossing reduction, for graphs dagre cannot take: its
 * recursion overflows the stack on long chains (a 400-node chain). A node's
 * layer is its longest path from a source (nodes arrive in execution order,
 * so every edge points forward); a layer's nodes sit side by side, in order.
 */
function layeredLayout(req: LayoutRequest): LayoutResult {
  const index = new Map(req.nodes.map((n, i) => [n.id, i]));
  const layer = new Array<number>(req.nodes.length).fill(0);
  const preds: number[][] = req.nodes.map(() => []);
  for (const [a, b] of req.edges) {
    const ia = index.get(a), ib = index.get(b);
    if (ia !== undefined && ib !== undefined) preds[ib].push(ia);
  }
  for (let i = 0; i < req.nodes.length; i++) {
    for (const p of preds[i]) if (p < i) layer[i] = Math.max(layer[i], layer[p] + 1);
  }
  const rows: number[][] = [];
  req.nodes.forEach((_, i) => (rows[layer[i]] ??= []).push(i));
  const nodes: LayoutResult["nodes"] = {};
  let y = SPACING.margin, width = 0;
  for (const row of rows) {
    if (!row) continue;
    let tallest = 0;  // a loop: a layer can hold more nodes than a call takes arguments
    for (const i of row) tallest = Math.max(tallest, req.nodes[i].height);
    let x = SPACING.margin;
    for (const i of row) {
      const n = req.nodes[i];
      nodes[n.id] = { x: x + n.width / 2, y: y + tallest / 2, width: n.width, height: n.height };
      x += n.width + SPACING.nodesep;
    }
    width = Math.max(width, x - SPACING.nodesep + SPACING.margin);
    y += tallest + SPACING.ranksep;
  }
  const edges = req.edges.flatMap(([a, b]) => {
    const s = nodes[a], t = nodes[b];
    return s && t ? [[{ x: s.x, y: s.y + s.height / 2 }, { x: t.x, y: t.y - t.height / 2 }]] : [];
  });
  return { id: req.id, width, height: y - SPACING.ranksep + SPACING.margin, nodes, edges };
}

self.onmessage = (ev: MessageEvent<LayoutRequest>) => {
  let result: LayoutResult;
  try {
    result = dagreLayout(ev.data);
  } catch (e) {
    if (!(e instanceof RangeError)) throw e;  // only the stack overflow has a fallback
    result = layeredLayout(ev.data);
  }
  (self as unknown as Worker).postMessage(result);
};
