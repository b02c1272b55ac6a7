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
      assert.ok(Math.abs(y[i] - want) <= 1e-6 * Math.abs(want) + 0.71e-45, `${op}(${xs[i]}) = ${y[i]}, want ${want}`);
    }
  }
});

test("below XNNPACK's flush to zero, sigmoid, silu and gelu are still within 1e-6 (or half a subnormal ulp)", () => {
  // XNNPACK's sigmoid gives 0 for arguments below -87.34 (subnormal results),
  // which made silu(-87.5) = -8.7e-37 and gelu(-10) = -1.2e-37 come out 0.
  const sweep = (lo, hi) => Array.from({ length: 2100 }, (_, i) => Math.fround(lo + (i * (hi - lo)) / 2099));
  for (const [op, f, xs] of [["sigmoid", sigmoid, sweep(-110, -80)], ["silu", (x) => x * sigmoid(x), sweep(-110, -80)],
    ["gelu", gelu, sweep(-10.8, -9.5)]]) {
    const y = runUnary(op, xs);
    for (let i = 0; i < xs.length; i++) {
      const want = f(xs[i]);
      assert.ok(Math.abs(y[i] - want) <= 1e-6 * Math.abs(want) + 0.71e-45, `${op}(${xs[i]}) = ${y[i]}, want ${want}`);
    }
  }
});

test("exp stays within 1e-6 relative over [-110, 90], one subnormal step below the normal range", () => {
  // Ours (vector_math.h, SIMD128 in this build) replaced XNNPACK's, which gave 0 below e^-87.3.
  const xs = Array.from({ length: 20001 }, (_, i) => Math.fround(-110 + i * 0.01));
  xs.push(-Infinity, Infinity, NaN, -0);
  const y = runUnary("exp", xs);
  for (let i = 0; i < xs.length; i++) {
    const want = Math.exp(xs[i]);
    if (Number.isNaN(want)) assert.ok(Number.isNaN(y[i]));
    else if (want > 3.4028234663852886e38) assert.equal(y[i], Infinity, `exp(${xs[i]})`);
    else if (want >= 1.1754943508222875e-38) assert.ok(Math.abs(y[i] - want) <= 1e-6 * want, `exp(${xs[i]}) = ${y[i]}, want ${want}`);
    else assert.ok(Math.abs(y[i] - want) <= 1.401298464324817e-45, `exp(${xs[i]}) = ${y[i]}, want ${want}`);
  }
});

test("log stays within 1e-6 relative on every 4099th positive f32, subnormals included; 0, negatives, inf and NaN exact", () => {
  const bits = new Uint32Array(Math.ceil(0x7f800000 / 4099));
  for (let i = 0; i < bits.length; i++) bits[i] = 1 + i * 4099;
  const xs = Array.from(new Float32Array(bits.buffer));
  xs.push(0, -0, -1e-30, -Infinity, Infinity, NaN, 1);
  const y = runUnary("log", xs);
  for (let i = 0; i < xs.length; i++) {
    const want = Math.log(xs[i]);
    if (!Number.isFinite(want) || want === 0) assert.ok(Object.is(y[i], want), `log(${xs[i]}) = ${y[i]}, want ${want}`);
    else assert.ok(Math.abs(y[i] - want) <= 1e-6 * Math.abs(want), `log(${xs[i]}) = ${y[i]}, want ${want}`);
  }
});

test("sigmoid, silu and gelu saturate for huge inputs instead of giving NaN", () => {
  const y = runUnary("sigmoid", [1e30, -1e30, 3e38, NaN]);
  assert.deepEqual([...y.slice(0, 3)], [1, 0, 1]);
  assert.ok(Number.isNaN(y[3]));
  assert.deepEqual([...runUnary("silu", [1e30])], [Math.fround(1e30)]);
  assert.deepEqual([...runUnary("gelu", [3e9])], [Math.fround(3e9)]);
});

// One-row products (batch 1) go through XNNPACK's 1x8 kernels, which the wasm
// build runs two 8-column panels at a time while 16 or more columns remain
// (third_party/patches/xnnpack-wasm-gemv-two-panels.patch). They add bias, then
// x[k]·w[k][j] for k = 0, 1, … in f32 without fused multiply-add, so a plain f32
// loop in that order gives the same bits, whichever panel a column falls in.
// (Fewer than 8 columns take XNNPACK's 2-column kernels, which sum k in four
// lanes: another order, not checked here.)
function rowTimesMatrix(x, w, b, K, N, relu) {
  const y = new Float32Array(N);
  for (let j = 0; j < N; j++) {
    let acc = b ? b[j] : 0;
    for (let k = 0; k < K; k++) acc = Math.fround(acc + Math.fround(x[k] * w[k * N + j]));
    y[j] = relu ? Math.max(acc, 0) : acc;
  }
  return y;
}

