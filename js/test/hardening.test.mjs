// Hardening of the wasm build: hostile inputs at run time, the per-tensor
// byte cap (1 GiB in wasm), running out of linear memory (2 GB maximum),
// determinism (bit-identical outputs across runs, and interpreter outputs
// equal to the native build's checksums). The soak is js/test/soak.test.mjs.
// After every error the module and the program must keep working.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { Shrew, Tensor, ShrewRuntimeError, ShrewCompileError } from "../dist/index.js";
import { CASES, ROOT, formulaInputs, readExample } from "./helpers.mjs";

const shrew = await Shrew.load();
const MLP = readExample("mlp_classifier.sw");
const GPT = readExample("tiny_gpt.sw");

const images = (batch, fill = (i) => (i % 13) / 13) =>
  new Tensor("f32", [batch, 784], Float32Array.from({ length: batch * 784 }, (_, i) => fill(i)));

/** Asserts fn() throws a ShrewRuntimeError with `code` whose message has every fragment. */
function throwsRuntime(fn, code, fragments) {
  assert.throws(fn, (e) => {
    assert.ok(e instanceof ShrewRuntimeError, `not a ShrewRuntimeError: ${e}`);
    assert.equal(e.code, code, e.message);
    for (const f of fragments) assert.ok(e.message.includes(f), `'${f}' in: ${e.message}`);
    return true;
  });
}

test("wrong dtypes and shapes are clear errors on both executors; the program keeps running", () => {
  const p = shrew.compile(MLP, { dims: { Batch: 2 } });
  try {
    const good = p.run("Classifier", { images: images(2) }).probs.data.slice();
    for (const exec of ["run", "interpret"]) {
      throwsRuntime(() => p[exec]("Classifier", { images: new Tensor("f64", [2, 784], new Float64Array(2 * 784)) }),
        "invalid_argument", ["input 'images'", "f32"]);
      throwsRuntime(() => p[exec]("Classifier", { images: new Tensor("f32", [2, 783], new Float32Array(2 * 783)) }),
        "invalid_argument", ["input 'images'", "784"]);
      throwsRuntime(() => p[exec]("Classifier", { images: new Tensor("i32", [2, 784], new Int32Array(2 * 784)) }),
        "invalid_argument", ["input 'images'"]);
    }
    assert.deepEqual(p.run("Classifier", { images: images(2) }).probs.data, good);
  } finally {
    p.dispose();
  }
});

// No relu (what relu makes of NaN is implementation-defined, OPS.md §3.4):
// NaN and Inf must reach the outputs of their own rows only.
const SOFTMAX_NET = `@graph Net {
  input x: Tensor<[B, 4], f32>;
  param w: Tensor<[4, 3], f32> { init: "uniform(0.5, 1.5)"; };
  output probs: softmax(matmul(x, w), dim: -1);
  output doubled: x * 2.0;
}`;

test("a program whose calls unroll past the step limit is refused by run, interpret and benchRun; others run", () => {
  // Each graph calls the next twice: 2^40 leaf runs, which ran for ever.
  let src = "";
  for (let i = 0; i < 40; i++) {
    src += `@graph G${i} { input x: Tensor<[2], f32>; output y: G${i + 1}(x) + G${i + 1}(x * 2.0); }\n`;
  }
  src += "@graph G40 { input x: Tensor<[2], f32>; output y: relu(x); }\n";
  const p = shrew.compile(src);
  const x = new Float32Array([1, -2]);
  const why = ["graph 'G0' would perform", "G0 calls G1 2 times, G1 calls G2 2 times", "more than the limit of 67108864"];
  throwsRuntime(() => p.run("G0", { x }), "resource_exhausted", why);
  throwsRuntime(() => p.interpret("G0", { x }), "resource_exhausted", why);
  // Its tape is planned (static shapes), but no run may start: benchRun too (it never returned).
  throwsRuntime(() => p.benchRun("G0", 1), "resource_exhausted", why);
  // Two levels above the leaf: relu(x) + relu(2x), twice over.
  assert.deepEqual(Array.from(p.run("G38", { x }).y.data), [9, 0]);
  p.dispose();
});

