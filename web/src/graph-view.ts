// The Graph tab: the IR before and after optimisation as a DAG laid out by
// dagre (top to bottom, data flowing down). Fused nodes are marked; hover a
// node to see its source. Layouts run in a worker (seconds for a few
// hundred nodes), only while the tab is shown, once per IR graph. The nodes
// are an ARIA listbox, one Tab stop: arrows move by the layout, Enter or
// Space selects a node and highlights its source.
import { h, s } from "./dom.js";
import { LayoutClient, type LayoutResult } from "./layout-client.js";
import { LineIndex } from "./line-index.js";
import { RovingFocus } from "./roving-focus.js";
import { spatialMove } from "./spatial-move.js";
import type { SourceLines } from "./source-lines.js";
import type { IrGraph, IrNode } from "./protocol.js";

export interface GraphCallbacks {
  /** A node hovered or focused; null: left. */
  onHover(node: IrNode | null): void;
  /** A node chosen from the keyboard (Enter or Space). */
  onSelect(node: IrNode): void;
}

type Which = "before" | "after";

export class GraphView {
  readonly #root: HTMLElement;
  readonly #cb: GraphCallbacks;
  #which: Which = "after";
  #graphs: { before: IrGraph; after: IrGraph } | undefined;
  #zoom = 1;
  /** The selected source line and the compiled source it belongs to. */
  #selected: { line: number; lines: SourceLines } | undefined;
  /** A node chosen from the keyboard: it replaces the line's selection in its graph. */
  #chosen: { ir: IrGraph; id: number } | undefined;
  /** The drawn graph and its node elements by node id. */
  #drawn: { ir: IrGraph; els: Map<number, SVGGElement>; focus: RovingFocus } | undefined;
  /** The node elements marked selected now, unmarked by the next selection. */
  #marked: SVGGElement[] = [];
  /** Node ids by the source lines they came from, per graph and source: made on the first selection. */
  readonly #byLine = new WeakMap<IrGraph, { lines: SourceLines; index: LineIndex<number> }>();
  readonly #client = new LayoutClient();
  readonly #layouts = new WeakMap<IrGraph, Promise<LayoutResult | null>>();
  #visible = false;
  #dirty = true;

  constructor(root: HTMLElement, cb: GraphCallbacks) {
    this.#root = root;
    this.#cb = cb;
  }

