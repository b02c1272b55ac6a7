// The lean run path behind Program.run (prepared bindings, inputs written
// into the wasm heap, one integer call, outputs copied out): it must give
// exactly what the value path (interpret, and run on first use of each
// binding) gives, survive shape changes, parameter changes and heap growth,
// hand out arrays the caller owns, fall back for i32, and report input errors
// with fields from C++. benchRun times the tape inside wasm.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Shrew, Tensor, ShrewRuntimeError } from "../dist/index.js";
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

test("i32 inputs and outputs take the value path and stay exact", () => {
  const src = `@graph G {
    input a: Tensor<[N], i32>;
    input b: Tensor<[N], f32>;
    output s: a + a;
    output t: b * 2.0;
  }`;
  const p = shrew.compile(src);
  try {
    for (let k = 0; k < 3; k++) {
      const out = p.run("G", { a: new Tensor("i32", [3], Int32Array.from([1, -2, 2 ** 30 + k])), b: new Tensor("f32", [3], Float32Array.from([1, 2, 3])) });
      assert.ok(out.s.data instanceof Int32Array);
      assert.deepEqual([...out.s.data], [2, -4, -(2 ** 31) + 2 * k]);  // i32 wraps (OPS.md)
      assert.deepEqual([...out.t.data], [2, 4, 6]);
    }
  } finally {
    p.dispose();
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
    expectErr({ images: new Tensor("f32", [3, 784]) }, { input: "images", expected: "[2, 784]", actual: "[3, 784]" });
    expectErr({ images: new Tensor("f64", [2, 784]) }, { input: "images", expected: "f32", actual: "f64" });
    expectErr({}, { input: "images", expected: "Tensor<[2, 784], f32>" });
    expectErr({ images: good, extra: good }, { input: "extra" });
    // A bare typed array of the wrong length (the value path reports it).
    assert.throws(() => p.run("Classifier", { images: new Float32Array(5) }), (e) => e instanceof ShrewRuntimeError && e.input === "images");
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
  } finally {
    p.dispose();
  }
});