test("one-row matmuls of 8 or more columns give the bits of a plain f32 loop, any depth (wasm's two-panel kernels)", () => {
  const vals = (n, k) => Float32Array.from({ length: n }, (_, i) => Math.fround(Math.sin(i * k + 0.3) * 1.7));
  let checked = 0;
  for (const N of [8, 9, 15, 16, 17, 23, 24, 31, 32, 33, 40, 48, 517]) {
    for (const K of [1, 3, 4, 5, 8, 13, 784]) {
      if (N > 40 && K < 784) continue;
      for (const fused of [false, true]) {
        // fused: relu(matmul + b) is one fully-connected with bias and a [0, inf) clamp
        // (the minmax kernel); plain matmul has neither (the linear kernel).
        const src = fused
          ? `@graph G { input x: Tensor<[1, ${K}], f32>; param w: Tensor<[${K}, ${N}], f32>; param b: Tensor<[${N}], f32>;
               output y: relu(matmul(x, w) + b); }`
          : `@graph G { input x: Tensor<[1, ${K}], f32>; param w: Tensor<[${K}, ${N}], f32>; output y: matmul(x, w); }`;
        const p = shrew.compile(src);
        try {
          const x = vals(K, 0.61), w = vals(K * N, 0.37), b = fused ? vals(N, 1.3) : null;
          p.setParam("G/w", new Tensor("f32", [K, N], w));
          if (b) p.setParam("G/b", new Tensor("f32", [N], b));
          const got = p.run("G", { x: new Tensor("f32", [1, K], x) }).y.data;
          const want = rowTimesMatrix(x, w, b, K, N, fused);
          for (let j = 0; j < N; j++) {
            assert.ok(Object.is(got[j], want[j]) || (got[j] === 0 && want[j] === 0), `N=${N} K=${K} fused=${fused} y[${j}] = ${got[j]}, want ${want[j]}`);
          }
          checked++;
        } finally {
          p.dispose();
        }
      }
    }
  }
  assert.equal(checked, 2 * (11 * 7 + 2));
});

test("products of 2 and 3 rows run row by row: each row the bits of a plain f32 loop, a mostly-zero row too", () => {
  // XNNPACK's one-row kernel per row and panel (its 4-row tile would cost
  // what 4 rows do); a row of 90 % zeros takes the sparse product, which
  // sums from 0 and adds the bias after.
  const K = 784, N = 512;
  const vals = (n, k) => Float32Array.from({ length: n }, (_, i) => Math.fround(Math.sin(i * k + 0.3) * 1.7));
  const w = vals(K * N, 0.37), b = vals(N, 1.3);
  for (const R of [2, 3]) {
    for (const fused of [false, true]) {
      for (const sparseRow of [-1, 0, 1]) {
        const src = fused
          ? `@graph G { input x: Tensor<[${R}, ${K}], f32>; param w: Tensor<[${K}, ${N}], f32>; param b: Tensor<[${N}], f32>;
               output y: relu(matmul(x, w) + b); }`
          : `@graph G { input x: Tensor<[${R}, ${K}], f32>; param w: Tensor<[${K}, ${N}], f32>; output y: matmul(x, w); }`;
        const p = shrew.compile(src);
        try {
          p.setParam("G/w", new Tensor("f32", [K, N], w));
          if (fused) p.setParam("G/b", new Tensor("f32", [N], b));
          const x = vals(R * K, 0.61);
          if (sparseRow >= 0) for (let i = 0; i < K; i++) if (i % 10 !== 3) x[sparseRow * K + i] = 0;
          for (let run = 0; run < 2; run++) {  // panels in either order
            const got = p.run("G", { x: new Tensor("f32", [R, K], x) }).y.data;
            for (let r = 0; r < R; r++) {
              const row = x.subarray(r * K, (r + 1) * K);
              let want;
              if (r === sparseRow) {
                want = rowTimesMatrix(row, w, null, K, N, false);
                if (fused) want = want.map((v, j) => Math.max(Math.fround(v + b[j]), 0));
              } else {
                want = rowTimesMatrix(row, w, fused ? b : null, K, N, fused);
              }
              for (let j = 0; j < N; j++) {
                const y = got[r * N + j];
                assert.ok(Object.is(y, want[j]) || (y === 0 && want[j] === 0),
                  `R=${R} fused=${fused} sparse row ${sparseRow} run ${run}: y[${r}, ${j}] = ${y}, want ${want[j]}`);
              }
            }
          }
          assert.match(p.dump("G"), /xnn_fully_connected\[\d+ panels\]\|by_row\|sparse_rows/);
        } finally {
          p.dispose();
        }
      }
    }
  }
});

