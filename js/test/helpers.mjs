// Shared fixtures of the JS tests: the conformance examples with a dim
// binding, input specs and expected output types (tests/testdata/examples/README.md).
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Tensor } from "../dist/index.js";

export const ROOT = fileURLToPath(new URL("../../", import.meta.url));
export const EXAMPLES = `${ROOT}tests/testdata/examples/`;
export const readExample = (file) => readFileSync(`${EXAMPLES}${file}`, "utf8");

const B = 3;
export const CASES = [
  // atol: the interpreter accumulates in double, the JIT in f32 (784-term sums: ~2e-6 apart).
  { file: "mlp_classifier.sw", graph: "Classifier", dims: { Batch: B }, atol: 1e-5,
    outputs: { probs: ["f32", [B, 10]], logits: ["f32", [B, 10]] } },
  { file: "logistic_regression.sw", graph: "Train", dims: { N: 5 },
    outputs: { prob: ["f32", [5, 1]], loss: ["f32", []], squared_error: ["f32", []], correct: ["bool", [5, 1]] } },
  { file: "patch_mixer.sw", graph: "Forward", dims: { Batch: 2 }, outputs: { probs: ["f32", [2, 10]] } },
  { file: "transformer_block.sw", graph: "Block", dims: { Batch: 2, Seq: 5 },
    outputs: { y: ["f32", [2, 5, 32]], attn: ["f32", [2, 4, 5, 5]] } },
  { file: "config_dims.sw", graph: "Regressor", dims: {}, outputs: { y: ["f32", [4, 5]] } },
  { file: "graph_calls.sw", graph: "Model", dims: { Rows: 3 }, outputs: { logits: ["f32", [3, 4]], probs: ["f32", [3, 4]] } },
  { file: "logic_reductions.sw", graph: "Stats", dims: { Time: 7 },
    outputs: {
      valid: ["bool", [7, 6]], anomalies: ["bool", [7, 6]], mean_valid: ["f32", [6]], peak: ["f32", [7, 1]],
      trough: ["f32", [7]], spread: ["f32", [6]], overall: ["f32", []], frac_bad: ["f32", []],
      is_peak: ["bool", [7, 6]], all_ok: ["f32", [7]], changed: ["bool", [7, 6]],
    } },
  { file: "fusion_showcase.sw", graph: "Fusions", dims: { Rows: 4 }, outputs: { result: ["f32", [4, 8]] } },
  { file: "tiny_gpt.sw", graph: "LanguageModel", dims: { Batch: 2 },
    inputs: ["tokens=randint:0:96", "targets=randint:0:96"],
    outputs: { logits: ["f32", [2, 16, 96]], loss: ["f32", []] } },
];

/** Asserts |a - e| <= atol + rtol·|e| for floats, exact equality otherwise. */
export function allClose(assert, actual, expected, rtol = 1e-5, atol = 1e-6, what = "") {
  assert.equal(actual.dtype, expected.dtype, `${what}: dtype`);
  assert.deepEqual([...actual.shape], [...expected.shape], `${what}: shape`);
  const a = actual.data, e = expected.data;
  const isFloat = actual.dtype === "f32" || actual.dtype === "f64";
  for (let i = 0; i < a.length; i++) {
    if (isFloat) {
      if (Number.isNaN(e[i])) { assert.ok(Number.isNaN(a[i]), `${what}[${i}]: expected NaN, got ${a[i]}`); continue; }
      if (a[i] === e[i]) continue;
      const tol = atol + rtol * Math.abs(e[i]);
      assert.ok(Math.abs(a[i] - e[i]) <= tol, `${what}[${i}]: jit ${a[i]} vs interp ${e[i]} (tol ${tol})`);
    } else {
      assert.equal(a[i], e[i], `${what}[${i}]`);
    }
  }
}

/**
 * Inputs of a signature by the formula of tests/api/determinism_test.cc
 * (jit::testing::FormulaInputs), so native and wasm runs see the same values:
 * element i of input k is ((i·37 + k·11) mod 101)/50 − 1 for floats,
 * (i·7 + k) mod 16 for integers, (i·3 + k) mod 2 for bools.
 */
export function formulaInputs(sig, dims) {
  const feeds = {};
  sig.inputs.forEach((spec, k) => {
    const shape = spec.shape.map((d) => (typeof d === "number" ? d : dims[d]));
    const n = shape.reduce((a, b) => a * b, 1);
    const dtype = spec.dtype;
    let data;
    if (dtype === "f32") data = Float32Array.from({ length: n }, (_, i) => ((i * 37 + k * 11) % 101) / 50 - 1);
    else if (dtype === "bool") data = Uint8Array.from({ length: n }, (_, i) => (i * 3 + k) % 2);
    else if (dtype === "i64") data = BigInt64Array.from({ length: n }, (_, i) => BigInt((i * 7 + k) % 16));
    else throw new Error(`no formula for ${dtype}`);
    feeds[spec.name] = new Tensor(dtype, shape, data);
  });
  return feeds;
}
