// The lean run path behind Program.run (prepared bindings, inputs written
// into the wasm heap, one integer call, outputs copied out): it must give
// exactly what the value path (interpret, and run on first use of each
// binding) gives, survive shape changes, parameter changes and heap growth,
// hand out arrays the caller owns, fall back for i32, and report input errors
// with fields from C++. Graphs whose input types the configuration fixes are
// prepared by compile and setDims. benchRun times the tape inside wasm.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Shrew, Tensor, ShrewRuntimeError } from "../dist/index.js";
import { instantiate, instantiateDefault } from "../dist/module.js";
import { readExample } from "./helpers.mjs";

const shrew = await Shrew.load();
const MLP = readExample("mlp_classifier.sw");
const randomF32 = (n, k = 0.37) => Float32Array.from({ length: n }, (_, i) => Math.sin(i * k));

function close(a, b, tol = 1e-5) {
  assert.equal(a.length, b.length);
  for (let i = 0; i < a.length; i++) assert.ok(Math.abs(a[i] - b[i]) <= tol * (1 + Math.abs(b[i])), `[${i}] ${a[i]} vs ${b[i]}`);
}

test("repeated runs match the interpreter across batch changes, setParam and heap growth", () => {
  const p = shrew.compile(MLP, { seed: 7 });
  try {
    const run = (batch, k) => {
      const x = new Tensor("f32", [batch, 784], randomF32(batch * 784, k));
      const got = p.run("Classifier", { images: x });
      const want = p.interpret("Classifier", { images: x });
      assert.deepEqual([...got.probs.shape], [batch, 10]);
      close(got.probs.data, want.probs.data);
      close(got.logits.data, want.logits.data, 1e-4);
      return got;
    };
    const first = run(2, 0.1);
    const again = run(2, 0.1);  // second call: the prepared path
    assert.deepEqual(again.logits.data, first.logits.data);
    assert.notEqual(again.logits.data.buffer, first.logits.data.buffer);  // fresh arrays per call
    first.logits.data.fill(123);  // the caller owns its outputs
    assert.deepEqual(run(2, 0.1).logits.data, again.logits.data);
    run(3, 0.2);
    run(3, 0.3);  // new inputs through the same prepared buffers
    run(600, 0.4);  // a large binding grows the wasm heap
    run(2, 0.1);
    p.setParam("Classifier/b2", new Tensor("f32", [10], Float32Array.from({ length: 10 }, (_, i) => i)));
    p.setParam("Classifier/w2", new Tensor("f32", [128, 10], new Float32Array(1280)));
    const after = run(2, 0.1);
    assert.deepEqual([...after.logits.data], [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  } finally {
    p.dispose();
  }
});

test("alternating batch sizes keep their prepared bindings (8 per graph, least recently used dropped), all exact", async () => {
  // A server batching requests of varying sizes: each size is prepared once,
  // not again every time the size changes.
  const proto = (await instantiateDefault()).raw.ProgramHandle.prototype;
  const prepare = proto.prepare;
  let prepares = 0;
  proto.prepare = function (...args) {
    prepares++;
    return prepare.apply(this, args);
  };
  const p = shrew.compile(MLP, { seed: 5 });
  try {
    const run = (batch) => {
      const x = new Tensor("f32", [batch, 784], randomF32(batch * 784, 0.1 + batch / 7));
      const got = p.run("Classifier", { images: x });
      assert.deepEqual([...got.probs.shape], [batch, 10]);
      close(got.probs.data, p.interpret("Classifier", { images: x }).probs.data);
    };
    const before = prepares;
    for (let round = 0; round < 3; round++) for (const b of [1, 2, 3, 4, 5, 6, 7, 8]) run(b);
    assert.equal(prepares - before, 8);
    run(9);  // a ninth size drops the least recently used binding (batch 1)
    run(2);
    assert.equal(prepares - before, 9);
    run(1);
    assert.equal(prepares - before, 10);
  } finally {
    proto.prepare = prepare;
    p.dispose();
  }
});

const FIXED = `@config { Width: 5; }
@graph Fixed {
    input x: Tensor<[Batch, Width], f32>;
    input s: Tensor<[Width], f32>;
    output y: tanh(x) * s;
    output z: x + x;
}
@graph Open {
    input x: Tensor<[?, Width], f32>;
    output y: x * x;
}`;

test("compile prepares graphs whose input types the configuration fixes (module contract)", async () => {
  const state = await instantiate();
  const raw = state.raw;
  const h = new raw.ProgramHandle();
  try {
    const r = h.compile(FIXED, { dims: { Batch: 3 } });
    assert.equal(r.ok, true, r.rendered);
    assert.deepEqual(r.graphs.map((g) => g.name), ["Fixed", "Open"]);
    const [fixed, open] = r.graphs;
    assert.deepEqual(fixed.signature, h.signature("Fixed"));
    assert.deepEqual(open.signature, h.signature("Open"));
    // Declaration order, config and compile dims resolved.
    assert.deepEqual(fixed.key, [{ name: "x", dtype: "f32", shape: [3, 5] }, { name: "s", dtype: "f32", shape: [5] }]);
    assert.equal(open.key, undefined);  // ? dims: prepared by its first run
    assert.equal(open.prepared, undefined);
    const p = fixed.prepared;
    assert.equal(p.ok, true);
    assert.equal(p.lean, true);
    assert.deepEqual(p.inputs.map((i) => i.bytes), [60, 20]);
    assert.deepEqual(p.outputs.map((o) => [o.name, o.dtype, o.shape, o.bytes]), [["y", "f32", [3, 5], 60], ["z", "f32", [3, 5], 60]]);
    // Running it: the outputs of run() on the same inputs, bit for bit.
    const x = randomF32(15, 0.7), sc = randomF32(5, 1.3);
    raw.HEAPU8.set(new Uint8Array(x.buffer), p.inputs[0].ptr);
    raw.HEAPU8.set(new Uint8Array(sc.buffer), p.inputs[1].ptr);
    assert.equal(raw._shrew_run_prepared(p.handle, p.id), 0);
    const ptrs = new Uint32Array(raw.HEAPU8.buffer, p.outPtrs, 2);
    const y = new Float32Array(raw.HEAPU8.buffer.slice(ptrs[0], ptrs[0] + 60));
    const z = new Float32Array(raw.HEAPU8.buffer.slice(ptrs[1], ptrs[1] + 60));
    const want = h.run("Fixed", [
      { name: "x", dtype: "f32", shape: [3, 5], bytes: new Uint8Array(x.buffer) },
      { name: "s", dtype: "f32", shape: [5], bytes: new Uint8Array(sc.buffer) },
    ]);
    assert.equal(want.ok, true);
    const wantY = want.outputs[0].bytes;
    assert.deepEqual([...y], [...new Float32Array(wantY.buffer.slice(wantY.byteOffset, wantY.byteOffset + 60))]);
    for (let i = 0; i < 15; i++) assert.equal(z[i], x[i] + x[i]);
    // The plain export checks the id: an unknown or released one is an error value, not a trap.
    assert.equal(p.handle > 0, true);
    assert.equal(raw._shrew_run_prepared(p.handle, p.id + 1000), 1);
    assert.match(h.lastError().message, /no prepared run/);
    h.release(p.id);
    assert.equal(raw._shrew_run_prepared(p.handle, p.id), 1);
    assert.match(h.lastError().message, /no prepared run/);
    // Inputs over 16 MiB in all: prepared by the first run, not held from compile on.
    const big = h.compile(`@graph Big {\n    input x: Tensor<[1100, 4096], f32>;\n    output y: x + x;\n}`, {});
    assert.equal(big.ok, true, big.rendered);
    assert.equal(big.graphs[0].key, undefined);
    assert.equal(big.graphs[0].prepared, undefined);
    assert.equal(h.compile(FIXED, { dims: { Batch: 3 } }).ok, true);
    // setDims prepares again for the new sizes.
    const d = h.setDims({ Batch: 2 });
    assert.equal(d.ok, true);
    assert.deepEqual(d.graphs[0].key[0].shape, [2, 5]);
    assert.deepEqual(d.graphs[0].prepared.inputs.map((i) => i.bytes), [40, 20]);
  } finally {
    h.delete();
  }
});

test("a prepared first run, other feed orders and shapes, and setDims all match the interpreter", () => {
  const p = shrew.compile(FIXED, { dims: { Batch: 3 } });
  try {
    const check = (feeds, graph = "Fixed") => {
      const got = p.run(graph, feeds);
      const want = p.interpret(graph, feeds);
      for (const k of Object.keys(want)) {
        assert.deepEqual([...got[k].shape], [...want[k].shape]);
        close(got[k].data, want[k].data);
      }
      return got;
    };
    const x = (b, k) => new Tensor("f32", [b, 5], randomF32(b * 5, k));
    const s = new Tensor("f32", [5], randomF32(5, 0.9));
    const first = check({ x: x(3, 0.1), s });  // the run compile prepared
    assert.deepEqual(check({ x: x(3, 0.1), s }).y.data, first.y.data);
    check({ s, x: x(3, 0.2) });  // other feed order: prepared again
    check({ x: randomF32(15, 0.3), s: randomF32(5, 0.4) });  // typed arrays: shapes from the signature
    check({ x: x(4, 0.3) }, "Open");
    check({ x: x(1, 0.5) }, "Open");
    p.setDims({ Batch: 2 });
    const after = check({ x: x(2, 0.6), s });
    assert.deepEqual([...after.z.shape], [2, 5]);
    assert.throws(() => p.run("Fixed", { x: x(3, 0.1), s }), (e) => e instanceof ShrewRuntimeError && e.input === "x");
    check({ x: x(2, 0.7), s });  // usable after the error
  } finally {
    p.dispose();
  }
});

test("i32 inputs and outputs take the lean path through 32-bit copies (i64 inside) and stay exact", () => {
  const src = `@graph G {
    input a: Tensor<[N], i32>;
    input b: Tensor<[N], f32>;
    output s: a + a;
    output t: b * 2.0;
  }
  @graph H {
    input c: Tensor<[N], i8>;
    output d: c * 2;
  }`;
  const p = shrew.compile(src);
  try {
    for (let k = 0; k < 3; k++) {
      const feeds = { a: new Tensor("i32", [3], Int32Array.from([1, -2, 2 ** 30 + k])), b: new Tensor("f32", [3], Float32Array.from([1, 2, 3])) };
      for (const exec of ["run", "interpret"]) {  // lean path, value path
        const out = p[exec]("G", feeds);
        assert.ok(out.s.data instanceof Int32Array);
        assert.deepEqual([...out.s.data], [2, -4, -(2 ** 31) + 2 * k], exec);  // i32 wraps (OPS.md)
        assert.deepEqual([...out.t.data], [2, 4, 6]);
      }
    }
    // Every element crosses, at each length (the widening and narrowing loops).
    for (const n of [0, 1, 5, 1000]) {
      const a = Int32Array.from({ length: n }, (_, i) => (i * 2654435761) | 0);
      const s = p.run("G", { a: new Tensor("i32", [n], a), b: new Tensor("f32", [n], new Float32Array(n)) }).s.data;
      assert.deepEqual([...s], [...a].map((v) => (2 * v) | 0), `n=${n}`);
    }
    // A declared i8 crosses as i32: a value out of its range is named on either path, and the program stays usable.
    for (const exec of ["run", "interpret", "run"]) {
      assert.throws(() => p[exec]("H", { c: new Tensor("i32", [2], [5, 300]) }), (e) => {
        assert.ok(e instanceof ShrewRuntimeError, String(e));
        assert.deepEqual([e.input, e.actual], ["c", "300 at index 1"], `${exec}: ${e.message}`);
        return true;
      });
      assert.deepEqual([...p[exec]("H", { c: new Tensor("i32", [2], [5, -128]) }).d.data], [10, -256], exec);
    }
  } finally {
    p.dispose();
  }
});

test("prepare hands out 32-bit buffers for i32 inputs and outputs (module contract)", async () => {
  const state = await instantiate();
  const h = new state.raw.ProgramHandle();
  try {
    assert.equal(h.compile("@graph G { input a: Tensor<[3], i32>; output s: a * 3; output f: cast(a, dtype: \"f32\"); }", {}).ok, true);
    const p = h.prepare("G", [{ name: "a", dtype: "i32", shape: [3] }]);
    assert.equal(p.lean, true);
    assert.deepEqual(p.inputs.map((i) => i.bytes), [12]);
    assert.deepEqual(p.outputs.map((o) => [o.name, o.dtype, o.bytes]), [["s", "i32", 12], ["f", "f32", 12]]);
    state.raw.HEAPU8.set(new Uint8Array(Int32Array.from([7, -1, 2 ** 31 - 1]).buffer), p.inputs[0].ptr);
    assert.equal(state.raw._shrew_run_prepared(p.handle, p.id), 0);
    const ptrs = new Uint32Array(state.raw.HEAPU8.buffer, p.outPtrs, 2);
    assert.deepEqual([...new Int32Array(state.raw.HEAPU8.buffer.slice(ptrs[0], ptrs[0] + 12))], [21, -3, 2147483645]);
    assert.deepEqual([...new Float32Array(state.raw.HEAPU8.buffer.slice(ptrs[1], ptrs[1] + 12))], [7, -1, 2147483648]);
    h.release(p.id);
  } finally {
    h.delete();
  }
});

test("input errors carry input, expected and actual from C++; the program stays usable", () => {
  const p = shrew.compile(MLP, { dims: { Batch: 2 } });
  try {
    const good = new Tensor("f32", [2, 784], randomF32(2 * 784));
    const ok = p.run("Classifier", { images: good }).probs.data;
    const expectErr = (feeds, fields) => assert.throws(() => p.run("Classifier", feeds), (e) => {
      assert.ok(e instanceof ShrewRuntimeError, String(e));
      assert.equal(e.code, "invalid_argument", e.message);
      for (const [k, v] of Object.entries(fields)) assert.equal(e[k], v, `${k}: ${e.message}`);
      return true;
    });
    // Batch is bound by the compile options, so the expected shape is concrete.
    expectErr({ images: new Tensor("f32", [2, 783]) }, { input: "images", expected: "[2, 784]", actual: "[2, 783]" });
    expectErr({ images: new Tensor("f32", [3, 784]) }, { input: "images", expected: "[2, 784]", actual: "[3, 784]",
      message: "input 'images' of graph 'Classifier': expected [2, 784], got [3, 784]: dimension 'Batch' is 3 here but 2 (fixed by the dims it was compiled with)" });
    expectErr({ images: new Tensor("f64", [2, 784]) }, { input: "images", expected: "f32", actual: "f64" });
    expectErr({}, { input: "images", expected: "Tensor<[2, 784], f32>" });
    expectErr({ images: good, extra: good }, { input: "extra" });
    // A misspelt input is told the closest one, run or interpret.
    const misspelt = "graph 'Classifier' has no input named 'image'; did you mean 'images'? its inputs are: images";
    expectErr({ image: good }, { input: "image", message: misspelt });
    assert.throws(() => p.interpret("Classifier", { image: good }), (e) => e instanceof ShrewRuntimeError && e.message === misspelt);
    // A bare typed array of the wrong length: a rank-1 array of that length.
    expectErr({ images: new Float32Array(5) }, { input: "images", expected: "[2, 784]", actual: "[5]" });
    assert.deepEqual(p.run("Classifier", { images: good }).probs.data, ok);
  } finally {
    p.dispose();
  }
});

test("benchRun times the tape inside wasm after a run", () => {
  const p = shrew.compile(MLP);  // Batch symbolic: nothing bound before the first run
  try {
    assert.throws(() => p.benchRun("Classifier", 3), (e) => e instanceof ShrewRuntimeError && e.code === "failed_precondition");
    p.run("Classifier", { images: new Tensor("f32", [1, 784], randomF32(784)) });
    const ns = p.benchRun("Classifier", 20);
    assert.ok(ns > 0 && ns < 1e9, `ns per run ${ns}`);
    // The count crosses as an int32: larger ones are refused, not truncated (2^32 + 1 was one run).
    for (const n of [2 ** 31, 2 ** 32 + 1]) {
      assert.throws(() => p.benchRun("Classifier", n), (e) => e instanceof RangeError && /at most 2\^31 - 1/.test(e.message));
    }
    assert.throws(() => p.benchRun("Nope", 3), (e) => e instanceof ShrewRuntimeError && e.code === "not_found" &&
      e.message === "no graph named 'Nope'; graphs: Classifier");
    assert.throws(() => p.benchRun("classifier", 3), (e) => e instanceof ShrewRuntimeError && e.code === "not_found" &&
      e.message === "no graph named 'classifier'; did you mean 'Classifier'? graphs: Classifier");
  } finally {
    p.dispose();
  }
});

// A graph typed per run (`input x: ?`), and one calling it, have no tape
// until they run; then benchRun times the tape of the last run's types (it
// answered "has not run yet" after a successful run).
test("benchRun on graphs compiled per input types times their last run's tape", () => {
  const p = shrew.compile(`@graph Any { input x: ?; output y: relu(x) * 2; }
  @graph Calls { input v: Tensor<[3], f32>; output z: Any(v) + 1.0; }
  @graph Alone { input w: ?; output y: w; }`);
  try {
    assert.throws(() => p.benchRun("Alone", 3), (e) => e instanceof ShrewRuntimeError && e.code === "failed_precondition");
    // Calls, whose input type is fixed, is prepared, and so compiled, by
    // compile: that compiles Any for Calls' operand, f32[3], which Calls'
    // call kernel runs. A run of Any compiles its own types.
    assert.match(p.dump("Calls"), /call\[Any\] .*\n(.*\n)*.* kernel=call/);
    assert.match(p.dump("Any"), /x: f32\[3\]/);
    assert.deepEqual([...p.run("Any", { x: new Tensor("f32", [2], [-1, 3]) }).y.data], [0, 6]);
    assert.match(p.dump("Any"), /x: f32\[2\]/);
    assert.deepEqual([...p.run("Calls", { v: new Tensor("f32", [3], [1, -2, 0.5]) }).z.data], [3, 1, 2]);
    for (const g of ["Any", "Calls"]) {
      const ns = p.benchRun(g, 20);
      assert.ok(ns > 0 && ns < 1e9, `${g}: ns per run ${ns}`);
    }
    // A recompile of Calls compiles its one signature again at once, as compile does
    // (benchRun answered "has not run yet").
    p.recompile("Calls");
    assert.ok(p.benchRun("Calls", 20) > 0);
  } finally {
    p.dispose();
  }
});

test("names such as __proto__ and constructor are own keys of plain objects: outputs, feeds, dims, metadata", () => {
  const p = shrew.compile(`@config { __proto__: 3; }
  @graph H {
    input x: Tensor<[2], f32>;
    output __proto__: x * 3.0;
    output y: x;
  }
  @graph K {
    input constructor: Tensor<[N, 2], i32>;
    output __proto__: constructor + constructor;
  }`);
  try {
    const x = Float32Array.from([1, 2]);
    for (const exec of ["run", "run", "interpret"]) {  // the first run prepares, the second is lean
      const out = p[exec]("H", { x });
      assert.deepEqual(Object.keys(out), ["__proto__", "y"], exec);
      assert.equal(Object.getPrototypeOf(out), Object.prototype);
      assert.deepEqual([...out.__proto__.data], [3, 6]);
    }
    const feeds = {};
    Object.defineProperty(feeds, "constructor", { value: new Tensor("i32", [1, 2], Int32Array.from([4, 5])), enumerable: true });
    const k = p.run("K", feeds);  // i32: a 32-bit copy on the lean path
    assert.deepEqual(Object.keys(k), ["__proto__"]);
    assert.deepEqual([...k.__proto__.data], [8, 10]);
    assert.deepEqual(Object.keys(p.metadata.config), ["__proto__"]);
    p.setDims({ N: 1 });
    assert.deepEqual([...p.run("K", { constructor: Int32Array.from([1, 2]) }).__proto__.data], [2, 4]);
  } finally {
    p.dispose();
  }
  // A dim named constructor that is not bound stays unbound (no Object.prototype member).
  const q = shrew.compile("@graph G {\n  input x: Tensor<[constructor], f32>;\n  output y: x;\n}");
  try {
    assert.throws(() => q.run("G", { x: new Float32Array(2) }), (e) => e instanceof ShrewRuntimeError && /bind its dims/.test(e.message));
    // A `?` input has no dims to bind: a bare array is refused for saying neither dtype nor shape.
    const any = shrew.compile("@graph A { input x: ?; output y: x + x; }");
    try {
      assert.throws(() => any.run("A", { x: new Float32Array([1, 2]) }), (e) => e instanceof ShrewRuntimeError &&
        e.message === "input 'x' has type ?: pass a Tensor or {dtype, shape, data}: a typed array alone does not say its dtype and shape");
      assert.deepEqual([...any.run("A", { x: new Tensor("f32", [2], [1, 2]) }).y.data], [2, 4]);
      // A `?` dim in a typed shape: its size comes with the value too.
      const dim = shrew.compile("@graph H { input z: Tensor<[?], f32>; output y: z * 2.0; }");
      try {
        assert.throws(() => dim.run("H", { z: new Float32Array(2) }), (e) => e instanceof ShrewRuntimeError &&
          e.message === "input 'z' has type Tensor<[?], f32>: pass a Tensor or {dtype, shape, data}: a typed array alone does not say its shape");
      } finally {
        dim.dispose();
      }
    } finally {
      any.dispose();
    }
    q.setDims(JSON.parse('{"constructor": 2}'));
    assert.deepEqual(Object.keys(q.dims), ["constructor"]);
    assert.deepEqual([...q.run("G", { x: new Float32Array(2) }).y.shape], [2]);
  } finally {
    q.dispose();
  }
});

test("a graph whose output shape depends on computed values: right shape on every run, then usable after an error", () => {
  const p = shrew.compile(`@graph G {
    input x: Tensor<[3], f32>;
    node r { op: range(sum(x)); };
    output r;
    output half: cast(r, dtype: "f32") * 0.5;
  }`);
  try {
    for (const xs of [[1, 1, 2], [3, 2.5, 1], [1, 1, 2]]) {
      const n = Math.trunc(xs.reduce((a, b) => a + b, 0));
      const x = new Tensor("f32", [3], Float32Array.from(xs));
      const got = p.run("G", { x });
      assert.deepEqual([...got.r.shape], [n]);
      assert.deepEqual([...got.r.data], Array.from({ length: n }, (_, i) => BigInt(i)));
      assert.deepEqual([...got.half.data], Array.from({ length: n }, (_, i) => i / 2));
      const want = p.interpret("G", { x });
      assert.deepEqual([...got.r.data], [...want.r.data]);
    }
    assert.throws(() => p.run("G", { x: new Tensor("f32", [3], Float32Array.from([0, 0.5, -1])) }),
      (e) => e instanceof ShrewRuntimeError && /node 'r' \(range\): range is empty/.test(e.message));
    assert.deepEqual([...p.run("G", { x: new Tensor("f32", [3], Float32Array.from([1, 0, 0])) }).r.data], [0n]);
  } finally {
    p.dispose();
  }
});

test("thousands of inputs as typed arrays, in any order, each found by name", () => {
  const n = 3000;
  const lines = ["@graph G {"];
  for (let i = 0; i < n; i++) lines.push(`  input in${i}: Tensor<[2], f32>;`);
  let sum = "in0";
  for (let i = 1; i < n; i++) { lines.push(`  node s${i} { op: ${sum} + in${i} * ${i % 5}; };`); sum = `s${i}`; }
  lines.push(`  output y: ${sum};`, "}");
  const p = shrew.compile(lines.join("\n"));
  try {
    const feeds = {};
    let want = 0;
    for (let i = n - 1; i >= 0; i--) {  // reversed: not the declaration order
      const v = (i % 7) - 3;
      feeds[`in${i}`] = Float32Array.of(v, -v);
      want += i === 0 ? v : v * (i % 5);
    }
    for (const out of [p.run("G", feeds), p.interpret("G", feeds)]) {
      assert.deepEqual([...out.y.data], [want, -want]);
    }
    feeds.extra = Float32Array.of(0, 0);
    const message = "graph 'G' has no input named 'extra'; its inputs are: " +
      Array.from({ length: 20 }, (_, i) => `in${i}`).join(", ") + ", … (3000 in all)";
    assert.throws(() => p.run("G", feeds), (e) => e instanceof ShrewRuntimeError && e.message === message && e.input === "extra");
    assert.throws(() => p.interpret("G", feeds), (e) => e instanceof ShrewRuntimeError && e.message === message);
    // Whatever the misspelt input's value is: a number said "input 'extra'
    // must be a Tensor …, got 1", as if the name were right.
    for (const value of [1, "x", [1, 2], new Tensor("f32", [2], Float32Array.of(0, 0))]) {
      feeds.extra = value;
      assert.throws(() => p.run("G", feeds), (e) => e instanceof ShrewRuntimeError && e.message === message);
    }
  } finally {
    p.dispose();
  }
});

test("outputs are plain typed arrays of their own memory, bit for bit, whatever Symbol.species says", () => {
  const p = shrew.compile(`@graph G {\n    input x: Tensor<[2, 3], f32>;\n    input n: Tensor<[4], i64>;\n    output y: x * 1.0;\n    output m: n + 1;\n}`, {});
  try {
    // NaN payloads cross as they are: the copy is of bytes, not of values.
    const bits = Uint32Array.of(0x7fc00001, 0x3f800000, 0xff800000, 0x00000001, 0x80000000, 0x7f7fffff);
    const x = new Float32Array(bits.buffer);
    const n = BigInt64Array.of(-5n, 0n, 2n ** 62n, 7n);
    const check = () => {
      const out = p.run("G", { x, n });
      assert.equal(Object.getPrototypeOf(out.y.data), Float32Array.prototype);
      assert.equal(Object.getPrototypeOf(out.m.data), BigInt64Array.prototype);
      assert.deepEqual([...new Uint32Array(out.y.data.buffer, out.y.data.byteOffset, 6)], [...bits]);
      assert.deepEqual([...out.m.data], [-4n, 1n, 2n ** 62n + 1n, 8n]);
      // The caller's own memory: not a view of the wasm heap.
      assert.notEqual(out.y.data.buffer, out.m.data.buffer);
      assert.equal(out.y.data.byteLength, 24);
      return out;
    };
    const first = check();
    first.y.data.fill(9);  // writing a returned array changes nothing the next run returns
    check();
    // A species redefined on Float32Array (it is inherited from %TypedArray%).
    class Sneaky extends Float32Array {}
    Object.defineProperty(Float32Array, Symbol.species, { get: () => Sneaky, configurable: true });
    try {
      check();
    } finally {
      delete Float32Array[Symbol.species];
    }
    assert.equal(Float32Array[Symbol.species], Float32Array);
  } finally {
    p.dispose();
  }
});