test("maxStepsPerRun sets the step limit for compile and loadBundle, and is checked like every option", () => {
  // A repeat of a repeat: 5,461 steps (ir/run_steps.h counts C 5, B 1 + (1 + 30 × 6) + 1, A 1 + (1 + 30 × 184) + 1).
  const src = `@graph A { input x: Tensor<[2], f32>; output y: repeat(30) { B(x) }; }
@graph B { input x: Tensor<[2], f32>; output y: repeat(30) { C(x) }; }
@graph C { input x: Tensor<[2], f32>; output y: x * 0.5 + 1.0; }`;
  const x = new Float32Array([6, -2]);
  const tight = shrew.compile(src, { maxStepsPerRun: 1000 });
  throwsRuntime(() => tight.run("A", { x }), "resource_exhausted",
    ["graph 'A' would perform", "A calls B 30 times, B calls C 30 times", "more than the limit of 1000"]);
  // v -> v / 2 + 1 900 times converges on 2; C alone runs under the limit.
  assert.deepEqual(Array.from(tight.run("C", { x }).y.data), [4, 0]);
  const loose = shrew.compile(src, { maxStepsPerRun: 10000 });
  assert.deepEqual(Array.from(loose.run("A", { x }).y.data), [2, 2]);
  const bundle = loose.saveBundle();
  throwsRuntime(() => shrew.loadBundle(bundle, { maxStepsPerRun: 1000 }).run("A", { x }), "resource_exhausted",
    ["more than the limit of 1000"]);
  assert.deepEqual(Array.from(shrew.loadBundle(bundle).run("A", { x }).y.data), [2, 2]);
  // setDims keeps the limit it was compiled with.
  tight.setDims({});
  throwsRuntime(() => tight.run("A", { x }), "resource_exhausted", ["would perform 5461 operations", "more than the limit of 1000"]);
  // A graph that calls nothing, over a limit of 0: no call chain to name.
  const none = shrew.compile(src, { maxStepsPerRun: 0 });
  throwsRuntime(() => none.run("C", { x }), "resource_exhausted",
    ["graph 'C' would perform 5 operations per run, more than the limit of 0"]);
  none.dispose();
  for (const bad of [-1, 1.5, "9", 2 ** 53]) {
    throwsRuntime(() => shrew.compile(src, { maxStepsPerRun: bad }), "invalid_argument", ["maxStepsPerRun must be"]);
  }
  tight.dispose();
  loose.dispose();
});

test("NaN and Inf propagate row by row, never crash", () => {
  const p = shrew.compile(SOFTMAX_NET);
  try {
    const x = new Tensor("f32", [3, 4], Float32Array.from([NaN, 1, 2, 3, Infinity, 1, 2, 3, 0.5, -1, 2, 0.25]));
    for (const exec of ["run", "interpret"]) {
      const out = p[exec]("Net", { x });
      const probs = out.probs.data;
      for (let c = 0; c < 6; c++) assert.ok(Number.isNaN(probs[c]), `${exec}: probs[${c}] = ${probs[c]}`);
      const row2 = probs.slice(6, 9);
      assert.ok(row2.every(Number.isFinite));
      assert.ok(Math.abs(row2.reduce((a, b) => a + b, 0) - 1) < 1e-6);
      assert.ok(Number.isNaN(out.doubled.data[0]));
      assert.equal(out.doubled.data[4], Infinity);
      assert.equal(out.doubled.data[9], -2);
    }
  } finally {
    p.dispose();
  }
});

test("zero-size batch gives empty outputs", () => {
  const p = shrew.compile(MLP);
  try {
    for (const exec of ["run", "interpret"]) {
      const out = p[exec]("Classifier", { images: new Tensor("f32", [0, 784], new Float32Array(0)) });
      assert.deepEqual([...out.probs.shape], [0, 10]);
      assert.equal(out.probs.data.length, 0);
    }
  } finally {
    p.dispose();
  }
});

test("embedding indices out of range or negative are errors; the next run works", () => {
  const p = shrew.compile(GPT, { dims: { Batch: 2 } });
  try {
    const ids = (bad) => {
      const t = BigInt64Array.from({ length: 32 }, (_, i) => BigInt((i * 7) % 96));
      if (bad !== undefined) t[17] = bad;
      return new Tensor("i64", [2, 16], t);
    };
    const feeds = (bad) => ({ tokens: ids(bad), targets: ids() });
    const good = p.run("LanguageModel", feeds()).logits.data.slice();
    for (const bad of [96n, -1n, 1n << 40n]) {
      for (const exec of ["run", "interpret"]) {
        throwsRuntime(() => p[exec]("LanguageModel", feeds(bad)), "out_of_range", ["embedding", "out of range"]);
        // Where: the embedding call on tiny_gpt.sw's line 34 (the run path's
        // second call with these types takes the prepared run and its lastError).
        assert.throws(() => p[exec]("LanguageModel", feeds(bad)), (e) => e.span?.line === 34 && e.span.column === 26);
      }
      assert.deepEqual(p.run("LanguageModel", feeds()).logits.data, good);
    }
  } finally {
    p.dispose();
  }
});

