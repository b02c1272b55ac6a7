// The Tape tab: one table row per compiled instruction. Hovering a row
// highlights the source it came from; a source line selects the rows it
// produced; a memory buffer hovered in the plan chart marks its rows. From
// the keyboard the table is one Tab stop (an ARIA grid of focusable rows):
// arrows, Home and End move, Space selects, Enter jumps to the source.
import type { TapeDump, TapeInstruction } from "../../js/dist/shrew.min.js";
import { h } from "./dom.js";
import { formatBytes, formatShape } from "./format.js";
import { LineIndex } from "./line-index.js";
import { listMove, RovingFocus } from "./roving-focus.js";
import type { SourceLines } from "./source-lines.js";

// Rows drawn at first: a table of tens of thousands of rows takes the
// browser seconds to lay out, so longer tapes draw the rest on request.
const ROW_LIMIT = 1000;

export interface TapeCallbacks {
  onHover(instr: TapeInstruction | null): void;
  /** A row chosen from the keyboard: it stays marked and its source highlighted; `jump` (Enter): the cursor goes there. */
  onSelect(instr: TapeInstruction, jump: boolean): void;
}

export class TapeView {
  readonly #root: HTMLElement;
  readonly #cb: TapeCallbacks;
  #rows: HTMLTableRowElement[] = [];
  #focus: RovingFocus | undefined;
  #tape: TapeDump | undefined;
  /** Instructions by the source lines they came from: made once per compile. */
  #byLine: { lines: SourceLines; index: LineIndex<number> } | undefined;
  /** Rows carrying each marking class, so a new marking touches only those rows. */
  readonly #marked = new Map<string, number[]>();

  constructor(root: HTMLElement, cb: TapeCallbacks) {
    this.#root = root;
    this.#cb = cb;
  }

