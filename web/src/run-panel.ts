// The Run tab: inputs (seeded random, integer ranges, or pasted numbers),
// N timed runs on the JIT and on the reference interpreter, and the outputs
// as tables with a heatmap for 2-D results.
import type { Signature } from "../../js/dist/shrew.min.js";
import { appendAll, h } from "./dom.js";
import { exactText, formatClocked, formatMs, formatShape, formatValue } from "./format.js";
import { heatmap } from "./heatmap.js";
import { inputRow, rowKey, type Draft, type InputRow } from "./input-row.js";
import { FieldNote } from "./integer-field.js";
import { recordOf } from "./own.js";
import type { InputSource, OutputTensor, RunFailed, RunOk, RunProfile } from "./protocol.js";

export interface RunSettings {
  seed: bigint;
  runs: number;
  inputs: Record<string, InputSource>;
}

export interface RunCallbacks {
  /**
   * Runs the graph shown, on the program as compiled after every change made
   * before the click; undefined when there is nothing to run, or when the
   * program was recompiled while it ran (the answer is not for it).
   */
  onRun(settings: RunSettings): Promise<RunOk | RunFailed | undefined>;
  /** A seed typed (also the one the field showed already: typed, it applies to every program). */
  onSeed(seed: bigint): void;
}

const MAX_ROWS = 64, MAX_COLS = 32, MAX_RUNS = 10000;
/** Seeds are u64s, as `shrew run --seed` takes (`@config { seed: -1; }` is 2^64 - 1). */
const MAX_SEED = 2n ** 64n - 1n;

export class RunPanel {
  readonly #root: HTMLElement;
  readonly #cb: RunCallbacks;
  readonly #drafts = new Map<string, Draft>();
  #seed: bigint;
  #runs: number;
  #result: HTMLElement = h("div", { class: "run-result" });
  // The controls are made once: a recompile (a new seed or dim commits on
  // blur, when the mouse goes down on Run) must not replace the button
  // under the mouse, or the click is lost.
  readonly #controls: HTMLElement;
  readonly #button: HTMLButtonElement;
  readonly #notes = h("div", { class: "run-notes" });
  /** The seed and run count as typed: whole numbers in range, else undefined with the reason shown. */
  readonly #readSeed: () => bigint | undefined;
  readonly #seedField: HTMLInputElement;
  /** Typed into since the field last took a seed: leaving it (or Enter) makes that the typed seed. */
  #seedTyped = false;
  readonly #readRuns: () => number | undefined;
  /** The form's fields as built, per input (see rowKey): rebuilt only when they change. */
  #formKey = "";
  #rows: InputRow[] = [];
  /** Counts runs and form rebuilds: a run's answer shows only if no newer run or other form came since. */
  #token = 0;
  #running = false;
  /** The result shown says Stop ended the run: the recompile after it keeps it (it is no result of the program before). */
  #stopShown = false;

