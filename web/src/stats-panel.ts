// The Stats tab: every CompileStats field of the graph and the optimiser's
// pass counters, each with a one-line meaning.
import type { CompileStats, OptStats } from "../../js/dist/shrew.min.js";
import { h } from "./dom.js";
import { formatBytes, formatClocked } from "./format.js";

const STAT_ROWS: [keyof CompileStats, string, "bytes" | "us" | "count"][] = [
  ["numInstructions", "tape length, frees included", "count"],
  ["numSourceNodes", "IR nodes in the optimised graph", "count"],
  ["numSlots", "value slots (one per node)", "count"],
  ["numFused", "fused instructions (optimiser fused_* ops, JIT matmul+activation, folded transposes)", "count"],
  ["numFrees", "free instructions: where a value dies", "count"],
  ["numReused", "buffers placed in memory an earlier value released", "count"],
  ["numInPlace", "results written over a dying operand", "count"],
  ["numAliases", "views sharing their operand's storage (reshape, identity)", "count"],
  ["numRefKernels", "instructions on the reference fallback (no XNNPACK kernel)", "count"],
  ["arenaBytes", "the one arena every intermediate lives in", "bytes"],
  ["arenaLowerBound", "most bytes alive at any single instruction: no plan can do better", "bytes"],
  ["arenaNaive", "one buffer per value, nothing reused", "bytes"],
  ["compileTimeUs", "JIT compile of this graph (tape, kernels, weight packing), on the browser's clock", "us"],
];

const OPT_ROWS: [keyof OptStats, string][] = [
  ["deadCodeRemoved", "nodes that reach no output, removed"],
  ["identitiesRemoved", "identity / no-op nodes bypassed"],
  ["constantsFolded", "constant sub-expressions computed at compile time"],
  ["cseEliminated", "duplicate expressions merged (CSE)"],
  ["opsFused", "node pairs fused (matmul+add, add/sub/matmul+relu)"],
  ["rounds", "optimiser rounds until nothing changed"],
];

export function renderStats(root: HTMLElement, graph: string | undefined, stats: CompileStats | undefined,
                            opt: OptStats | undefined, timing: { compileMs: number; clockMs: number } | undefined,
                            heap?: { heapBytes: number; usedBytes: number }, pending?: string,
                            compiledFor?: string, bound?: boolean): void {
  root.replaceChildren();
  if (!opt || !graph || (!stats && !pending)) {
    root.append(h("p", { class: "empty" }, "Nothing compiled yet."));
    return;
  }
  const passes = h("table", { class: "stats", "data-testid": "opt-table" },
    h("caption", {}, "Optimiser passes (whole program)"),
    h("tbody", {}, ...OPT_ROWS.map(([k, what]) =>
      h("tr", { "data-field": k, "data-value": Number(opt[k]) },
        h("th", {}, k), h("td", { class: "num" }, String(opt[k])), h("td", { class: "what" }, what)))));
  const compile = card("compile", timing ? formatClocked(timing.compileMs, timing.clockMs) : "–", "parse → IR → optimise → JIT, in the worker");
  const heapCard = heap ? card("wasm heap", formatBytes(heap.usedBytes), `in use, of ${formatBytes(heap.heapBytes)} linear memory`, heap.usedBytes) : null;
  if (!stats) {
    // A graph compiled when it first runs: the optimiser ran with the program, the JIT has not yet.
    root.append(h("div", { class: "cards" }, compile, heapCard), h("p", { class: "empty pending" }, pending ?? ""), passes);
    return;
  }
  const value = (v: number, kind: string) => (kind === "bytes" ? `${formatBytes(v)}` : kind === "us" ? (timing ? formatClocked(v / 1000, timing.clockMs) : `${v} µs`) : String(v));
  const jit = h("table", { class: "stats", "data-testid": "stats-table" },
    h("caption", {}, `JIT statistics of ${graph}`, compiledFor ? `, compiled for ${compiledFor}` : ""),
    h("tbody", {}, ...STAT_ROWS.map(([k, what, kind]) =>
      h("tr", { "data-field": k, "data-value": stats[k] },
        h("th", {}, k), h("td", { class: "num" }, value(stats[k], kind)), h("td", { class: "what" }, what)))));
  const saved = stats.arenaNaive > 0 ? 1 - stats.arenaBytes / stats.arenaNaive : 0;
  root.append(
    h("div", { class: "cards" },
      compile,
      card("instructions", String(stats.numInstructions), `${stats.numFused} fused`),
      // `bound` from the plan: a graph of constants only is bound with a 0-byte arena.
      card("arena", formatBytes(stats.arenaBytes), stats.arenaNaive ? `${Math.round(saved * 100)}% less than naive`
        : bound ? "nothing to hold" : "not bound yet"),
      heapCard),
    jit, passes);
}

function card(title: string, value: string, note: string, raw?: number): HTMLElement {
  return h("div", { class: "card", "data-card": title, "data-value": raw }, h("div", { class: "card-title" }, title), h("div", { class: "card-value" }, value), h("div", { class: "card-note" }, note));
}