  /** `note`: why there is no tape yet; `compiledFor`: what a per-type compile was made for. */
  render(tape: TapeDump | undefined, note?: string, compiledFor?: string, all = false): void {
    if (tape !== this.#tape) this.#byLine = undefined;
    this.#tape = tape;
    this.#marked.clear();
    this.#rows = [];
    this.#focus = undefined;
    this.#root.replaceChildren();
    if (!tape) {
      this.#root.append(h("p", { class: note ? "empty pending" : "empty" }, note ?? "Nothing compiled yet."));
      return;
    }
    const fused = tape.instructions.filter((i) => i.fused).length;
    const frees = tape.instructions.filter((i) => i.opcode === "free").length;
    this.#root.append(h("p", { class: "lede" },
      `${tape.instructions.length} instructions (${frees} frees, ${fused} fused) over ${tape.num_slots} slots. `,
      "The JIT runs this list top to bottom, one kernel call per row, with every slot and arena offset fixed in advance.",
      tape.bound ? "" : " Sizes appear after the first run binds the symbolic dims.",
      compiledFor ? h("span", { "data-testid": "compiled-for" }, ` Compiled for ${compiledFor}.`) : ""));
    const head = h("tr", {}, ...["#", "op", "operands → result", "shape", "dtype", "arena", "fused"].map((c) => h("th", {}, c)));
    const body = h("tbody");
    const shown = all ? tape.instructions : tape.instructions.slice(0, ROW_LIMIT);
    this.#rows = shown.map((ins) => {
      const fusedTitle = ins.fused
        ? ins.fused_nodes.length
          ? `JIT-fused: ${ins.fused_nodes.map((n) => `${n.op} (${n.name}, line ${n.span.line})`).join(", ")} folded into ${ins.node.op}`
          : `${ins.node.op}: fused by the optimiser`
        : "";
      const arena = ins.offset === null
        ? ins.opcode === "load_param" ? "param" : ins.opcode === "constant" ? "constant" : "–"
        : `@${ins.offset} +${formatBytes(ins.size)}`;
      const extra = ins.in_place_of !== null
        ? h("span", { class: "badge reuse", title: `written in place over %${ins.in_place_of}, which dies here` }, "in-place")
        : ins.alias_of !== null ? h("span", { class: "badge reuse", title: `shares the storage of %${ins.alias_of}` }, "alias") : null;
      const row = h("tr", { class: `op-${ins.opcode}${ins.fused ? " fused" : ""}`, "data-index": ins.index, "aria-selected": "false",
                                title: `${ins.text}${ins.kernel ? `\nkernel: ${ins.kernel}${ins.ref ? " (reference fallback)" : ""}` : ""}` },
        h("td", { class: "num" }, String(ins.index)),
        h("td", { class: "op" }, ins.op, ins.opcode === "load_input" || ins.opcode === "load_param" ? h("span", { class: "name" }, ` ${ins.node.name}`) : null),
        h("td", { class: "slots" }, ins.operands.length ? `${ins.operands.map((s) => `%${s}`).join(", ")} → ` : "", h("b", {}, ins.results.map((s) => `%${s}`).join(", "))),
        h("td", { class: "shape" }, formatShape(ins.shape)),
        h("td", {}, ins.dtype),
        h("td", { class: "arena" }, arena, extra),
        h("td", { class: "fused-cell" }, ins.fused ? h("span", { class: "badge fused", title: fusedTitle }, "fused") : "",
          ins.ref ? h("span", { class: "badge ref", title: `${ins.kernel}: the reference fallback, no XNNPACK kernel` }, "ref") : null),
      );
      row.addEventListener("mouseenter", () => {
        this.#mark("hover", [ins.index]);
        this.#cb.onHover(ins);
      });
      row.addEventListener("mouseleave", () => {
        this.#mark("hover", []);
        this.#cb.onHover(null);
      });
      return row;
    });
    // One by one: append(...rows) of a 140,000-row tape is more arguments than a call takes.
    for (const row of this.#rows) body.append(row);
    // A focused row shows its source like a hover.
    this.#focus = new RovingFocus(body, this.#rows, {
      move: listMove(this.#rows.length),
      choose: (i, key) => {
        this.#mark("selected", [i]);
        this.#cb.onSelect(tape.instructions[i], key === "Enter");
      },
      focus: (i) => {
        this.#mark("hover", [i]);
        this.#cb.onHover(tape.instructions[i]);
      },
      blur: () => {
        this.#mark("hover", []);
        this.#cb.onHover(null);
      },
    });
    // Header row plus every instruction, when only the first rows are drawn.
    const rowCount = shown.length < tape.instructions.length ? tape.instructions.length + 1 : undefined;
    this.#root.append(h("div", { class: "table-wrap" }, h("table", {
      class: "tape", "data-testid": "tape-table", role: "grid", "aria-label": "Tape instructions", "aria-readonly": "true",
      "aria-multiselectable": "true", "aria-rowcount": rowCount,
    }, h("thead", {}, head), body)));
    if (shown.length < tape.instructions.length) {
      const more = h("button", { "data-testid": "tape-more" }, `Show all ${tape.instructions.length} instructions`);
      more.addEventListener("click", () => {
        this.render(tape, note, compiledFor, true);
        this.#focus?.focusItem(shown.length);  // the button is gone: the focus goes on to the first row it added
      });
      this.#root.append(h("p", { class: "hint" }, `Showing the first ${shown.length} of ${tape.instructions.length} instructions. `, more));
    }
  }

  /** Marks the rows whose source spans cover `line` of the compiled source `lines`. */
  selectLine(line: number, lines: SourceLines): number[] {
    const index = this.prepareLines(lines);
    if (!index) return [];
    // An instruction with several spans on the line is found once per span.
    const hits = [...new Set(index.at(line))].sort((a, b) => a - b);
    this.#mark("selected", hits);
    if (this.#rows[hits[0]]) {
      this.#rows[hits[0]].scrollIntoView({ block: "nearest" });
      this.#focus?.setCurrent(hits[0]);  // Tab into the tape lands on the line's first row
    }
    return hits;
  }

  /** The rows by source line, made once per tape and source (ahead of the first cursor move, when idle). */
  prepareLines(lines: SourceLines): LineIndex<number> | undefined {
    if (!this.#tape) return undefined;
    if (this.#byLine?.lines !== lines) {
      const ranges = this.#tape.instructions.filter((i) => i.opcode !== "free")
        .flatMap((i) => i.spans.map((s) => [s.line, lines.lastLine(s), i.index] as const));
      this.#byLine = { lines, index: new LineIndex(ranges) };
    }
    return this.#byLine.index;
  }

  /** Marks rows by index with a CSS class (hover from other views), unmarking the rows it marked before. */
  #mark(cls: string, indices: number[]): void {
    const selected = cls === "selected";  // also told to assistive technology
    for (const i of this.#marked.get(cls) ?? []) {
      this.#rows[i]?.classList.remove(cls);
      if (selected) this.#rows[i]?.setAttribute("aria-selected", "false");
    }
    for (const i of indices) {
      this.#rows[i]?.classList.add(cls);
      if (selected) this.#rows[i]?.setAttribute("aria-selected", "true");
    }
    this.#marked.set(cls, indices);
  }

  /** Rows touching these slots (a memory buffer hovered). */
  markSlots(slots: readonly number[]): void {
    if (!this.#tape) return;
    const set = new Set(slots);
    this.#mark("linked", this.#tape.instructions.filter((i) => i.opcode !== "free" && i.results.some((s) => set.has(s))).map((i) => i.index));
  }
}
