// Shrew in WebAssembly, through the public js/ package: the runtime under test.
// Two slots share this adapter: the compiled tape ("jit") and the reference
// interpreter ("interpreter").
//
// A call is what a user writes: `program.run(graph, { x: Float32Array })`
// (or `interpret`) and `.data` of the output tensor (a fresh Float32Array
// the caller owns). Weights are set by name with `setParam` (same row-major
// shapes as the .sw params); `Batch` is bound at compile time.
import { existsSync, readFileSync } from "node:fs";
import { callOverhead } from "../lib/call-overhead.mjs";
import { SkipRunner } from "./runner.mjs";

/** The package entry as Node resolves it (js/package.json "exports", "node"): the bundle `npm run build:js` writes. */
const JS_DIST = new URL("../../js/dist/shrew.node.js", import.meta.url);

/**
 * @param {"jit" | "interpreter"} mode
 * @returns {import("./runner.mjs").Runner}
 */
export function shrewWasmRunner(mode) {
  /** @type {any} */ let shrew = null;
  return {
    id: mode === "jit" ? "shrew-jit" : "shrew-interp",
    label: mode === "jit" ? "Shrew wasm (JIT)" : "Shrew wasm (interpreter)",
    peer: false,
    // The interpreter is the oracle, not a target: 10 timed runs suffice on the big cells.
    minRunsIfSlow: mode === "jit" ? undefined : 10,
    async init() {
      if (!existsSync(JS_DIST)) throw new SkipRunner("js/dist/shrew.node.js not built (npm run build:js)");
      const t0 = performance.now();
      const mod = await import(JS_DIST.href);
      shrew = await mod.Shrew.load();
      const initMs = performance.now() - t0;
      if (typeof shrew.compile !== "function") {
        throw new SkipRunner("js/dist has no compile/run API yet (only Shrew.load() and dense())");
      }
      const pkg = JSON.parse(readFileSync(new URL("../../js/package.json", import.meta.url), "utf8"));
      return { version: pkg.version, detail: `shrew.wasm, ${mode}, simd128=${shrew.simd128}`, initMs };
    },
    async createSession(cell) {
      const { Tensor } = await import(JS_DIST.href);
      const w = cell.workload;
      const program = shrew.compile(w.sw, { filename: `${w.name}.sw`, dims: { Batch: cell.batch } });
      for (const p of cell.weights) program.setParam(`${w.graph}/${p.name}`, new Tensor("f32", p.shape, p.data));
      const graph = w.graph, inputName = w.inputName, outputName = w.outputName;
      const run = mode === "jit"
        ? (x) => program.run(graph, { [inputName]: x })[outputName].data
        : (x) => program.interpret(graph, { [inputName]: x })[outputName].data;
      return {
        run,
        memory() {
          if (mode !== "jit") return null;
          const st = program.stats(graph);
          const params = program.params().filter((p) => p.name.startsWith(`${graph}/`)).reduce((a, p) => a + p.bytes, 0);
          return { bytes: st.arenaBytes + params, kind: `arena ${st.arenaBytes} B (lower bound ${st.arenaLowerBound}) + params` };
        },
        /** Extra per-cell facts for the report (tape size, in-wasm ns/run of Executor::Run). */
        extra() {
          if (mode !== "jit") return null;
          const st = program.stats(graph);
          // Loops of ~20 ms, timed in process CPU time (a busy machine preempts
          // wall-clock loops); the fastest of 7 (other processes only ever add).
          const probe = program.benchRun(graph, 3);
          const n = Math.max(3, Math.min(100_000, Math.round(2e7 / Math.max(1, probe))));
          let ns = Infinity, wallNs = Infinity;
          for (let i = 0; i < 7; i++) {
            const c = process.cpuUsage();
            wallNs = Math.min(wallNs, program.benchRun(graph, n));
            const d = process.cpuUsage(c);
            ns = Math.min(ns, ((d.user + d.system) * 1000) / n);
          }
          // The JS side of a call (input into wasm memory, the export call, the
          // output copy): bursts of public calls against bursts of the same tape
          // run inside wasm, interleaved, median of the paired wall-time
          // differences. Process CPU per call minus the loop above also counts
          // V8's compiler and GC threads, and overstates it several-fold.
          const k = Math.max(1, Math.min(1000, Math.round(2e6 / Math.max(1, wallNs))));
          const diffs = [];
          for (let i = 0; i < 21; i++) {
            let t = performance.now();
            for (let j = 0; j < k; j++) run(cell.input);
            const api = ((performance.now() - t) * 1e6) / k;
            t = performance.now();
            program.benchRun(graph, k);
            diffs.push(api - ((performance.now() - t) * 1e6) / k);
          }
          return {
            instructions: st.numInstructions, arenaBytes: st.arenaBytes, arenaLowerBound: st.arenaLowerBound,
            compileTimeUs: st.compileTimeUs, inWasmNsPerRun: ns, inWasmNsPerInstr: ns / st.numInstructions,
            inWasmWallNsPerRun: wallNs,
            // The raw median (it may be negative on long calls) and its 95 % interval: the report decides what it resolved.
            ...callOverhead(diffs),
          };
        },
        dispose: () => program.dispose(),
      };
    },
  };
}
