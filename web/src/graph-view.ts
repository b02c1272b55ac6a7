// The Graph tab: the IR before and after optimisation as a DAG laid out by
// dagre (top to bottom, data flowing down). Fused nodes are marked; hover a
// node to see its source.
import { Graph, layout } from "@dagrejs/dagre";
import { h, s } from "./dom.js";
import type { IrGraph, IrNode } from "./protocol.js";

export interface GraphCallbacks {
  onHover(node: IrNode | null): void;
}

type Which = "before" | "after";

export class GraphView {
  readonly #root: HTMLElement;
  readonly #cb: GraphCallbacks;
  #which: Which = "after";
  #graphs: { before: IrGraph; after: IrGraph } | undefined;
  #zoom = 1;
  #selected: ((node: IrNode) => boolean) | undefined;
  #nodes: { node: IrNode; el: SVGGElement }[] = [];

  constructor(root: HTMLElement, cb: GraphCallbacks) {
    this.#root = root;
    this.#cb = cb;
  }

  render(graphs: { before: IrGraph; after: IrGraph } | undefined): void {
    this.#graphs = graphs;
    this.#draw();
  }

  #draw(): void {
    this.#root.replaceChildren();
    const graphs = this.#graphs;
    if (!graphs) {
      this.#root.append(h("p", { class: "empty" }, "Nothing compiled yet."));
      return;
    }
    const count = (g: IrGraph) => g.nodes.length;
    const fusedCount = graphs.after.nodes.filter((n) => n.op.startsWith("fused_")).length;
    const toggle = h("div", { class: "segmented", role: "group", "aria-label": "IR version" },
      ...(["before", "after"] as Which[]).map((w) => {
        const b = h("button", { class: w === this.#which ? "on" : "", "data-which": w },
          w === "before" ? `Before optimisation (${count(graphs.before)} nodes)` : `After (${count(graphs.after)} nodes, ${fusedCount} fused)`);
        b.addEventListener("click", () => {
          this.#which = w;
          this.#draw();
        });
        return b;
      }));
    const zoom = h("div", { class: "segmented zoom" },
      ...([["−", 1 / 1.25], ["fit", 0], ["+", 1.25]] as [string, number][]).map(([label, f]) => {
        const b = h("button", { title: label === "fit" ? "fit width" : "zoom" }, label);
        b.addEventListener("click", () => {
          this.#zoom = f === 0 ? 1 : Math.min(4, Math.max(0.25, this.#zoom * f));
          this.#draw();
        });
        return b;
      }));
    this.#root.append(h("div", { class: "toolbar" }, toggle, zoom));
    this.#root.append(h("div", { class: "graph-wrap" }, this.#svg(this.#which === "before" ? graphs.before : graphs.after)));
    this.#root.append(h("div", { class: "legend" },
      h("span", {}, h("i", { class: "lg input" }), "input"), h("span", {}, h("i", { class: "lg param" }), "parameter"),
      h("span", {}, h("i", { class: "lg compute" }), "op"), h("span", {}, h("i", { class: "lg fused" }), "fused op"),
      h("span", {}, h("i", { class: "lg output" }), "graph output")));
  }

  /** Marks the nodes whose source spans cover `line` (lastLine maps a span to its last line). */
  selectLine(line: number, lastLine: (span: IrNode["span"]) => number): void {
    this.#selected = (n) => n.span.line > 0 && n.span.line <= line && line <= lastLine(n.span);
    this.#markSelected();
  }

  #markSelected(): void {
    for (const { node, el } of this.#nodes) el.classList.toggle("selected", this.#selected?.(node) ?? false);
  }

  #svg(ir: IrGraph): SVGSVGElement {
    this.#nodes = [];
    const g = new Graph();
    g.setGraph({ rankdir: "TB", nodesep: 18, ranksep: 28, marginx: 8, marginy: 8 });
    g.setDefaultEdgeLabel(() => ({}));
    const outputs = new Map<number, string[]>();
    for (const o of ir.outputs) outputs.set(o.node, [...(outputs.get(o.node) ?? []), o.name]);
    for (const n of ir.nodes) {
      const title = n.role === "compute" ? n.label : n.role;
      const type = n.type ? n.type.text : "";
      const width = Math.max(70, 7 * Math.max(n.name.length, title.length, type.length) + 16);
      g.setNode(String(n.id), { width, height: 46 });
    }
    for (const [a, b] of ir.edges) g.setEdge(String(a), String(b));
    layout(g);
    const { width = 100, height = 100 } = g.graph();
    const svg = s("svg", { viewBox: `0 0 ${width} ${height}`, class: "graph-svg", width: Math.round(width * this.#zoom), height: Math.round(height * this.#zoom),
                           role: "img", "aria-label": `IR graph ${ir.name}` });
    svg.append(s("defs", {}, s("marker", { id: "arrow", viewBox: "0 0 8 8", refX: 7, refY: 4, markerWidth: 7, markerHeight: 7, orient: "auto" },
      s("path", { d: "M0,0 L8,4 L0,8 z", class: "arrow" }))));
    for (const e of g.edges()) {
      const pts: { x: number; y: number }[] = g.edge(e).points ?? [];
      const d = pts.map((p, i) => `${i ? "L" : "M"}${p.x.toFixed(1)},${p.y.toFixed(1)}`).join(" ");
      svg.append(s("path", { d, class: "edge", "marker-end": "url(#arrow)" }));
    }
    for (const n of ir.nodes) {
      const box = g.node(String(n.id));
      const fused = n.op.startsWith("fused_");
      const outs = outputs.get(n.id);
      const cls = `node ${n.role}${fused ? " fused" : ""}${outs ? " output" : ""}`;
      const x = box.x - box.width / 2, y = box.y - box.height / 2;
      const title = n.role === "compute" ? n.label : n.role;
      const el = s("g", { class: cls, "data-node": n.id },
        s("rect", { x, y, width: box.width, height: box.height, rx: 7 }),
        s("text", { x: box.x, y: y + 15, "text-anchor": "middle", class: "node-op" }, title),
        s("text", { x: box.x, y: y + 28, "text-anchor": "middle", class: "node-name" }, n.name + (outs ? ` → ${outs.join(", ")}` : "")),
        s("text", { x: box.x, y: y + 40, "text-anchor": "middle", class: "node-type" }, n.type ? n.type.text : ""),
        s("title", {}, `%${n.id} ${n.name} = ${n.label}${n.span.line ? `\nline ${n.span.line}:${n.span.column}` : ""}`));
      this.#nodes.push({ node: n, el });
      el.addEventListener("mouseenter", () => this.#cb.onHover(n));
      el.addEventListener("mouseleave", () => this.#cb.onHover(null));
      svg.append(el);
    }
    if (this.#zoom === 1) svg.setAttribute("style", "max-width:100%;height:auto");
    this.#markSelected();
    return svg;
  }
}