// [N, N] outer product and three live [N, N] outputs.
const OUTER = `@graph Outer {
  input a: Tensor<[N, 1], f32>;
  input b: Tensor<[1, N], f32>;
  node prod { op: matmul(a, b); };
  output r: relu(prod);
  output t: tanh(prod);
  output s: sigmoid(prod);
}`;
const outerFeeds = (n) => ({
  a: new Tensor("f32", [n, 1], Float32Array.from({ length: n }, (_, i) => (i % 5) - 2)),
  b: new Tensor("f32", [1, n], Float32Array.from({ length: n }, (_, i) => (i % 3) - 1)),
});

/** The module still compiles and runs a small program correctly. */
function stillWorks() {
  const p = shrew.compile(OUTER, { dims: { N: 3 } });
  try {
    const out = p.run("Outer", outerFeeds(3));
    // a = [-2, -1, 0], b = [-1, 0, 1]: prod[0] = [2, 0, -2].
    assert.deepEqual([...out.r.data], [2, 0, 0, 1, 0, 0, 0, 0, 0]);
  } finally {
    p.dispose();
  }
}

test("a value over the 1 GiB byte cap is an error before any allocation", () => {
  const before = shrew.heapStats().heapBytes;
  const p = shrew.compile(OUTER, { dims: { N: 20000 } });  // [20000, 20000] f32 = 1.6 GB
  try {
    for (const exec of ["run", "interpret"]) {
      throwsRuntime(() => p[exec]("Outer", outerFeeds(20000)), "resource_exhausted", ["'prod'", "limit of 1073741824 bytes"]);
    }
  } finally {
    p.dispose();
  }
  assert.ok(shrew.heapStats().heapBytes - before < 64 << 20, "no big allocation was attempted");
  stillWorks();
});

test("maxTensorBytes caps inputs and parameters; the program keeps running", () => {
  // w1 is f32[784, 128] = 401408 bytes.
  throwsRuntime(() => shrew.compile(MLP, { maxTensorBytes: 100000 }), "resource_exhausted",
    ["parameter 'w1'", "limit of 100000 bytes"]);
  // It points at w1's declaration (mlp_classifier.sw line 22), for tools.
  assert.throws(() => shrew.compile(MLP, { maxTensorBytes: 100000 }), (e) => e.span?.line === 22 && e.span.column === 5);
  const p = shrew.compile(MLP, { maxTensorBytes: 500000 });
  try {
    for (const exec of ["run", "interpret"]) {
      throwsRuntime(() => p[exec]("Classifier", { images: images(200) }), "resource_exhausted",
        ["input 'images'", "627200 bytes", "limit of 500000 bytes"]);
    }
    const out = p.run("Classifier", { images: images(100) });
    assert.deepEqual([...out.probs.shape], [100, 10]);
  } finally {
    p.dispose();
  }
});

test("running out of wasm memory is an error and the module stays usable", () => {
  // Each [15000, 15000] f32 value is 900 MB (under the cap); three live
  // outputs need 2.7 GB of arena, more than the 2 GB the module may grow to.
  const p = shrew.compile(OUTER, { dims: { N: 15000 } });
  try {
    for (const exec of ["run", "interpret"]) {
      throwsRuntime(() => p[exec]("Outer", outerFeeds(15000)), "resource_exhausted", []);
    }
  } finally {
    p.dispose();
  }
  stillWorks();
  const mlp = shrew.compile(MLP, { dims: { Batch: 2 } });
  try {
    const out = mlp.run("Classifier", { images: images(2) });
    const ref = mlp.interpret("Classifier", { images: images(2) });
    for (let i = 0; i < 20; i++) assert.ok(Math.abs(out.probs.data[i] - ref.probs.data[i]) < 1e-5);
  } finally {
    mlp.dispose();
  }
});