test("NaN and Inf times a zero weight stay NaN in matmul with a parameter (XNNPACK's narrow-N kernels)", () => {
  // K = 3 is all remainder for the 4x2c4 kernel that N < 8 selects.
  const p = shrew.compile(`@graph P { input a: Tensor<[2, 3], f32>; param w: Tensor<[3, 2], f32> { init: "ones"; }; output y: matmul(a, w); }`);
  try {
    p.setParam("P/w", new Tensor("f32", [3, 2], [0, 1, 1, 1, 1, 1]));
    const y = p.run("P", { a: new Tensor("f32", [2, 3], [NaN, 1, 1, Infinity, 1, 1]) }).y.data;
    assert.ok(Number.isNaN(y[0]) && Number.isNaN(y[1]), `NaN row: ${[...y.slice(0, 2)]}`);
    assert.ok(Number.isNaN(y[2]), `Inf * 0: ${y[2]}`);
    assert.equal(y[3], Infinity);
    assert.deepEqual([...p.interpret("P", { a: new Tensor("f32", [2, 3], [NaN, 1, 1, Infinity, 1, 1]) }).y.data].map(String),
      [...y].map(String));
  } finally {
    p.dispose();
  }
});

test("u8 products wrap modulo 256 in the wasm build's 16-lane rows, either side broadcast, any length", () => {
  const p = shrew.compile(`@graph G { input x: Tensor<[N], u8>; input y: Tensor<[N], u8>; input s: Tensor<[1], u8>;
    output z: x * y; output l: s * y; output r: x * s; }`);
  try {
    for (const n of [1, 15, 16, 17, 31, 32, 33, 100]) {
      const a = Uint8Array.from({ length: n }, (_, i) => (i * 37 + 5) & 255);
      const b = Uint8Array.from({ length: n }, (_, i) => (i * 91 + 250) & 255);
      const s = 203;
      const got = p.run("G", { x: new Tensor("u8", [n], a), y: new Tensor("u8", [n], b), s: new Tensor("u8", [1], [s]) });
      for (let i = 0; i < n; i++) {
        assert.equal(got.z.data[i], (a[i] * b[i]) & 255, `${a[i]} * ${b[i]} (n ${n})`);
        assert.equal(got.l.data[i], (s * b[i]) & 255, `${s} * ${b[i]} (n ${n})`);
        assert.equal(got.r.data[i], (a[i] * s) & 255, `${a[i]} * ${s} (n ${n})`);
      }
    }
  } finally {
    p.dispose();
  }
});

// Float -> integer casts run four f32 (two f64) lanes at a time while every
// lane is below 2^31 (2^51 for f64), one at a time otherwise: each group
// here mixes both kinds, at every offset, with a ragged tail. Casts to u8
// go 16 f32 or 8 f64 lanes at a time below 2^31.
function truncSaturate(x) {
  if (Number.isNaN(x)) return 0n;
  if (x >= 2 ** 63) return 2n ** 63n - 1n;
  if (x < -(2 ** 63)) return -(2n ** 63n);
  return BigInt(Math.trunc(x));
}

test("float -> integer casts (i64, and u8 wrapping) truncate and saturate exactly, whichever lanes share a vector", () => {
  const edges = [NaN, Infinity, -Infinity, 2147483520, -2147483520, 2 ** 31, -(2 ** 31), 2 ** 51 - 0.5, -(2 ** 51) + 0.5,
    2 ** 51, -(2 ** 51), 2 ** 52 + 1, 9.2e18, -9.3e18, 1e-45, -0, 0.99999, -0.99999, 123456.7, -7.5];
  const ordinary = (i) => Math.sin(i * 0.7) * 1000;
  for (const dtype of ["f32", "f64"]) {
    const round = dtype === "f32" ? Math.fround : (v) => v;
    const xs = [];
    for (let e = 0; e < edges.length; e++) {
      for (let at = 0; at < 4; at++) {
        for (let j = 0; j < 4; j++) xs.push(round(j === at ? edges[e] : ordinary(xs.length)));
      }
    }
    for (let j = 0; j < 3; j++) xs.push(round(edges[j + 3]));  // a tail of 3
    // u8: the truncation's low byte (a row goes 16 f32 or 8 f64 lanes at a time: each edge at each place).
    const group = dtype === "f32" ? 16 : 8;
    for (const edge of [...edges, 2147483646.75, -2147483646.75, 2147483647]) {
      for (let at = 0; at < group; at++) {
        for (let j = 0; j < group; j++) xs.push(round(j === at ? edge : ordinary(xs.length)));
      }
    }
    const p = shrew.compile(`@graph G { input x: Tensor<[N], ${dtype}>; output y: cast(x, dtype: "i64"); output z: cast(x, dtype: "u8"); }`);
    try {
      const x = new Tensor(dtype, [xs.length], dtype === "f32" ? Float32Array.from(xs) : Float64Array.from(xs));
      const got = p.run("G", { x }), interpreted = p.interpret("G", { x });
      for (let i = 0; i < xs.length; i++) {
        assert.equal(got.y.data[i], truncSaturate(xs[i]), `${dtype} cast(${xs[i]}) at ${i}`);
        assert.equal(got.z.data[i], Number(BigInt.asUintN(8, truncSaturate(xs[i]))), `${dtype} cast(${xs[i]}, u8) at ${i}`);
        assert.equal(interpreted.y.data[i], got.y.data[i]);
        assert.equal(interpreted.z.data[i], got.z.data[i]);
      }
    } finally {
      p.dispose();
    }
  }
});

