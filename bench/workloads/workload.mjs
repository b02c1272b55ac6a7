// The shape of a workload module and helpers shared by the three workloads.
// A workload is defined ONCE: weights, the .sw program, the ONNX model and the
// TF.js implementation all come from the same module, and all runtimes get the
// same weights (keyed by the .sw param names) and the same inputs.
import { uniform, numel } from "../lib/rng.mjs";

/**
 * @typedef {{ name: string, shape: number[], data: Float32Array }} NamedTensor
 *   A tensor in row-major order. Weights use the .sw param name and shape, so
 *   Shrew can set them with `setParam(name, data)` as they are.
 */

/**
 * @typedef {Object} Workload
 * @property {string} name            "mlp" | "block" | "tiny"
 * @property {string} title           one-line description for the report
 * @property {number[]} batches       batch sizes benchmarked
 * @property {string} graph           the .sw graph to run
 * @property {string} inputName       the .sw input name (also the ONNX input name)
 * @property {string} outputName      the .sw output name (also the ONNX output name)
 * @property {(batch: number) => number[]} inputShape
 * @property {(batch: number) => number[]} outputShape
 * @property {() => NamedTensor[]} weights          deterministic, cached; .sw declaration order
 * @property {(batch: number) => Float32Array} input deterministic input for a batch size
 * @property {string} sw                            the equivalent .sw program text
 * @property {() => Uint8Array} onnx                ONNX model bytes (symbolic batch dim "batch")
 * @property {(tf: any, p: Record<string, any>) => (x: any) => any} tfjs
 *   Given tfjs-core and the weights as tf.Tensors (by param name), returns the forward function.
 */

/**
 * Deterministic parameter: U[-bound, bound) + offset, seeded by "<workload>/<name>".
 * @param {string} workload @param {string} name @param {number[]} shape
 * @param {number} bound @param {number} [offset]
 * @returns {NamedTensor}
 */
export function param(workload, name, shape, bound, offset = 0) {
  const data = uniform(`${workload}/${name}`, numel(shape), offset - bound, offset + bound);
  return { name, shape, data };
}

/** Caches a zero-argument factory. @template T @param {() => T} f @returns {() => T} */
export function once(f) {
  /** @type {T | undefined} */ let v;
  let done = false;
  return () => {
    if (!done) { v = f(); done = true; }
    return /** @type {T} */ (v);
  };
}

/** Weights as a name → NamedTensor map. @param {NamedTensor[]} ws */
export function byName(ws) {
  return Object.fromEntries(ws.map((w) => [w.name, w]));
}