test("an input whose arena fits but whose staging copy does not is an error, not an abort", () => {
  // 800 MiB in (under the cap) and 800 MiB out: the arena fits in 2 GB, the
  // copy run() stages the input in does not.
  const p = shrew.compile("@graph G {\n    input x: Tensor<[B, 1024, 1024], f32>;\n    output y: x * 2.0;\n}\n");
  try {
    const big = new Tensor("f32", [200, 1024, 1024], new Float32Array(200 * 1024 * 1024));
    const used = shrew.heapStats().usedBytes;
    throwsRuntime(() => p.run("G", { x: big }), "resource_exhausted", ["input 'x'", "838860800-byte staging buffer"]);
    // The 1.6 GB arena grown for the run that failed is given back, not kept for the program's life.
    assert.ok(shrew.heapStats().usedBytes - used < 64 << 20, `${shrew.heapStats().usedBytes - used} bytes still held`);
    const y = p.run("G", { x: new Tensor("f32", [1, 1024, 1024], new Float32Array(1 << 20).fill(1.5)) });
    assert.equal(y.y.data[12345], 3);
  } finally {
    p.dispose();
  }
  stillWorks();
});

test("an i64 value outside an input's declared i32 is an error naming it (it ran with the value, outputs wrapped)", () => {
  // G has an i32 output (a 32-bit copy of its i64 values), H a bool output alone.
  const p = shrew.compile("@graph G {\n  input a: Tensor<[N], i32>;\n  output same: a + 0;\n  output positive: a > 0;\n}\n" +
    "@graph H {\n  input a: Tensor<[N], i32>;\n  output positive: a > 0;\n}\n");
  try {
    for (const graph of ["G", "H"]) {
      for (const exec of ["run", "interpret"]) {
        const bad = { a: new Tensor("i64", [3], [7n, 2n ** 32n, -1n]) };
        throwsRuntime(() => p[exec](graph, bad), "invalid_argument",
          [`input 'a' of graph '${graph}': value 4294967296 (at index 1) does not fit i32, its declared dtype`]);
        assert.throws(() => p[exec](graph, bad), (e) => {
          assert.deepEqual([e.input, e.expected, e.actual], ["a", "i32 values", "4294967296 at index 1"], `${graph} ${exec}`);
          return true;
        });
        const ok = p[exec](graph, { a: new Tensor("i64", [2], [2n ** 31n - 1n, -(2n ** 31n)]) });
        if (graph === "G") assert.deepEqual([...ok.same.data], [2147483647, -2147483648]);
        assert.deepEqual([...ok.positive.data], [1, 0]);
      }
    }
  } finally {
    p.dispose();
  }
});

test("a u64 input or parameter (held as i64) refuses a negative value, on the lean path's repeats too", () => {
  const p = shrew.compile("@graph G {\n  input a: Tensor<[2], u64>;\n  param w: Tensor<[2], u64> { init: \"zeros\"; };\n" +
    "  output positive: a > 0;\n  output ww: w;\n}\n");
  try {
    for (let round = 0; round < 3; round++) {
      for (const exec of ["run", "interpret"]) {
        throwsRuntime(() => p[exec]("G", { a: new BigInt64Array([-1n, 2n]) }), "invalid_argument",
          ["input 'a' of graph 'G': value -1 (at index 0) does not fit u64, its declared dtype (0 to 9223372036854775807)"]);
        assert.deepEqual([...p[exec]("G", { a: new BigInt64Array([2n ** 63n - 1n, 0n]) }).positive.data], [1, 0]);
      }
    }
    throwsRuntime(() => p.setParam("G/w", new Tensor("i64", [2], [5n, -1n])), "invalid_argument",
      ["parameter 'G/w': value -1 (at index 1) does not fit u64"]);
    assert.deepEqual([...p.getParam("G/w").data], [0n, 0n]);
  } finally {
    p.dispose();
  }
});