// Casts to bool, from u8 and bool, f32 <-> f64, i64 -> f32 and i64 -> u8 run
// 2-16 lanes at a time in the wasm build (i64 -> f32 only while a group's
// lanes are within 2^51): every pair, each value at every lane of a vector
// and in the ragged tail, against values computed here (bool: non-zero, NaN
// too; the i64 values are ones that rounding through f64 leaves exact).
test("casts to bool, from u8 and bool, between floats, and from i64 give each element's own value, whatever lane it takes", () => {
  const values = {
    f32: [0, -0, 1, -1, 0.5, NaN, Infinity, -Infinity, 1e-45, 255, 3.4e38, -7.25].map(Math.fround),
    f64: [0, -0, 1, -1, 0.5, NaN, Infinity, -Infinity, 5e-324, 255, 1e300, 2 ** 53 + 2, 1 / 3, 1 + 2 ** -24,
          3.4028235677973366e38, -1e-40],
    i64: [0n, 1n, -1n, 255n, 256n, -256n, 2n ** 62n, -(2n ** 63n), 2n ** 63n - 1n, 16777217n, -16777219n,
          2n ** 51n - 1n, -(2n ** 51n), 2n ** 51n, -(2n ** 51n) - 1n, 2n ** 53n + 1n, 1000000007n],
    u8: [0, 1, 2, 127, 128, 254, 255],
    bool: [0, 1],
  };
  const arrays = { f32: Float32Array, f64: Float64Array, i64: BigInt64Array, u8: Uint8Array, bool: Uint8Array };
  const asNumber = (v) => (typeof v === "bigint" ? Number(v) : v);
  const expected = (v, to) => {
    if (to === "bool") return typeof v === "bigint" ? (v !== 0n ? 1 : 0) : (v !== 0 ? 1 : 0);  // NaN !== 0
    if (to === "f32") return Math.fround(asNumber(v));
    if (to === "f64") return asNumber(v);
    if (to === "i64") return BigInt(v);
    return Number(BigInt.asUintN(8, BigInt(v)));  // u8 from u8 or bool
  };
  const pairs = [];
  for (const from of ["f32", "f64", "i64", "u8"]) pairs.push([from, "bool"]);
  for (const to of ["f32", "f64", "i64", "u8"]) pairs.push(["u8", to], ["bool", to]);
  pairs.push(["f32", "f64"], ["f64", "f32"], ["i64", "f32"], ["i64", "f64"], ["i64", "u8"]);
  for (const [from, to] of pairs) {
    if (from === to) continue;
    const xs = [];
    for (const v of values[from]) {
      for (let at = 0; at < 16; at++) {
        for (let j = 0; j < 16; j++) xs.push(j === at ? v : values[from][(xs.length * 7) % values[from].length]);
      }
    }
    xs.push(...values[from].slice(0, 5));  // a ragged tail
    const p = shrew.compile(`@graph G { input x: Tensor<[N], ${from}>; output y: cast(x, dtype: "${to}"); }`);
    try {
      const x = new Tensor(from, [xs.length], arrays[from].from(xs));
      const got = p.run("G", { x }).y.data, interpreted = p.interpret("G", { x }).y.data;
      for (let i = 0; i < xs.length; i++) {
        assert.ok(Object.is(got[i], expected(xs[i], to)), `cast(${xs[i]}: ${from}) to ${to} at ${i}: ${got[i]}`);
        assert.ok(Object.is(interpreted[i], got[i]), `interpreter at ${i}`);
      }
    } finally {
      p.dispose();
    }
  }
});

