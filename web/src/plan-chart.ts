// The Memory tab: every arena buffer as a rectangle over (tape step ×
// arena offset). Buffers whose lifetimes do not overlap share offsets; the
// bars under the chart compare the arena with the lower bound (most bytes
// alive at once) and the naive total (one buffer per value). The buffers
// are an ARIA listbox, one Tab stop: arrows move by the chart's layout,
// Enter or Space selects a buffer and marks where it is written.
import type { TapeDump } from "../../js/dist/shrew.min.js";
import { h, s } from "./dom.js";
import { formatBytes } from "./format.js";
import type { PlanBuffer, PlanDump } from "./protocol.js";
import { RovingFocus } from "./roving-focus.js";
import { spatialMove } from "./spatial-move.js";

export interface PlanCallbacks {
  /** A buffer hovered or focused; null: left. */
  onHover(buffer: PlanBuffer | null): void;
  /** A buffer chosen from the keyboard (Enter or Space). */
  onSelect(buffer: PlanBuffer): void;
}

const COLORS = { value: "#4c7bd9", input: "#2a9d8f", workspace: "#c98a1b" };

/** `pending`: why there is no plan yet (a graph compiled when it first runs). */
export function renderPlan(root: HTMLElement, plan: PlanDump | undefined, tape: TapeDump | undefined, cb: PlanCallbacks,
                           pending?: string): void {
  root.replaceChildren();
  if (!plan || !tape) {
    root.append(h("p", { class: pending ? "empty pending" : "empty" }, pending ?? "Nothing compiled yet."));
    return;
  }
  if (!plan.bound) {
    root.append(h("p", { class: "empty" }, "The plan is made when the symbolic dims are bound; the warm-up run failed, see Run."));
    return;
  }
  const arena = plan.arena_bytes ?? 0, lower = plan.lower_bound ?? 0, naive = plan.naive ?? 0;
  // A loop, not Math.max(...): a tape of 100,000 instructions is more arguments than a call takes.
  let steps = 1;
  for (const i of tape.instructions) steps = Math.max(steps, i.time + 1);
  for (const b of plan.buffers) steps = Math.max(steps, b.last + 1);
  const names = new Map(plan.values.map((v) => [v.slot, v.name]));
  root.append(h("p", { class: "lede" },
    `${count(plan.buffers.length, "buffer")} in one arena of ${formatBytes(arena)}. `,
    "Each rectangle is a buffer: it spans the tape steps where its value is alive, at its arena offset. ",
    "Values that are never alive together share bytes."));

  const W = 720, H = 300, left = 64, right = 12, top = 10, bottom = 34;
  const yMax = Math.max(arena, 1);
  const x = (t: number) => left + (t / steps) * (W - left - right);
  const y = (off: number) => top + (off / yMax) * (H - top - bottom);
  const svg = s("svg", { viewBox: `0 0 ${W} ${H}`, class: "plan-svg", role: "group", "aria-label": "memory plan" });
  // Axes and grid.
  svg.append(s("rect", { x: left, y: top, width: W - left - right, height: H - top - bottom, class: "plot-bg" }));
  // Ticks at whole bytes, so no two read the same: fewer under 4 B, one at 0 for an empty arena.
  const ticks = Math.min(4, arena);
  for (let k = 0; k <= ticks; k++) {
    const off = ticks ? Math.round((arena * k) / ticks) : 0;
    svg.append(s("line", { x1: left, x2: W - right, y1: y(off), y2: y(off), class: "grid" }),
      s("text", { x: left - 6, y: y(off) + 4, class: "axis-label", "text-anchor": "end" }, formatBytes(off)));
  }
  const xticks = Math.min(steps, 10);
  for (let k = 0; k <= xticks; k++) {
    const t = Math.round((steps * k) / xticks);
    svg.append(s("text", { x: x(t), y: H - bottom + 14, class: "axis-label", "text-anchor": "middle" }, String(t)));
  }
  svg.append(s("text", { x: (left + W - right) / 2, y: H - 4, class: "axis-title", "text-anchor": "middle" }, "tape step (frees not counted) →"),
    s("text", { x: 12, y: top + (H - top - bottom) / 2, class: "axis-title", "text-anchor": "middle",
                transform: `rotate(-90 12 ${top + (H - top - bottom) / 2})` }, "arena offset ↓"));
  if (lower > 0 && lower < arena) {
    svg.append(s("line", { x1: left, x2: W - right, y1: y(lower), y2: y(lower), class: "bound-line" }),
      s("text", { x: W - right - 4, y: y(lower) - 4, class: "bound-label", "text-anchor": "end" }, `lower bound ${formatBytes(lower)}`));
  }
  const list = s("g", { role: "listbox", "aria-label": count(plan.buffers.length, "arena buffer") });
  const items: SVGGElement[] = [];
  const points: { x: number; y: number }[] = [];
  for (const b of plan.buffers) {
    const label = b.kind === "workspace" ? "workspace" : b.slots.map((sl) => `%${sl} ${names.get(sl) ?? ""}`).join(", ");
    const rx = x(b.first), rw = Math.max(2, x(b.last + 1) - x(b.first) - 1);
    const ry = y(b.offset), rh = Math.max(2, y(b.offset + b.size) - y(b.offset) - 0.5);
    const what = `buffer ${b.id} (${b.kind}): ${label}`, where = `@${b.offset} +${formatBytes(b.size)}, alive at steps ${b.first}–${b.last}`;
    const g = s("g", { class: "buffer", "data-buffer": b.id, role: "option", "aria-selected": "false", "aria-label": `${what}, ${where}` },
      s("rect", { x: rx, y: ry, width: rw, height: rh, rx: 2, fill: COLORS[b.kind] }),
      s("title", {}, `${what}\n${where}`));
    if (rh > 13 && rw > 40) {
      g.append(s("text", { x: rx + 4, y: ry + Math.min(rh / 2 + 4, 14), class: "buffer-label" }, truncate(label, Math.floor(rw / 6.5))));
    }
    g.addEventListener("mouseenter", () => {
      g.classList.add("hover");
      cb.onHover(b);
    });
    g.addEventListener("mouseleave", () => {
      g.classList.remove("hover");
      cb.onHover(null);
    });
    list.append(g);
    items.push(g);
    points.push({ x: rx, y: ry });
  }
  svg.append(list);
  const move = spatialMove(points);
  let chosen: SVGGElement | undefined;
  new RovingFocus(list, items, {
    move,
    choose: (i) => {
      chosen?.classList.remove("selected");
      chosen?.setAttribute("aria-selected", "false");
      chosen = items[i];
      chosen.classList.add("selected");
      chosen.setAttribute("aria-selected", "true");
      cb.onSelect(plan.buffers[i]);
    },
    focus: (i) => cb.onHover(plan.buffers[i]),
    blur: () => cb.onHover(null),
  }, move(0, "Home"));
  root.append(h("div", { class: "chart-wrap" }, svg));

  // The three totals as bars on one scale.
  const max = Math.max(naive, arena, lower, 1);
  const bar = (name: string, v: number, cls: string, note: string) =>
    h("div", { class: "bar-row", "data-field": name },
      h("span", { class: "bar-name" }, name),
      h("span", { class: "bar-track" }, h("span", { class: `bar ${cls}`, style: `width:${Math.max(0.5, (v / max) * 100)}%` })),
      h("span", { class: "bar-value" }, formatBytes(v)),
      h("span", { class: "bar-note" }, note));
  root.append(h("div", { class: "bars" },
    bar("arena", arena, "arena", naive ? `${Math.round((1 - arena / naive) * 100)}% below naive` : ""),
    bar("lower bound", lower, "lower", "peak of live bytes"),
    bar("naive", naive, "naive", "no reuse")),
    h("div", { class: "legend" },
      ...Object.entries(COLORS).map(([k, c]) => h("span", {}, h("i", { style: `background:${c}` }), k))));
}

/** "1 buffer", "0 buffers", "2 buffers". */
function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}

function truncate(t: string, n: number): string {
  return t.length <= n ? t : `${t.slice(0, Math.max(1, n - 1))}…`;
}