test("a parameter declared i8 takes what the dtype holds: setParam and loadParams refuse 300 (it was computed with)", () => {
  const p = shrew.compile("@graph G {\n  input x: Tensor<[2], i8>;\n  param w: Tensor<[2], i8> { init: \"zeros\"; };\n  output y: x + w;\n}\n");
  try {
    throwsRuntime(() => p.setParam("G/w", new Tensor("i32", [2], [300, -1000])), "invalid_argument",
      ["parameter 'G/w': value 300 (at index 0) does not fit i8, its declared dtype (-128 to 127)"]);
    // A blob holding -1000 for w (its values are the last 16 bytes, two i64): all or nothing.
    const blob = p.saveParams();
    new DataView(blob.buffer).setBigInt64(blob.byteLength - 8, -1000n, true);
    throwsRuntime(() => p.loadParams(blob), "invalid_argument",
      ["parameter 'G/w': value -1000 (at index 1) does not fit i8"]);
    assert.deepEqual([...p.getParam("G/w").data], [0, 0]);
    p.setParam("G/w", new Tensor("i32", [2], [127, -128]));
    assert.deepEqual([...p.run("G", { x: new Int32Array([0, 1]) }).y.data], [127, -127]);
  } finally {
    p.dispose();
  }
});

test("XNNPACK running out of memory packing a weight is resource_exhausted (at the node), not internal", () => {
  // A 1 GiB weight fits; its packed copy, another 1 GiB, does not. The position is the span, not a rendered
  // E150 header in the message.
  const src = "@config { H: 4; }\n@graph G {\n  input x: Tensor<[B, D], f32>;\n  param w: Tensor<[D, H], f32> { init: \"ones\"; };\n  output y: matmul(x, w);\n}\n";
  assert.throws(() => shrew.compile(src, { dims: { B: 1, D: 2 ** 26 } }), (e) => e instanceof ShrewRuntimeError &&
    e.code === "resource_exhausted" &&
    e.message === "graph 'G': node 'y' (matmul): XNNPACK matmul fully_connected create failed: out of memory" &&
    e.span?.line === 5 && e.span?.column === 3);
  const p = shrew.compile(src, { dims: { B: 1, D: 3 } });
  try {
    assert.deepEqual([...p.run("G", { x: new Float32Array([1, 2, 3]) }).y.data], [6, 6, 6, 6]);
  } finally {
    p.dispose();
  }
});

test("with wasm memory nearly full, compile, loadBundle, setDims and run are resource_exhausted, not an abort", async () => {
  // A module of its own, filled with parameters (tensors: their allocation failing is an error) until even
  // a compile of one is refused.
  const own = await Shrew.load({ wasmBinary: readFileSync(new URL("../dist/wasm/shrew.wasm", import.meta.url)) });
  const small = own.compile("@graph G {\n  input x: Tensor<[N], f32>;\n  output y: x * 3.0;\n}\n");
  const x = new Tensor("f32", [2], [1, 2]);
  const bundle = small.saveBundle();
  // Input types fixed: prepared by compile, so its runs need no more memory.
  const ready = own.compile("@graph R {\n  input x: Tensor<[2], f32>;\n  output y: x - 1.0;\n}\n");
  const last = own.compile("@graph L {\n  input x: Tensor<[N], f32>;\n  output y: x + 1.0;\n}\n");
  const hogs = [last];
  for (let n = 1 << 26; n >= 1 << 14; ) {
    try {
      hogs.push(own.compile(`@graph H { param w: Tensor<[${n}], f32> { init: "zeros"; }; output y: w; }`));
    } catch (e) {
      assert.ok(e instanceof ShrewRuntimeError && e.code === "resource_exhausted", String(e));
      n >>= 1;
    }
  }
  // Compiles stop while up to 16 MiB (their margin) are free: a run's 12 MB arena and staging copy take those.
  try {
    last.run("L", { x: new Tensor("f32", [1 << 20], new Float32Array(1 << 20)) });
  } catch (e) {
    assert.ok(e instanceof ShrewRuntimeError && e.code === "resource_exhausted", String(e));
  }
  assert.ok(own.heapStats().heapBytes > 2 ** 31 - (64 << 20));
  const full = (what) => ["not enough wasm memory left to " + what, "dispose of programs no longer needed"];
  throwsRuntime(() => own.compile(MLP, { dims: { Batch: 1 } }), "resource_exhausted", full("compile"));
  throwsRuntime(() => own.loadBundle(bundle), "resource_exhausted", []);
  throwsRuntime(() => small.run("G", { x }), "resource_exhausted", full("run"));
  throwsRuntime(() => small.interpret("G", { x }), "resource_exhausted", full("interpret"));
  throwsRuntime(() => small.setDims({ N: 2 }), "resource_exhausted", full("compile with new dims"));
  // Text about a graph, a profile's table and a copy of the weights: these aborted the module.
  throwsRuntime(() => ready.tape("R"), "resource_exhausted", full("write the tape"));
  throwsRuntime(() => ready.dump("R"), "resource_exhausted", full("dump"));
  throwsRuntime(() => ready.plan("R"), "resource_exhausted", full("write the plan"));
  throwsRuntime(() => ready.ir("R"), "resource_exhausted", full("write the IR"));
  throwsRuntime(() => ready.profile("R", { x: new Float32Array([1, 2]) }, { runs: 2, warmup: 0 }), "resource_exhausted", []);
  throwsRuntime(() => hogs[1].saveParams(), "resource_exhausted", full("save the parameters"));
  throwsRuntime(() => hogs[1].saveBundle(), "resource_exhausted", full("save a bundle"));
  // Its checksum hashes the weights where they are.
  const sum = hogs[1].paramsChecksum();
  assert.match(sum, /^[0-9a-f]{16}$/);
  assert.deepEqual([...ready.run("R", { x: new Float32Array([1, 2]) }).y.data], [0, 1]);
  assert.equal(own.aborted, false);
  const [first, smallest] = [hogs[1], hogs[hogs.length - 1]];
  for (const h of hogs.slice(2, -1)) h.dispose();
  assert.equal(first.paramsChecksum(), sum);
  assert.equal(smallest.paramsChecksum(), fnv1a64(smallest.saveParams()));  // the blob's FNV-1a
  for (const h of [first, smallest, last]) h.dispose();
  assert.deepEqual([...small.run("G", { x }).y.data], [3, 6]);
  const loaded = own.loadBundle(bundle);
  assert.deepEqual([...loaded.run("G", { x: new Tensor("f32", [2], [-1, 0.5]) }).y.data], [-3, 1.5]);
  const mlp = own.compile(MLP, { dims: { Batch: 2 } });
  const out = mlp.run("Classifier", { images: images(2) });
  const ref = mlp.interpret("Classifier", { images: images(2) });
  for (let i = 0; i < 20; i++) assert.ok(Math.abs(out.probs.data[i] - ref.probs.data[i]) < 1e-5);
  for (const p of [mlp, loaded, small, ready]) p.dispose();
});

