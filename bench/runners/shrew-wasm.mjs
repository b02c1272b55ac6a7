// Shrew in WebAssembly, through the public js/ package: the runtime under test.
// Two slots share this adapter: the compiled tape ("jit") and the reference
// interpreter ("interpreter").
//
// ============================================================================
// TODO(shrew-js): implement `createSession` below once js/ exposes the
// compile/run API (today js/dist/index.js only has Shrew.load() and dense()).
// That is the only change the harness needs; everything else (weights, input,
// timing, interleaving, correctness check against onnxruntime-web, report)
// is done by bench/run.mjs. The contract (bench/runners/runner.mjs, Session):
//
//   createSession(cell) → { run(x), memory?(), dispose() }
//     cell.workload.sw        the .sw program text (compile it once here)
//     cell.workload.graph     the graph to run ("Mlp", "Block", "Tiny")
//     cell.batch              bind the symbolic dim `Batch` to it
//     cell.weights            [{ name, shape, data: Float32Array }] — set each
//                             into the param of that name (row-major, same
//                             shape as declared in the .sw)
//     cell.workload.inputName / outputName, cell.inputShape / outputShape
//     run(x: Float32Array) → Float32Array   one call, as a user would make it
//                             (wrap x, run, copy the output out); may be async
//     memory() → { bytes, kind } | null     e.g. arena + params from the memory plan
//     dispose()                             free the compiled graph
//
// A sketch, with hypothetical names — adapt to the real API:
//
//   const program = shrew.compile(cell.workload.sw, { executor: mode });
//   const exe = program.executor(cell.workload.graph, { dims: { Batch: cell.batch } });
//   for (const w of cell.weights) exe.setParam(w.name, new Tensor("f32", w.shape, w.data));
//   return {
//     run: (x) => exe.run({ [cell.workload.inputName]: new Tensor("f32", cell.inputShape, x) })
//                    [cell.workload.outputName].data,
//     memory: () => ({ bytes: exe.arenaBytes + exe.paramBytes, kind: "arena + params (memory plan)" }),
//     dispose: () => { exe.dispose(); program.dispose(); },
//   };
//
// Then set IMPLEMENTED = true.
// ============================================================================
import { existsSync, readFileSync } from "node:fs";
import { SkipRunner } from "./runner.mjs";

const IMPLEMENTED = false;

/** js/dist/index.js of this repository (built by `npm run build:js`). */
const JS_DIST = new URL("../../js/dist/index.js", import.meta.url);

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
    async init() {
      if (!existsSync(JS_DIST)) throw new SkipRunner("js/dist/index.js not built (npm run build:js)");
      const t0 = performance.now();
      const mod = await import(JS_DIST.href);
      shrew = await mod.Shrew.load();
      const initMs = performance.now() - t0;
      if (typeof shrew.compile !== "function") {
        throw new SkipRunner("js/dist has no compile/run API yet (only Shrew.load() and dense())");
      }
      if (!IMPLEMENTED) throw new SkipRunner("adapter not written yet: see TODO in bench/runners/shrew-wasm.mjs");
      const pkg = JSON.parse(readFileSync(new URL("../../js/package.json", import.meta.url), "utf8"));
      return { version: pkg.version, detail: `shrew.wasm, ${mode}, simd128=${shrew.simd128}`, initMs };
    },
    async createSession(cell) {
      void cell;
      // TODO(shrew-js): see the comment at the top of this file.
      throw new Error(`Shrew ${mode} adapter: createSession is not implemented`);
    },
  };
}
