// The wasm build's own kernels at the edges OPS.md §3.3 sets (1e-6 relative
// to the formulas): its SIMD paths are not the ones the native suite runs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Shrew, Tensor } from "../dist/index.js";

const shrew = await Shrew.load();

function runUnary(op, xs) {
  const p = shrew.compile(`@graph G { input x: Tensor<[N], f32>; output y: ${op}(x); }`);
  try {
    return p.run("G", { x: new Tensor("f32", [xs.length], Float32Array.from(xs)) }).y.data;
  } finally {
    p.dispose();
  }
}

const sigmoid = (t) => 1 / (1 + Math.exp(-t));
// The spec's tanh form, as x·sigmoid(2u) (no cancellation for negative x).
const gelu = (x) => x * sigmoid(2 * 0.7978845608028654 * (x + 0.044715 * x * x * x));

test("gelu, sigmoid and silu stay within 1e-6 relative over [-10, 10], tails included", () => {
  // 4,001 points, so the 16-element groups of the gelu tail hold mixes of both sides.
  const xs = Array.from({ length: 4001 }, (_, i) => Math.fround(-10 + i * 0.005));
  for (const [op, f] of [["gelu", gelu], ["sigmoid", sigmoid], ["silu", (x) => x * sigmoid(x)]]) {
    const y = runUnary(op, xs);
    for (let i = 0; i < xs.length; i++) {
      const want = f(xs[i]);
      if (Math.abs(want) < 1e-37) continue;  // subnormal results may flush to 0
      assert.ok(Math.abs(y[i] - want) <= 1e-6 * Math.abs(want), `${op}(${xs[i]}) = ${y[i]}, want ${want}`);
    }
  }
});

test("sigmoid, silu and gelu saturate for huge inputs instead of giving NaN", () => {
  const y = runUnary("sigmoid", [1e30, -1e30, 3e38, NaN]);
  assert.deepEqual([...y.slice(0, 3)], [1, 0, 1]);
  assert.ok(Number.isNaN(y[3]));
  assert.deepEqual([...runUnary("silu", [1e30])], [Math.fround(1e30)]);
  assert.deepEqual([...runUnary("gelu", [3e9])], [Math.fround(3e9)]);
});