// max/min over rows of up to 63 take a row per SIMD lane in the wasm build
// (four f32 or two f64 rows at a time, the rest one by one): each row's
// elements in order, so NaN wins and the first of ±0 stays, as a plain loop.
test("max and min over short rows give each row's own extreme, NaN and the first zero's sign included, in every lane", () => {
  const edges = [NaN, -0, 0, Infinity, -Infinity, 1e-45, -3.5, 2.25];
  for (const dtype of ["f32", "f64"]) {
    const round = dtype === "f32" ? Math.fround : (v) => v;
    for (const n of [1, 2, 3, 5, 16, 63]) {
      const rows = 11;  // two groups of 4 (f32) or five of 2 (f64), then the rest
      const xs = [];
      for (let r = 0; r < rows; r++) {
        for (let j = 0; j < n; j++) {
          const e = (r * 7 + j * 3) % 13;
          xs.push(round(e < edges.length && (r + j) % 3 === 0 ? edges[e] : Math.sin(r * 31 + j) * 4));
        }
      }
      const p = shrew.compile(`@graph G { input x: Tensor<[R, ${n}], ${dtype}>; output hi: max(x, dim: -1); output lo: min(x, dim: -1); }`);
      try {
        const x = new Tensor(dtype, [rows, n], dtype === "f32" ? Float32Array.from(xs) : Float64Array.from(xs));
        const out = p.run("G", { x });
        for (let r = 0; r < rows; r++) {
          let hi = -Infinity, lo = Infinity;
          for (let j = 0; j < n; j++) {
            const v = xs[r * n + j];
            if (Number.isNaN(v) || v > hi) hi = Number.isNaN(hi) ? hi : v;
            if (Number.isNaN(v) || v < lo) lo = Number.isNaN(lo) ? lo : v;
          }
          assert.ok(Object.is(out.hi.data[r], hi), `${dtype} max of row ${r} (n ${n}): ${out.hi.data[r]}, want ${hi}`);
          assert.ok(Object.is(out.lo.data[r], lo), `${dtype} min of row ${r} (n ${n}): ${out.lo.data[r]}, want ${lo}`);
        }
      } finally {
        p.dispose();
      }
    }
  }
});

test("f32 % and integral ** in the wasm build: fmod's exact value with the divisor's sign, the rounded power", () => {
  // Both take double arithmetic in the wasm build (runtime/float_mod.h,
  // float_pow.h); JS numbers are doubles, so a plain loop gives the answers.
  const xs = Array.from({ length: 1001 }, (_, i) => Math.fround(Math.sin(i * 0.61) * 10 ** ((i % 14) - 4)));
  const p = shrew.compile(`@graph G { input x: Tensor<[N], f32>; output m: x % 6.2831855; output c: x ** 3;
    output r: x ** -1; output q: (x * 0.5) ** 4; output s: x ** -2; output t: x ** -3; }`);
  try {
    const x = new Tensor("f32", [xs.length], Float32Array.from(xs));
    const out = p.run("G", { x });
    const b = Math.fround(6.2831855);
    for (let i = 0; i < xs.length; i++) {
      let r = xs[i] % b;
      if (r !== 0 && (r < 0) !== (b < 0)) r = Math.fround(r + b);
      assert.ok(Object.is(out.m.data[i], r), `${xs[i]} % ${b} = ${out.m.data[i]}, want ${r}`);
      const h = Math.fround(xs[i] * 0.5);
      // Square-and-multiply in double, as float_pow.h: x·x is exact there.
      const x = xs[i], sq = x * x;
      for (const [name, got, want] of [["c", out.c.data[i], xs[i] ** 3], ["r", out.r.data[i], 1 / xs[i]], ["q", out.q.data[i], h * h * h * h],
        ["s", out.s.data[i], 1 / sq], ["t", out.t.data[i], 1 / (x * sq)]]) {
        assert.ok(Object.is(got, Math.fround(want)), `${name}: x = ${xs[i]}: ${got}, want ${Math.fround(want)}`);
      }
    }
  } finally {
    p.dispose();
  }
  // x ** -1 at the edges, each at every lane of a vector: ±0 give ±inf, ±inf ±0, NaN NaN.
  const edges = [-0, 0, Infinity, -Infinity, NaN, 1e-45, -1e-45, 3.4e38, -2.5].map(Math.fround);
  const ys = [];
  for (const e of edges) for (let at = 0; at < 4; at++) for (let j = 0; j < 4; j++) ys.push(j === at ? e : Math.fround(1.5 + ys.length));
  const q = shrew.compile(`@graph G { input x: Tensor<[N], f32>; output r: x ** -1; }`);
  try {
    const got = q.run("G", { x: new Tensor("f32", [ys.length], Float32Array.from(ys)) }).r.data;
    for (let i = 0; i < ys.length; i++) assert.ok(Object.is(got[i], Math.fround(1 / ys[i])), `${ys[i]} ** -1 = ${got[i]}`);
  } finally {
    q.dispose();
  }
});