  constructor(root: HTMLElement, cb: RunCallbacks, seed: bigint, runs: number) {
    this.#root = root;
    this.#cb = cb;
    this.#seed = seed;
    this.#runs = runs;
    // A text field: a number field would show and step 2^64 - 1 as a rounded double.
    const seedField = h("input", { type: "text", inputmode: "numeric", value: String(seed), size: 12, spellcheck: false,
                                   autocomplete: "off", "aria-label": "seed", id: "run-seed" });
    const seedNote = new FieldNote([seedField], "seed-error");
    this.#readSeed = () => seedNote.readBig("seed", 0n, MAX_SEED);
    this.#seedField = seedField;
    // Typed, a seed is the user's, even the value the field already showed (the
    // program's own): a change event only comes when the text differs, so
    // typing is noted and committed on leaving the field or Enter.
    const commit = () => {
      if (!this.#seedTyped) return;
      const v = this.#readSeed();
      if (v === undefined) return;
      this.#seedTyped = false;
      this.#seed = v;
      this.#cb.onSeed(v);
    };
    seedField.addEventListener("input", () => (this.#seedTyped = true));
    seedField.addEventListener("change", commit);
    seedField.addEventListener("blur", commit);
    seedField.addEventListener("keydown", (ev) => {
      if (ev.key === "Enter") commit();
    });
    const runsField = h("input", { type: "number", value: runs, min: 1, max: MAX_RUNS, step: 1, "aria-label": "timed runs", id: "run-count",
      title: "At least this many runs on each executor; more when they take under 20 steps of the browser's clock (2 ms), which times them" });
    const runsNote = new FieldNote([runsField], "runs-error");
    this.#readRuns = () => runsNote.read("timed runs", 1, MAX_RUNS);
    runsField.addEventListener("change", () => {
      this.#runs = this.#readRuns() ?? this.#runs;
    });
    this.#button = h("button", { class: "primary", "data-testid": "run-button" });
    this.#button.addEventListener("click", () => void this.#run());
    this.#controls = h("div", { class: "run-controls" }, h("label", {}, "seed ", seedField), seedNote.el,
      h("label", {}, "timed runs ", runsField), runsNote.el, this.#button);
  }

  get seed(): bigint {
    return this.#seed;
  }

  /**
   * The seed the program was compiled with: the one chosen here, or, until
   * one is, the program's own (`@config { seed: N; }`, else 0), which the
   * field then shows. Random inputs take it, as `shrew run` does: exactly,
   * past 2^53 - 1 too (a negative @config seed is taken modulo 2^64). A
   * field being edited is left alone.
   */
  compiledWith(seed: bigint): void {
    if (seed === this.#seed || document.activeElement === this.#seedField) return;
    this.#seed = seed;
    this.#seedField.value = String(seed);
    this.#seedTyped = false;
  }

  /**
   * Whether the graph shown can be run: not while it is the last program
   * that compiled rather than the source's (`why`, the button's title, says so).
   */
  setRunnable(why: string | undefined): void {
    this.#button.disabled = why !== undefined;
    this.#button.title = why ?? "";
  }

  async #run(): Promise<void> {
    const token = ++this.#token;
    this.#stopShown = false;
    // Every field is read before anything runs: one that does not hold what it
    // says stops the run and says why, next to itself and here; nothing is sent.
    const seedOk = this.#readSeed() !== undefined, runs = this.#readRuns();
    const sources = this.#rows.map((r) => r.source());
    if (!seedOk || runs === undefined || sources.includes(undefined)) {
      this.#running = false;  // an answer still to come is for an earlier click
      const problems = [...this.#root.querySelectorAll<HTMLElement>(".field-error:not([hidden])")].map((e) => e.textContent ?? "");
      this.#result.replaceChildren(h("p", { class: "error", "data-testid": "run-blocked" }, `Not run: ${problems.join("\n")}`));
      this.#root.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
      return;
    }
    this.#runs = runs;
    this.#running = true;
    this.#result.replaceChildren(h("p", { class: "busy" }, "running…"));
    try {
      const inputs = recordOf(this.#rows.map((r, i) => [r.name, sources[i]!] as const));
      const r = await this.#cb.onRun({ seed: this.#seed, runs, inputs });
      if (token !== this.#token) return;  // another run, or another graph's form, came meanwhile
      // undefined: it ran on a program recompiled since, whose results these are not.
      if (!r) this.#result.replaceChildren();
      else if (r.ok) this.#showResult(r);
      else this.#showError(r.message, r.stopped === true);
    } finally {
      if (token === this.#token) this.#running = false;
    }
  }

  /**
   * Shows the input form for a graph. The same fields as shown (a recompile
   * with another seed or dim) are kept and their types updated; other
   * fields are built anew (what was typed is kept per input name).
   */
  render(sig: Signature | undefined, dims: Record<string, number>, bindError?: string): void {
    if (!sig) {
      this.#token++;
      this.#formKey = "";
      this.#root.replaceChildren(h("p", { class: "empty" }, "Nothing compiled yet."));
      return;
    }
    this.#button.textContent = `Run ${sig.name}`;
    const key = JSON.stringify([sig.name, ...sig.inputs.map(rowKey)]);
    if (key !== this.#formKey) {
      // Results belong to the graph they ran on: another form drops them.
      this.#token++;
      this.#running = false;
      this.#formKey = key;
      this.#stopShown = false;
      this.#result = h("div", { class: "run-result" });
      this.#rows = sig.inputs.map((input) => inputRow(input, this.#drafts.get(input.name), dims,
                                                      (draft) => this.#drafts.set(input.name, draft)));
      const inputs = h("div", { class: "inputs" });
      appendAll(inputs, this.#rows.map((r) => r.el));
      this.#root.replaceChildren(this.#controls,
        h("p", { class: "hint", "data-testid": "seed-hint" }, "Symbolic dims are set at the top; the same seed makes the same inputs and parameters as ",
          h("code", {}, "shrew run --seed"), ". Until one is typed, the seed is the program's own (",
          h("code", {}, "@config { seed: N; }"), ", else 0), as for ", h("code", {}, "shrew run"), " without ", h("code", {}, "--seed"), "."),
        this.#notes, inputs, this.#result);
    } else {
      sig.inputs.forEach((input, i) => this.#rows[i].update(input, dims));
      // A result shown is of the program before this compile; a run under way
      // is answered for the program it ran on (onRun says when that is stale).
      if (!this.#running && !this.#stopShown) this.#result.replaceChildren();
      this.#stopShown = false;  // kept over the recompile that Stop starts, not over the next
    }
    const unknown = sig.inputs.filter((i) => i.dtype === null || i.shape === null).map((i) => `'${i.name}'`);
    const optional = sig.inputs.filter((i) => i.optional).map((i) => `'${i.name}'`);
    this.#notes.replaceChildren(
      optional.length ? h("p", { class: "hint", "data-testid": "optional-inputs" },
        `${optional.join(", ")} ${optional.length > 1 ? "are optional inputs" : "is an optional input"}: "leave out" runs ${sig.name} without one, `,
        "as run() may (a graph that reads it then fails naming it). ", h("code", {}, "shrew run"),
        " leaves one out unless given: leave it out here too for the same random inputs.") : "",
      bindError ? h("p", { class: "warn" }, `Warm-up run with random inputs failed: ${bindError}`) : "",
      unknown.length ? h("p", { class: "hint", "data-testid": "unknown-inputs" },
        `${unknown.join(", ")} ${unknown.length > 1 ? "have" : "has"} an unknown type (?): choose a dtype and a shape (sizes such as 2,3; empty for a scalar). `,
        `${sig.name} is compiled for them when it runs; the Tape, Memory and Stats tabs then show that compile.`) : "");
  }

  #showError(message: string, stopped = false): void {
    this.#result.replaceChildren(h("p", { class: "error", "data-testid": "run-error" }, message));
    this.#stopShown = stopped;
  }

  #showResult(r: RunOk): void {
    const speed = r.interpMs > 0 && r.jitMs > 0 ? r.interpMs / r.jitMs : 0;
    const timing = h("div", { class: "timing", "data-testid": "timing", "data-asked": r.runs },
      h("div", { class: "card" }, h("div", { class: "card-title" }, "JIT tape"), h("div", { class: "card-value" }, formatMs(r.jitMs)), h("div", { class: "card-note", "data-runs": r.jitRuns }, `${r.jitRuns} runs, median of batches`)),
      h("div", { class: "card" }, h("div", { class: "card-title" }, "interpreter"), h("div", { class: "card-value" }, formatMs(r.interpMs)), h("div", { class: "card-note", "data-runs": r.interpRuns }, `${r.interpRuns} runs, median of batches`)),
      h("div", { class: "card" }, h("div", { class: "card-title" }, "speed-up"), h("div", { class: "card-value" }, speed ? `${speed.toFixed(1)}×` : "–"),
        h("div", { class: "card-note" }, `max |JIT − interp| = ${r.maxAbsDiff.toExponential(1)}`)));
    const cut = r.jitRuns < r.runs || r.interpRuns < r.runs
      ? h("p", { class: "hint", "data-testid": "timing-cut" }, `Timing stopped at its time budget before all ${r.runs} runs were made: the times are over the runs made.`) : "";
    const coarse = r.coarse ? h("p", { class: "hint", "data-testid": "timing-coarse" }, `Some timed batches took under ${formatClocked(20 * r.clockMs, r.clockMs)}, ` +
      `close to the browser's timer resolution (${formatClocked(r.clockMs, r.clockMs)}): raise the number of runs for steadier times.`) : "";
    const used = h("details", { class: "inputs-used" }, h("summary", {}, "inputs used"));
    appendAll(used, r.inputs.map((o) => outputBlock(o, "input")));
    this.#result.replaceChildren(timing, cut, coarse, r.profile ? profileBlock(r.profile, r.clockMs) : "");
    appendAll(this.#result, r.jit.map((o) => outputBlock(o, "output")));
    this.#result.append(used);
  }
}

/**
 * Where the JIT's time goes (Program.profile): per operation, then the
 * dearest instructions, numbered as the Tape tab numbers them.
 */
function profileBlock(p: RunProfile, clockMs: number): HTMLElement {
  const pct = (share: number) => `${(100 * share).toFixed(1)}%`;
  const steps = clockMs > 0 ? (p.runs * p.kernelsMs) / clockMs : Infinity;
  const name = { class: "name" };
  const opRows = p.ops.map((o) => h("tr", { "data-op": o.op }, h("td", name, o.op), h("td", {}, String(o.count)),
    h("td", { "data-ms": String(o.ms) }, formatMs(o.ms)), h("td", {}, pct(o.share))));
  const topRows = p.top.map((i) => h("tr", { "data-index": i.index }, h("td", {}, String(i.index)), h("td", name, i.op),
    h("td", name, i.node), h("td", name, i.shape), h("td", { "data-ms": String(i.ms) }, formatMs(i.ms)), h("td", {}, pct(i.share)),
    h("td", {}, i.line > 0 ? String(i.line) : "")));
  const table = (head: string[], named: string[], rows: HTMLElement[], testid: string) => h("div", { class: "table-wrap small" },
    h("table", { class: "values", "data-testid": testid },
      h("thead", {}, h("tr", {}, ...head.map((c) => h("th", named.includes(c) ? name : {}, c)))), h("tbody", {}, ...rows)));
  return h("details", { class: "profile", open: true, "data-testid": "profile", "data-runs": p.runs },
    h("summary", {}, `Where the JIT's time goes: ${formatMs(p.kernelsMs)} of kernels per run`),
    h("p", { class: "hint" }, `Each kernel timed over ${p.runs} runs (its mean: the browser's clock steps by ${formatMs(clockMs)})` +
      (steps < 400 ? `; the kernels' time over all of them spans only ${Math.round(steps)} steps, so the figures are rough.` : ".")),
    table(["operation", "count", "time", "share"], ["operation"], opRows, "profile-ops"),
    table(["#", "operation", "node", "shape", "time", "share", "line"], ["operation", "node", "shape"], topRows, "profile-top"));
}

const INTEGER_DTYPES = new Set(["i32", "i64", "u8", "bool"]);

/** A tensor as a 2-D table (leading dims flattened into rows) plus a heatmap when it is 2-D. */
function outputBlock(t: OutputTensor, kind: "output" | "input"): HTMLElement {
  const cols = t.shape.length === 0 ? 1 : t.shape[t.shape.length - 1];
  const rows = cols === 0 ? 0 : t.data.length / cols;
  const shown = Math.min(rows, MAX_ROWS), shownCols = Math.min(cols, MAX_COLS);
  const body = h("tbody");
  for (let r = 0; r < shown; r++) {
    const tr = h("tr", {}, h("th", {}, String(r)));
    for (let c = 0; c < shownCols; c++) {
      // Integers as they are (an i64 from its exact value: doubles round beyond 2^53).
      const exact = t.exact ? String(t.exact[r * cols + c]) : INTEGER_DTYPES.has(t.dtype) ? String(t.data[r * cols + c]) : undefined;
      const v = t.data[r * cols + c];
      tr.append(h("td", { "data-v": exact ?? exactText(v) }, exact ?? formatValue(v)));
    }
    body.append(tr);
  }
  const head = h("tr", {}, h("th", {}, ""), ...Array.from({ length: shownCols }, (_, c) => h("th", {}, String(c))));
  const note = shown < rows || shownCols < cols ? h("p", { class: "hint" }, `showing ${shown} × ${shownCols} of ${rows} × ${cols}`) : null;
  const block = h("div", { class: "tensor", [`data-${kind}`]: t.name, "data-shape": JSON.stringify(t.shape), "data-dtype": t.dtype },
    h("h4", {}, t.name, h("code", {}, ` ${t.dtype}${formatShape(t.shape)}`)));
  if (t.shape.length === 2 && rows > 0 && cols > 0) block.append(heatmap(t.data, rows, cols));
  block.append(h("div", { class: "table-wrap small" }, h("table", { class: "values" }, h("thead", {}, head), body)), note ?? "");
  return block;
}