// A source longer than the module's memory could ever compile (64 bytes per
// byte beside what the module holds, 2 GiB at most: 28 MiB) is said as
// such: it read "not enough wasm memory left to compile (2576 MiB is kept
// free for it); dispose of programs no longer needed". Just under it, in a
// fresh module, a source of mostly comment compiles.
test("a source longer than the module can compile is told so, not as memory in use", async () => {
  const limit = 28 * 2 ** 20;
  const body = "@graph G {\n  input x: Tensor<[2], f32>;\n  output y: x * 2.0;\n}\n// ";
  const padded = (n) => body + "a".repeat(n - body.length);
  throwsRuntime(() => shrew.compile(padded(limit + 1)), "resource_exhausted",
    [`the source is ${limit + 1} bytes, more than the ${limit} (28 MiB) this module compiles (compiling takes up to 64 bytes of memory per byte of source, and its memory is at most 2 GiB)`]);
  throwsRuntime(() => shrew.compile(padded(40 * 2 ** 20)), "resource_exhausted", [`the source is ${40 * 2 ** 20} bytes, more than the ${limit} (28 MiB)`]);
  const own = await Shrew.load({ wasmBinary: readFileSync(new URL("../dist/wasm/shrew.wasm", import.meta.url)) });
  const p = own.compile(padded(limit));
  assert.deepEqual([...p.run("G", { x: new Float32Array([1, 2]) }).y.data], [2, 4]);
  p.dispose();
  // A short source of many nodes: building its executors takes about 3 KiB a node, so a sum of 400,000
  // terms (800 KB) is refused before it is built (a 3 MiB one aborted the module), which then goes on.
  const terms = 400_000;
  throwsRuntime(() => own.compile(`@graph S {\n  input x: Tensor<[2], f32>;\n  output y: x${" + x".repeat(terms - 1)};\n}\n`),
    "resource_exhausted", [`not enough wasm memory to build a program of ${terms} nodes: it needs up to `, "more than a module's memory holds (2048 MiB)"]);
  assert.equal(own.aborted, false);
  const q = own.compile(padded(1000));
  assert.deepEqual([...q.run("G", { x: new Float32Array([1, 2]) }).y.data], [2, 4]);
});

// ---- determinism (the input formula of tests/api/determinism_test.cc)