test("f64 % in the wasm build is fmod's value with the divisor's sign, bit for bit, at every magnitude", () => {
  // Dekker's exact product in f64x2 lanes (runtime/float_mod.h), libm for the
  // rest; JS % is C's fmod. Quotients beside integers, past 2^52, divisors
  // near 2^±900, zeros, infinities and NaN, in every lane of a block.
  const as = [], bs = [];
  let s = 12345;
  const rnd = () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648) * 4 - 2;
  for (let i = 0; i < 3000; i++) {
    const b = rnd() * 2 ** (Math.floor(rnd() * 40) - (i % 3 === 0 ? 0 : 20));
    let a = rnd() * 2 ** (Math.floor(rnd() * 60) - 20);
    if (i % 5 === 1) a = Math.trunc(rnd() * 1e6) * b * (1 + (i % 2 ? 2 : -2) * 2 ** -52);
    if (i % 7 === 2) a = b * 2 ** (50 + (i % 5)) * rnd();
    if (i % 11 === 3) { a = rnd() * 2 ** 950; }
    as.push(a); bs.push(b);
  }
  for (const a of [0, -0, 1, -7.5, Infinity, -Infinity, NaN, 5e-324, 2 ** 900, -(2 ** -900)]) {
    for (const b of [0, -0, 3, -3, Infinity, NaN, 5e-324, 2 ** 899, 2 ** -899, 2 ** -901]) { as.push(a); bs.push(b); }
  }
  const p = shrew.compile(`@graph G { input a: Tensor<[N], f64>; input b: Tensor<[N], f64>; output m: a % b; output c: a % 0.1; }`);
  try {
    const out = p.run("G", { a: new Tensor("f64", [as.length], Float64Array.from(as)), b: new Tensor("f64", [bs.length], Float64Array.from(bs)) });
    const floored = (x, y) => { const r = x % y; return r !== 0 && (r < 0) !== (y < 0) ? r + y : r; };
    for (let i = 0; i < as.length; i++) {
      assert.ok(Object.is(out.m.data[i], floored(as[i], bs[i])), `${as[i]} % ${bs[i]} = ${out.m.data[i]}, want ${floored(as[i], bs[i])}`);
      assert.ok(Object.is(out.c.data[i], floored(as[i], 0.1)), `${as[i]} % 0.1 = ${out.c.data[i]}, want ${floored(as[i], 0.1)}`);
    }
  } finally {
    p.dispose();
  }
});

test("integer ** 2, 3 and 4 wrap as repeated multiplication in the wasm build's lanes (i64 and u8)", () => {
  const n = 517;
  const xs = Array.from({ length: n }, (_, i) => BigInt(((i * 2654435761) % 4000000007) - 2000000000) * BigInt(i % 3 === 0 ? 1 : 77777));
  const p = shrew.compile(`@graph G { input x: Tensor<[N], i64>; input u: Tensor<[N], u8>;
    output a: x ** 2; output b: x ** 3; output c: x ** 4; output d: u ** 2; output e: u ** 3; output f: u ** 4; }`);
  try {
    const us = Array.from({ length: n }, (_, i) => (i * 37) % 256);
    const out = p.run("G", { x: new Tensor("i64", [n], BigInt64Array.from(xs)), u: new Tensor("u8", [n], Uint8Array.from(us)) });
    for (let i = 0; i < n; i++) {
      for (const [name, e] of [["a", 2n], ["b", 3n], ["c", 4n]]) {
        assert.equal(out[name].data[i], BigInt.asIntN(64, xs[i] ** e), `${xs[i]} ** ${e}`);
      }
      for (const [name, e] of [["d", 2], ["e", 3], ["f", 4]]) {
        assert.equal(out[name].data[i], Number(BigInt(us[i]) ** BigInt(e) % 256n), `u8 ${us[i]} ** ${e}`);
      }
    }
  } finally {
    p.dispose();
  }
});

