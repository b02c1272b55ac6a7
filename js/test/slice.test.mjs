// The foundation slice through the wasm build: XNNPACK fully-connected vs a plain loop.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { Shrew, ShrewRuntimeError } from "../dist/index.js";

const shrew = await Shrew.load();

function refDense(batch, inF, outF, x, w, b) {
  const y = new Float32Array(batch * outF);
  for (let r = 0; r < batch; r++)
    for (let o = 0; o < outF; o++) {
      let acc = b.length ? b[o] : 0;
      for (let i = 0; i < inF; i++) acc += x[r * inF + i] * w[o * inF + i];
      y[r * outF + o] = acc;
    }
  return y;
}

function lcg(seed) {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32) * 2 - 1;
}

test("hand-computed dense layer", () => {
  const y = shrew.dense(1, 2, 3, new Float32Array([1, 2]), new Float32Array([1, 0, 0, 1, 1, 1]),
                        new Float32Array([0.5, -1, 0]));
  assert.deepEqual(Array.from(y), [1.5, 1, 3]);
});

test("dense matches a reference loop on random shapes", () => {
  const rnd = lcg(42);
  for (const [batch, inF, outF] of [[1, 1, 1], [3, 17, 5], [8, 64, 33], [64, 784, 10]]) {
    const x = Float32Array.from({ length: batch * inF }, rnd);
    const w = Float32Array.from({ length: outF * inF }, rnd);
    const b = Float32Array.from({ length: outF }, rnd);
    const y = shrew.dense(batch, inF, outF, x, w, b);
    const ref = refDense(batch, inF, outF, x, w, b);
    assert.equal(y.length, ref.length);
    for (let i = 0; i < ref.length; i++) {
      assert.ok(Math.abs(y[i] - ref[i]) <= 1e-4 * (1 + Math.abs(ref[i])), `${batch}x${inF}->${outF} at ${i}: ${y[i]} vs ${ref[i]}`);
    }
  }
});

test("bad sizes give a typed error and the module stays usable", () => {
  assert.throws(() => shrew.dense(2, 3, 4, new Float32Array(3), new Float32Array(12)),
    (e) => e instanceof ShrewRuntimeError && e.code === "invalid_argument" && /x has 3 elements, expected 6/.test(e.message));
  assert.deepEqual(Array.from(shrew.dense(1, 1, 1, new Float32Array([2]), new Float32Array([3]))), [6]);
});

test("hostile dense sizes are errors before any allocation; the module stays usable", () => {
  const err = (code, re) => (e) => e instanceof ShrewRuntimeError && e.code === code && re.test(e.message);
  assert.throws(() => shrew.dense(1.5, 1, 1, new Float32Array(1), new Float32Array(1)), err("invalid_argument", /non-negative integers, got 1.5/));
  assert.throws(() => shrew.dense(-1, 1, 1, new Float32Array(1), new Float32Array(1)), err("invalid_argument", /got -1/));
  assert.throws(() => shrew.dense(Infinity, 1, 1, new Float32Array(1), new Float32Array(1)), err("invalid_argument", /got Infinity/));
  assert.throws(() => shrew.dense(2 ** 31, 1, 1, new Float32Array(1), new Float32Array(1)),
    err("resource_exhausted", /size 2147483648 is over the limit of 2147483647/));
  // 2^20 × 2^12 = 2^32 wraps to 0 in 32-bit size_t: must not pass as an empty x.
  assert.throws(() => shrew.dense(1 << 20, 1 << 12, 1, new Float32Array(0), new Float32Array(4096)),
    err("resource_exhausted", /at most 1073741824/));
  assert.throws(() => shrew.dense(1, 1 << 14, 1 << 14, new Float32Array(1 << 14), new Float32Array(4)),
    err("resource_exhausted", /packed weights/));
  assert.throws(() => shrew.dense(2, 2, 2, new Float32Array(4), new Float32Array(4), new Float32Array(3)),
    err("invalid_argument", /bias has 3 elements, expected 2/));
  assert.deepEqual(Array.from(shrew.dense(1, 1, 1, new Float32Array([2]), new Float32Array([3]))), [6]);
});

test("dense operands that are not arrays of numbers are typed errors (not a raw TypeError or NaNs)", () => {
  const w = new Float32Array([1, 0, 0, 1]);
  const err = (re) => (e) => e instanceof ShrewRuntimeError && e.code === "invalid_argument" && re.test(e.message);
  assert.throws(() => shrew.dense(1, 2, 2, null, w), err(/^dense: x must be a Float32Array, got null$/));
  assert.throws(() => shrew.dense(1, 2, 2, "ab", w), err(/x must be a Float32Array, got string/));
  assert.throws(() => shrew.dense(1, 2, 2, { length: 2 }, w), err(/x must be a Float32Array, got Object/));
  assert.throws(() => shrew.dense(1, 2, 2, new Float32Array(2), w, null), err(/bias must be a Float32Array, got null/));
  assert.throws(() => shrew.dense("1", 2, 2, new Float32Array(2), w), err(/sizes must be non-negative integers, got string/));
  assert.deepEqual(Array.from(shrew.dense(1, 2, 2, [3, 4], w)), [3, 4]);  // an array of numbers still works
  // An element that is no number, or a hole (every() skipped holes: they went in as NaN).
  // eslint-disable-next-line no-sparse-arrays
  assert.throws(() => shrew.dense(1, 2, 2, [1, , ], w), err(/^dense: x must be a Float32Array or an array of numbers; element 1 is a hole$/));
  assert.throws(() => shrew.dense(1, 2, 2, [1, "2"], w), err(/; element 1 is "2" \(a string\)$/));
  assert.throws(() => shrew.dense(1, 2, 2, [1, 2], [1, 0, undefined, 1]), err(/^dense: w must .*; element 2 is undefined$/));
});

test("the module is built with SIMD128 and its code uses f32x4/v128 instructions", () => {
  assert.equal(shrew.simd128, true);
  const wasm = fileURLToPath(new URL("../dist/wasm/shrew.wasm", import.meta.url));
  const dis = execFileSync("llvm-objdump-14", ["-d", wasm], { maxBuffer: 1 << 28 }).toString();
  const simd = dis.match(/\b(f32x4\.[a-z_]+|v128\.[a-z_]+)/g) ?? [];
  assert.ok(simd.length > 1000, `only ${simd.length} SIMD instructions found`);
  assert.ok(simd.includes("f32x4.mul") && simd.includes("f32x4.add"));
});
