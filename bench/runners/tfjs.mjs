// TensorFlow.js (tfjs-core) on the wasm backend, single thread, SIMD build.
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import * as tf from "@tensorflow/tfjs-core";
import { setThreadsCount, setWasmPaths } from "@tensorflow/tfjs-backend-wasm";

/** node_modules/@tensorflow/tfjs-backend-wasm/dist/ (where the .wasm files are). */
export const TFJS_WASM_DIST =
  path.dirname(fileURLToPath(import.meta.resolve("@tensorflow/tfjs-backend-wasm"))) + path.sep;

/** @returns {import("./runner.mjs").Runner} */
export function tfjsRunner() {
  return {
    id: "tfjs",
    label: "TF.js wasm",
    peer: true,
    async init() {
      const t0 = performance.now();
      setWasmPaths(TFJS_WASM_DIST); // load the .wasm from node_modules, as documented
      setThreadsCount(1);
      tf.env().set("WASM_HAS_MULTITHREAD_SUPPORT", false); // → tfjs-backend-wasm-simd.wasm
      if (!(await tf.setBackend("wasm"))) throw new Error("tfjs: wasm backend failed to initialise");
      await tf.ready();
      const simd = tf.env().getBool("WASM_HAS_SIMD_SUPPORT");
      const version = JSON.parse(readFileSync(path.join(TFJS_WASM_DIST, "..", "package.json"), "utf8")).version;
      return {
        version,
        detail: `${simd ? "tfjs-backend-wasm-simd.wasm" : "tfjs-backend-wasm.wasm"}, threads=1`,
        initMs: performance.now() - t0,
      };
    },
    async createSession(cell) {
      const params = Object.fromEntries(cell.weights.map((w) => [w.name, tf.tensor(w.data, w.shape, "float32")]));
      const forward = cell.workload.tfjs(tf, params);
      const shape = cell.inputShape;
      /** @type {import("./runner.mjs").MemoryInfo | null} */
      let memory = null;
      return {
        run(x) {
          const y = tf.tidy(() => forward(tf.tensor(x, shape, "float32")));
          const data = /** @type {Float32Array} */ (y.dataSync());
          y.dispose();
          return data;
        },
        async memory() {
          if (memory) return memory;
          // Peak bytes of live tensors (weights + activations) during one call.
          const info = await tf.profile(() => tf.tidy(() => forward(tf.tensor(cell.input, shape, "float32"))));
          tf.dispose(/** @type {any} */ (info).result);
          memory = { bytes: info.peakBytes, kind: "tensor peak (tf.profile)" };
          return memory;
        },
        dispose() {
          for (const t of Object.values(params)) t.dispose();
        },
      };
    },
  };
}
