// onnxruntime-web, wasm execution provider, single thread, SIMD build.
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import * as ort from "onnxruntime-web";

/** node_modules/onnxruntime-web/dist/ (where the .wasm files are). */
export const ORT_DIST = path.dirname(fileURLToPath(import.meta.resolve("onnxruntime-web"))) + path.sep;

/** @returns {import("./runner.mjs").Runner} */
export function ortRunner() {
  return {
    id: "ort",
    label: "onnxruntime-web wasm",
    peer: true,
    async init() {
      ort.env.wasm.numThreads = 1; // single-threaded: no worker pool
      ort.env.wasm.proxy = false; // run in this thread, no proxy worker
      ort.env.wasm.wasmPaths = ORT_DIST; // load the .wasm from node_modules, as documented
      ort.env.logLevel = "error";
      // Instantiating the wasm happens on the first session; do it here with a
      // trivial model so session times below are per model, not per process.
      const t0 = performance.now();
      const { default: tiny } = await import("../workloads/tiny.mjs");
      const s = await ort.InferenceSession.create(tiny.onnx(), sessionOptions(1));
      await s.release();
      const version = JSON.parse(readFileSync(path.join(ORT_DIST, "..", "package.json"), "utf8")).version;
      return {
        version,
        detail: "ort-wasm-simd-threaded.wasm, numThreads=1, graphOptimizationLevel=all",
        initMs: performance.now() - t0,
      };
    },
    async createSession(cell) {
      const session = await ort.InferenceSession.create(cell.workload.onnx(), sessionOptions(cell.batch));
      const { inputName, outputName } = cell.workload;
      const dims = cell.inputShape;
      return {
        async run(x) {
          const out = await session.run({ [inputName]: new ort.Tensor("float32", x, dims) });
          const y = out[outputName];
          const data = /** @type {Float32Array} */ (y.data);
          y.dispose();
          return data;
        },
        dispose: () => session.release(),
      };
    },
  };
}

/** @param {number} batch @returns {ort.InferenceSession.SessionOptions} */
function sessionOptions(batch) {
  return {
    executionProviders: ["wasm"],
    graphOptimizationLevel: "all",
    // The models have a symbolic batch dim; fixing it per cell lets ORT plan
    // memory and pick kernels for the exact shape (its documented option).
    freeDimensionOverrides: { batch },
  };
}