function fnv1a64(data) {
  const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  let h = 0xcbf29ce484222325n;
  for (const b of bytes) h = ((h ^ BigInt(b)) * 0x100000001b3n) & 0xffffffffffffffffn;
  return h.toString(16).padStart(16, "0");
}

// Examples whose interpreter uses only operations that glibc and Emscripten's
// musl compute identically (+ - * /, sqrt, expf, logf: correctly rounded or
// the same code). The others use tanhf (tanh, gelu), whose last bit differs
// between the two libms; there only the output types are compared.
const PORTABLE = new Set(["mlp_classifier.sw", "logistic_regression.sw", "logic_reductions.sw"]);

const typeString = (t) => `${t.dtype}[${[...t.shape].join(", ")}]`;

test("a run of 100,000 operators compiles and runs on the 1 MB wasm stack; a postfix chain that tall is E021", () => {
  // y = x + 3x - x + 3x - … = 100,001·x, exact in f32 for these x.
  let src = "@graph G {\n  input x: Tensor<[4], f32>;\n  output y: x";
  for (let i = 0; i < 100000; i++) src += i % 2 ? " + x * 3" : " - x";
  const p = shrew.compile(src + ";\n}\n");
  const x = new Float32Array([1, 2, -3, 4]);
  for (const run of [p.run.bind(p), p.interpret.bind(p)]) {
    assert.deepEqual([...run("G", { x }).y.data], [...x].map((v) => 100001 * v));
  }
  p.dispose();
  let members = "@graph G { input x: f32; output y: x";
  for (let i = 0; i < 100000; i++) members += ".x";
  assert.throws(() => shrew.compile(members + "; }"), (e) => {
    assert.ok(e instanceof ShrewCompileError);
    assert.equal(e.diagnostics[0].code, "E021");
    assert.match(e.diagnostics[0].message, /too deeply nested/);
    return true;
  });
  // The module keeps working.
  assert.deepEqual([...shrew.compile("@graph H { input x: Tensor<[2], f32>; output y: x + x; }")
    .run("H", { x: new Float32Array([1, 2]) }).y.data], [2, 4]);
});

test("determinism: repeated runs are bit-identical; interpreter outputs match the native build", () => {
  const golden = new Map();
  for (const line of readFileSync(`${ROOT}tests/testdata/determinism/outputs.txt`, "utf8").split("\n")) {
    if (!line || line.startsWith("#")) continue;
    const [file, graph, executor, output, ...rest] = line.split(" ");
    const sum = rest.pop();
    golden.set(`${file} ${graph} ${executor} ${output}`, `${rest.join(" ")} ${sum}`);
  }
  let compared = 0;
  let bitwise = 0;
  for (const c of CASES) {
    const p = shrew.compile(readExample(c.file), { filename: c.file, dims: c.dims, seed: 1234 });
    try {
      const feeds = formulaInputs(p.signature(c.graph), c.dims);
      const tape = p.run(c.graph, feeds);
      const ref = p.interpret(c.graph, feeds);
      for (let i = 0; i < 2; i++) {
        const again = p.run(c.graph, feeds);
        for (const name of Object.keys(tape)) assert.deepEqual(again[name].data, tape[name].data, `${c.file} ${name} tape`);
        const refAgain = p.interpret(c.graph, feeds);
        for (const name of Object.keys(ref)) assert.deepEqual(refAgain[name].data, ref[name].data, `${c.file} ${name} interp`);
      }
      for (const [name, t] of Object.entries(ref)) {
        const key = `${c.file} ${c.graph} interp ${name}`;
        assert.ok(golden.has(key), `no native checksum for ${key}`);
        if (PORTABLE.has(c.file)) {
          assert.equal(`${typeString(t)} ${fnv1a64(t.data)}`, golden.get(key), `${key}: wasm interpreter vs native`);
          bitwise++;
        } else {
          assert.equal(typeString(t), golden.get(key).split(" ").slice(0, -1).join(" "), `${key}: type`);
        }
        compared++;
      }
    } finally {
      p.dispose();
    }
  }
  assert.equal(compared, golden.size, "every native row was compared");
  const portableRows = [...golden.keys()].filter((k) => PORTABLE.has(k.split(" ")[0])).length;
  assert.ok(portableRows >= 17, `${portableRows} portable rows`);
  assert.equal(bitwise, portableRows, "every portable row was compared bit for bit");
});