  render(graphs: { before: IrGraph; after: IrGraph } | undefined): void {
    this.#graphs = graphs;
    this.#drawn = undefined;
    if (this.#visible) this.#draw();
    else this.#dirty = true;
  }

  /** The tab was shown or hidden: a hidden view lays nothing out. */
  setVisible(visible: boolean): void {
    this.#visible = visible;
    if (visible && this.#dirty) this.#draw();
  }

  #draw(): void {
    this.#dirty = false;
    this.#drawn = undefined;
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
    const ir = this.#which === "before" ? graphs.before : graphs.after;
    const wrap = h("div", { class: "graph-wrap", "data-state": "layout" }, h("p", { class: "empty busy" }, `laying out ${ir.nodes.length} nodes…`));
    this.#root.append(wrap);
    this.#layout(ir).then((l) => {
      // Dropped when superseded or when the view was redrawn meanwhile.
      if (!l || !wrap.isConnected) return;
      wrap.replaceChildren(this.#svg(ir, l));
      wrap.dataset.state = "done";
    }, (e: Error) => {
      if (!wrap.isConnected) return;
      wrap.replaceChildren(h("p", { class: "error" }, `graph layout failed: ${e.message}`));
      wrap.dataset.state = "failed";
    });
    this.#root.append(h("div", { class: "legend" },
      h("span", {}, h("i", { class: "lg input" }), "input"), h("span", {}, h("i", { class: "lg param" }), "parameter"),
      h("span", {}, h("i", { class: "lg compute" }), "op"), h("span", {}, h("i", { class: "lg fused" }), "fused op"),
      h("span", {}, h("i", { class: "lg output" }), "graph output")));
  }

  /** Marks the nodes whose source spans cover `line` of the compiled source `lines`. */
  selectLine(line: number, lines: SourceLines): void {
    this.#selected = { line, lines };
    this.#chosen = undefined;
    this.#markSelected();
  }

  #markSelected(): void {
    for (const el of this.#marked) {
      el.classList.remove("selected");
      el.setAttribute("aria-selected", "false");
    }
    this.#marked = [];
    if (!this.#drawn) return;
    const { ir, els } = this.#drawn;
    for (const id of this.#selectedIds(ir)) {
      const el = els.get(id);
      if (!el) continue;
      el.classList.add("selected");
      el.setAttribute("aria-selected", "true");
      this.#marked.push(el);
    }
    if (this.#marked.length) this.#drawn.focus.setCurrentItem(this.#marked[0]);  // Tab lands on the selection
  }

  #selectedIds(ir: IrGraph): number[] {
    if (this.#chosen) return this.#chosen.ir === ir ? [this.#chosen.id] : [];
    if (!this.#selected) return [];
    return this.#lineIndex(ir, this.#selected.lines).at(this.#selected.line);
  }

  /** Makes the node-by-line indexes of the graphs ahead of the first cursor move (when idle). */
  prepareLines(lines: SourceLines): void {
    if (this.#graphs) for (const ir of [this.#graphs.after, this.#graphs.before]) this.#lineIndex(ir, lines);
  }

  #lineIndex(ir: IrGraph, lines: SourceLines): LineIndex<number> {
    let byLine = this.#byLine.get(ir);
    if (byLine?.lines !== lines) {
      byLine = { lines, index: new LineIndex(ir.nodes.map((n) => [n.span.line, lines.lastLine(n.span), n.id] as const)) };
      this.#byLine.set(ir, byLine);
    }
    return byLine.index;
  }

  /** The layout of an IR graph: made once (in the worker), then reused by zoom and the before/after toggle. */
  #layout(ir: IrGraph): Promise<LayoutResult | null> {
    let p = this.#layouts.get(ir);
    if (!p) {
      const nodes = ir.nodes.map((n) => {
        const title = n.role === "compute" ? n.label : n.role;
        const type = n.type ? n.type.text : "";
        return { id: String(n.id), width: Math.max(70, 7 * Math.max(n.name.length, title.length, type.length) + 16), height: 46 };
      });
      p = this.#client.layout(nodes, ir.edges.map(([a, b]) => [String(a), String(b)] as [string, string]));
      this.#layouts.set(ir, p);
      // A superseded or failed layout is made again the next time it is shown.
      p.then((l) => l || this.#layouts.delete(ir), () => this.#layouts.delete(ir));
    }
    return p;
  }

  #svg(ir: IrGraph, g: LayoutResult): SVGSVGElement {
    const els = new Map<number, SVGGElement>();
    const outputs = new Map<number, string[]>();
    for (const o of ir.outputs) outputs.set(o.node, [...(outputs.get(o.node) ?? []), o.name]);
    const { width, height } = g;
    const svg = s("svg", { viewBox: `0 0 ${width} ${height}`, class: "graph-svg", width: Math.round(width * this.#zoom), height: Math.round(height * this.#zoom),
                           role: "group", "aria-label": `IR graph ${ir.name}` });
    svg.append(s("defs", {}, s("marker", { id: "arrow", viewBox: "0 0 8 8", refX: 7, refY: 4, markerWidth: 7, markerHeight: 7, orient: "auto" },
      s("path", { d: "M0,0 L8,4 L0,8 z", class: "arrow" }))));
    for (const pts of g.edges) {
      const d = pts.map((p, i) => `${i ? "L" : "M"}${p.x.toFixed(1)},${p.y.toFixed(1)}`).join(" ");
      svg.append(s("path", { d, class: "edge", "marker-end": "url(#arrow)", "aria-hidden": "true" }));
    }
    const list = s("g", { role: "listbox", "aria-label": `${ir.nodes.length} nodes of ${ir.name}`, "aria-multiselectable": "true" });
    const items: SVGGElement[] = [];
    for (const n of ir.nodes) {
      const box = g.nodes[String(n.id)];
      const fused = n.op.startsWith("fused_");
      const outs = outputs.get(n.id);
      const cls = `node ${n.role}${fused ? " fused" : ""}${outs ? " output" : ""}`;
      const x = box.x - box.width / 2, y = box.y - box.height / 2;
      const title = n.role === "compute" ? n.label : n.role;
      const where = n.span.line ? `, line ${n.span.line}` : "";
      const el = s("g", { class: cls, "data-node": n.id, role: "option", "aria-selected": "false",
                          "aria-label": `${title} ${n.name}${outs ? ` (output ${outs.join(", ")})` : ""}${n.type ? `: ${n.type.text}` : ""}${where}` },
        s("rect", { x, y, width: box.width, height: box.height, rx: 7 }),
        s("text", { x: box.x, y: y + 15, "text-anchor": "middle", class: "node-op" }, title),
        s("text", { x: box.x, y: y + 28, "text-anchor": "middle", class: "node-name" }, n.name + (outs ? ` → ${outs.join(", ")}` : "")),
        s("text", { x: box.x, y: y + 40, "text-anchor": "middle", class: "node-type" }, n.type ? n.type.text : ""),
        s("title", {}, `%${n.id} ${n.name} = ${n.label}${n.span.line ? `\nline ${n.span.line}:${n.span.column}` : ""}`));
      els.set(n.id, el);
      items.push(el);
      el.addEventListener("mouseenter", () => this.#cb.onHover(n));
      el.addEventListener("mouseleave", () => this.#cb.onHover(null));
      list.append(el);
    }
    svg.append(list);
    const points = ir.nodes.map((n) => g.nodes[String(n.id)]);
    const move = spatialMove(points);
    const focus = new RovingFocus(list, items, {
      move,
      choose: (i) => {
        this.#chosen = { ir, id: ir.nodes[i].id };
        this.#selected = undefined;
        this.#markSelected();
        this.#cb.onSelect(ir.nodes[i]);
      },
      focus: (i) => this.#cb.onHover(ir.nodes[i]),
      blur: () => this.#cb.onHover(null),
    }, move(0, "Home"));
    if (this.#zoom === 1) svg.setAttribute("style", "max-width:100%;height:auto");
    this.#drawn = { ir, els, focus };
    this.#markSelected();
    return svg;
  }
}