test("f64 transposes, and f32 ones from strides of 2 KiB, move every element to its place in the wasm build, tile edges included", () => {
  // 2 x 2 blocks of f64x2 shuffles, 4 x 4 of f32x4, inside 16 x 16 tiles (xnn_transpose.cc).
  for (const [dtype, shape, perm] of [["f64", [17, 33], [1, 0]], ["f64", [32, 16], [1, 0]], ["f64", [3, 31, 2], [2, 1, 0]],
    ["f64", [2, 5, 19, 18], [0, 3, 1, 2]], ["f64", [1, 2], [1, 0]], ["f64", [2, 1], [1, 0]], ["f32", [37, 512], [1, 0]],
    ["f32", [6, 1024], [1, 0]], ["f32", [2, 3, 3, 512], [0, 3, 1, 2]], ["f32", [19, 2048], [1, 0]],
    ["f32", [6, 512, 7], [2, 1, 0]], ["f32", [5, 512, 3], [2, 1, 0]]]) {  // rows past the 4 x 4 blocks
    const n = shape.reduce((a, b) => a * b, 1);
    const xs = (dtype === "f64" ? Float64Array : Float32Array).from({ length: n }, (_, i) => i + 0.25);
    const p = shrew.compile(`@graph G { input x: Tensor<[${shape.join(", ")}], ${dtype}>; output y: permute(x, dims: [${perm.join(", ")}]); }`);
    try {
      const y = p.run("G", { x: new Tensor(dtype, shape, xs) }).y.data;
      const outShape = perm.map((a) => shape[a]);
      const inStrides = shape.map((_, k) => shape.slice(k + 1).reduce((a, b) => a * b, 1));
      const index = new Array(shape.length).fill(0);
      for (let o = 0; o < n; o++) {
        let at = 0;
        for (let k = 0; k < perm.length; k++) at += index[k] * inStrides[perm[k]];
        assert.equal(y[o], xs[at], `${shape} by ${perm}: output ${o}`);
        for (let k = outShape.length - 1; k >= 0 && ++index[k] === outShape[k]; k--) index[k] = 0;
      }
    } finally {
      p.dispose();
    }
  }
});

test("a string literal's broken UTF-8 reaches JS as U+FFFD, the same on every call", () => {
  // Strings of 16 bytes or less went through the glue's own decoder, which
  // completed a truncated sequence with the bytes after the string.
  const enc = new TextEncoder();
  const src = (bytes) => new Uint8Array([...enc.encode('@model { name: "ok'), ...bytes,
    ...enc.encode('"; } @graph G { input x: Tensor<[2], f32>; output y: x; }')]);
  for (const [bytes, want] of [[[0xf0, 0x9f, 0x98], "ok\uFFFD"], [[0x8c], "ok\uFFFD"], [[0xf0, 0x9f, 0x98, 0x80], "ok\u{1F600}"]]) {
    const p = shrew.compile(src(bytes));
    try {
      for (let i = 0; i < 3; i++) assert.equal(p.metadata.model.name, want);
    } finally {
      p.dispose();
    }
  }
});

// Rows of 64 bytes to 4 KiB are copied in 16-byte words in the wasm build,
// the last word overlapping the one before (word_copy.h CopyBytes): every
// length lands each element in its place, next to rows it must not touch.
test("concat, split, embedding and expand rows of every length from 16 to 1100 bytes, tails included, in the wasm build", () => {
  const ramp = (n, k) => Float32Array.from({ length: n }, (_, i) => i * 0.25 + k);
  for (const cols of [4, 5, 16, 17, 31, 33, 63, 64, 65, 127, 275]) {
    const rows = 7;
    const p = shrew.compile(`@graph G {
      input a: Tensor<[${rows}, ${cols}], f32>; input b: Tensor<[${rows}, 3], f32>; input ids: Tensor<[9], i64>;
      input r: Tensor<[1, 3, ${cols}], f32>; input c: Tensor<[${rows}, 1, ${cols}], f32>;
      output cat: concat(a, b, a, dim: 1);
      output half: split(concat(a, a, dim: 1), chunks: 2, dim: 1, index: 1);
      output emb: embedding(ids, a);
      output planes: expand(r, shape: [4, 3, ${cols}]);
      output repeated: expand(c, shape: [${rows}, 5, ${cols}]);
    }`);
    try {
      const inputs = { a: new Tensor("f32", [rows, cols], ramp(rows * cols, 0)), b: new Tensor("f32", [rows, 3], ramp(rows * 3, 1000)),
                       ids: new Tensor("i64", [9], BigInt64Array.from([6n, 0n, 3n, 3n, 1n, 6n, 2n, 5n, 4n])),
                       r: new Tensor("f32", [1, 3, cols], ramp(3 * cols, 2000)), c: new Tensor("f32", [rows, 1, cols], ramp(rows * cols, 3000)) };
      const got = p.run("G", inputs), want = p.interpret("G", inputs);
      for (const name of Object.keys(want)) {
        assert.deepEqual(got[name].shape, want[name].shape, `${name} [${cols}]`);
        assert.deepEqual(Array.from(got[name].data), Array.from(want[name].data), `${name} of ${cols} columns`);
      }
      // And the values themselves, by hand for two of them.
      const a = inputs.a.data;
      assert.deepEqual(Array.from(got.emb.data.subarray(0, cols)), Array.from(a.subarray(6 * cols, 7 * cols)));
      assert.deepEqual(Array.from(got.cat.data.subarray(cols, cols + 3)), [1000, 1000.25, 1000.5]);
    } finally {
      p.dispose();
    }
  }
});

// XNNPACK's softmax, which took f32 rows of 9-15 in wasm, flushed a
// probability under 2^-126 to 0: log(softmax(x)) was -inf on the tape and
// -95 in the interpreter, and a hand-written NLL NaN. Rows under 16 keep it.
test("softmax rows of 9-15 keep probabilities under 2^-126, as the interpreter does", () => {
  for (const len of [9, 12, 15]) {
    const p = shrew.compile(`@graph G { input x: Tensor<[2, ${len}], f32>; node s { op: softmax(x); }; output s; output l: log(s); }`);
    try {
      const data = new Float32Array(2 * len);
      data[0] = 95;
      data[len + 1] = 95;
      const x = new Tensor("f32", [2, len], data);
      const got = p.run("G", { x }), ref = p.interpret("G", { x });
      const tiny = Math.exp(-95);
      for (let j = 1; j < len; j++) {
        assert.ok(Math.abs(got.s.data[j] - tiny) < tiny * 1e-3, `len ${len}: s[${j}] = ${got.s.data[j]}`);
        assert.ok(Math.abs(got.l.data[j] + 95) < 1e-3, `len ${len}: log(s)[${j}] = ${got.l.data[j]}`);
        assert.ok(Math.abs(got.l.data[j] - ref.l.data[j]) < 1e-3, `len ${len}: interpreter's ${ref.l.data[j]}`);
      }
    } finally {
      p.dispose();
    }
  }
});

// A permute keeping an innermost axis of 8-256 bytes moves it as one element
// of the tiled copy in the wasm build (XNNPACK took up to 13x the time per
// byte): attention's [B, S, H, Dh] -> [B, H, S, Dh] at every head size,
// ragged tiles, against indices computed here.
test("permutes keeping an innermost axis of 8-256 bytes move each block whole", () => {
  const arrays = { f32: Float32Array, f64: Float64Array, u8: Uint8Array };
  for (const [dtype, dh] of [["f32", 2], ["f32", 4], ["f32", 8], ["f32", 16], ["f32", 32], ["f32", 64], ["f32", 12],
                             ["f64", 2], ["f64", 16], ["u8", 8], ["u8", 128], ["u8", 256]]) {
    for (const [B, S, H] of [[2, 19, 5], [1, 33, 3]]) {
      const n = B * S * H * dh;
      const x = arrays[dtype].from({ length: n }, (_, i) => (dtype === "u8" ? i % 251 : i * 0.5 - 7));
      const p = shrew.compile(`@graph G { input x: Tensor<[${B}, ${S}, ${H}, ${dh}], ${dtype}>; output y: permute(x, dims: [0, 2, 1, 3]); }`);
      try {
        const y = p.run("G", { x: new Tensor(dtype, [B, S, H, dh], x) }).y.data;
        let bad = 0;
        for (let b = 0; b < B; b++) for (let h = 0; h < H; h++) for (let s = 0; s < S; s++) for (let d = 0; d < dh; d++) {
          if (y[((b * H + h) * S + s) * dh + d] !== x[((b * S + s) * H + h) * dh + d]) bad++;
        }
        assert.equal(bad, 0, `${dtype} [${B}, ${S}, ${H}, ${dh}]`);
      } finally {
        p.dispose();
      }
    }
  }
  // Size-1 axes between kept ones: a swap of them is a copy (it wrote a fraction of the output).
  for (const dh of [2, 64]) {
    const shape = [2, 1, 3, 1, dh], n = 6 * dh;
    const x = new Tensor("f32", shape, Float32Array.from({ length: n }, (_, i) => i + 1));
    const p = shrew.compile(`@graph G { input x: Tensor<[${shape}], f32>; output t: transpose(x, dim0: 1, dim1: 3); output q: permute(x, dims: [0, 3, 2, 1, 4]); }`);
    try {
      const out = p.run("G", { x });
      assert.deepEqual([...out.t.data], [...x.data], `transpose of [${shape}]`);
      assert.deepEqual([...out.q.data], [...x.data], `permute of [${shape}]`);
    } finally {
      p.dispose();
    }
  }
});
