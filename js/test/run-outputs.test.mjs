// run/interpret with the `outputs` option: outputs written into the caller's
// arrays (Tensors or bare typed arrays) on the lean path and the value path,
// the same values as a plain run, every destination checked before any is
// written, and the program usable after each error.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Shrew, Tensor, ShrewRuntimeError } from "../dist/index.js";
import { readExample } from "./helpers.mjs";

const shrew = await Shrew.load();
const MLP = readExample("mlp_classifier.sw");
const input = (seed) => Float32Array.from({ length: 2 * 784 }, (_, i) => Math.sin(i * 0.37 + seed));

function withProgram(source, opts, fn) {
  const p = shrew.compile(source, opts);
  try {
    fn(p);
  } finally {
    p.dispose();
  }
}

test("outputs into a Tensor and a typed array: the same objects back, a plain run's values, refilled per run", () => {
  withProgram(MLP, { dims: { Batch: 2 }, seed: 5 }, (p) => {
    const probs = new Tensor("f32", [2, 10]);
    const logits = new Float32Array(20);
    for (const seed of [0, 1, 2]) {
      const x = input(seed);
      const plain = p.run("Classifier", { images: x });
      const out = p.run("Classifier", { images: x }, { outputs: { probs, logits } });
      assert.deepEqual(Object.keys(out), ["probs", "logits"]);
      assert.equal(out.probs, probs);
      assert.equal(out.logits.data, logits);
      assert.deepEqual([...out.logits.shape], [2, 10]);
      assert.equal(out.logits.dtype, "f32");
      assert.deepEqual(probs.data, plain.probs.data);
      assert.deepEqual(logits, plain.logits.data);
      // Each row of probs is a softmax: the values are real, not left zeros.
      assert.ok(Math.abs(probs.data.slice(0, 10).reduce((a, b) => a + b, 0) - 1) < 1e-5);
    }
  });
});

test("outputs not named get fresh arrays; interpret fills destinations too", () => {
  withProgram(MLP, { dims: { Batch: 2 }, seed: 5 }, (p) => {
    const x = input(3);
    const logits = new Float32Array(20);
    const out = p.run("Classifier", { images: x }, { outputs: { logits } });
    assert.equal(out.logits.data, logits);
    assert.ok(out.probs.data instanceof Float32Array && out.probs.data !== logits);
    assert.deepEqual(out.probs.data, p.run("Classifier", { images: x }).probs.data);

    const ref = p.interpret("Classifier", { images: x });
    const dest = new Float32Array(20).fill(NaN);
    const viaInterp = p.interpret("Classifier", { images: x }, { outputs: { probs: dest } });
    assert.equal(viaInterp.probs.data, dest);
    assert.deepEqual(dest, ref.probs.data);
  });
});

test("a bad destination is an error naming the output, and no destination is written", () => {
  withProgram(MLP, { dims: { Batch: 2 }, seed: 5 }, (p) => {
    const x = input(4);
    const good = new Float32Array(20).fill(7);
    const cases = [
      [{ probs: new Tensor("f64", [2, 10]) }, "probs", "f32[2, 10]", "f64[2, 10]"],
      [{ probs: new Tensor("f32", [20]) }, "probs", "f32[2, 10]", "f32[20]"],
      [{ probs: new Float32Array(19) }, "probs", "f32[2, 10]", "a Float32Array of 19 elements"],
      [{ probs: new Float64Array(20) }, "probs", "f32[2, 10]", "a Float64Array of 20 elements"],
    ];
    for (const [bad, name, expected, actual] of cases) {
      assert.throws(() => p.run("Classifier", { images: x }, { outputs: { logits: good, ...bad } }), (e) => {
        assert.ok(e instanceof ShrewRuntimeError, String(e));
        assert.equal(e.code, "invalid_argument");
        assert.equal(e.output, name);
        assert.equal(e.expected, expected);
        assert.equal(e.actual, actual);
        assert.match(e.message, /output 'probs' of graph 'Classifier': expected a destination of f32\[2, 10\]/);
        return true;
      });
      assert.ok(good.every((v) => v === 7), "the valid destination was left as it was");
    }
    // A Tensor whose buffer went to a worker (detached): an error, not a TypeError half-way.
    const moved = new Tensor("f32", [2, 10]);
    structuredClone(moved.data.buffer, { transfer: [moved.data.buffer] });
    assert.throws(() => p.run("Classifier", { images: x }, { outputs: { logits: good, probs: moved } }),
      (e) => e instanceof ShrewRuntimeError && e.output === "probs" && e.actual === "f32[2, 10] whose data has 0 bytes");
    assert.ok(good.every((v) => v === 7));
    assert.throws(() => p.run("Classifier", { images: x }, { outputs: { prob: good } }),
      (e) => e instanceof ShrewRuntimeError && e.output === "prob" &&
        e.message === "graph 'Classifier' has no output named 'prob'; did you mean 'probs'? its outputs are: probs, logits");
    assert.throws(() => p.interpret("Classifier", { images: x }, { outputs: { loss: good } }),
      (e) => e instanceof ShrewRuntimeError && e.output === "loss" &&
        e.message === "graph 'Classifier' has no output named 'loss'; its outputs are: probs, logits");
    assert.throws(() => p.run("Classifier", { images: x }, { outputs: { probs: good, logits: good } }),
      (e) => e instanceof ShrewRuntimeError && e.output === "logits" && /also another output's/.test(e.message));
    assert.throws(() => p.run("Classifier", { images: x }, { outputs: { probs: [0, 1] } }), TypeError);
    assert.throws(() => p.run("Classifier", { images: x }, { outputs: new Float32Array(20) }),
      (e) => e instanceof ShrewRuntimeError && e.message === "outputs must be an object {name: Tensor or typed array}, got a Float32Array");
    assert.throws(() => p.run("Classifier", { images: x }, null),
      (e) => e instanceof ShrewRuntimeError && e.code === "invalid_argument" && e.message === "run options must be an object, got null");
    assert.ok(good.every((v) => v === 7));
    // Still usable, on the lean path and with destinations.
    const probs = new Float32Array(20);
    p.run("Classifier", { images: x }, { outputs: { probs } });
    assert.deepEqual(probs, p.run("Classifier", { images: x }).probs.data);
  });
});

test("destinations that share memory through different views are refused, none written; disjoint parts of one buffer are fine", () => {
  withProgram(`@graph G { input x: Tensor<[4], f32>; output a: x + 1.0; output b: x * 2.0; }`, {}, (p) => {
    const x = new Float32Array([1, 2, 3, 4]);
    for (const exec of ["run", "interpret"]) {
      const mem = new ArrayBuffer(32);
      const big = new Float32Array(mem).fill(7);
      // Two arrays over one buffer, overlapping subarrays, a Tensor over one of them:
      // each would leave b's values in a's array.
      for (const [a, b] of [[new Float32Array(mem, 0, 4), new Float32Array(mem, 0, 4)],
                            [big.subarray(0, 4), big.subarray(2, 6)],
                            [big.subarray(3, 7), new Tensor("f32", [4], big.subarray(0, 4))]]) {
        assert.throws(() => p[exec]("G", { x }, { outputs: { a, b } }),
          (e) => e instanceof ShrewRuntimeError && e.code === "invalid_argument" && /shares memory with the destination of output/.test(e.message));
        assert.ok(big.every((v) => v === 7), `${exec}: nothing written`);
      }
      const out = p[exec]("G", { x }, { outputs: { a: big.subarray(0, 4), b: big.subarray(4, 8) } });
      assert.deepEqual([...big], [2, 3, 4, 5, 2, 4, 6, 8]);
      assert.deepEqual([...out.a.data], [2, 3, 4, 5]);
    }
  });
});

test("destinations that come to share memory while the inputs are read (a getter resizing their buffer) are refused, none written", () => {
  withProgram(`@graph G { input x: Tensor<[6], f32>; output y: x * 2.0; output z: x + 100.0; }`, {}, (p) => {
    for (const exec of ["run", "interpret"]) {
      const rab = new ArrayBuffer(48, { maxByteLength: 48 });
      const y = new Float32Array(rab, 8, 6), z = new Float32Array(rab, 16, 6);  // overlapping, length 6 each
      rab.resize(0);  // both views out of bounds (0 bytes) when the options are read
      const x = new Float32Array([1, 2, 3, 4, 5, 6]);
      assert.throws(() => p[exec]("G", { get x() { rab.resize(48); new Float32Array(rab).fill(7); return x; } }, { outputs: { y, z } }),
        (e) => e instanceof ShrewRuntimeError && e.code === "invalid_argument" && e.output === "z" &&
          e.message === "output 'z': its destination array shares memory with the destination of output 'y'");
      assert.ok(new Float32Array(rab).every((v) => v === 7), `${exec}: nothing written`);
      assert.deepEqual([...p[exec]("G", { x }).y.data], [2, 4, 6, 8, 10, 12]);
    }
  });
});

test("a destination Tensor whose data was replaced by another typed array, or a look-alike of one, is an error: no output is converted", () => {
  withProgram(`@graph G { input n: Tensor<[N], f32>; output z: n + 0; }`, {}, (p) => {
    const n = new Tensor("f32", [2], [1, 2]);
    const swapped = new Tensor("f32", [2]);
    swapped.data = new Int32Array([7, 7]);  // readonly in TypeScript only
    const fake = Object.assign(Object.create(Tensor.prototype), { dtype: "f32", shape: [2], data: new Int32Array([7, 7]) });
    for (const run of ["run", "interpret"]) {  // lean path, value path
      for (const z of [swapped, fake]) {
        assert.throws(() => p[run]("G", { n }, { outputs: { z } }), (e) => e instanceof ShrewRuntimeError &&
          e.code === "invalid_argument" && e.output === "z" && e.expected === "f32[2]" && e.actual === "f32[2] whose data is an Int32Array" &&
          e.message === "output 'z' of graph 'G': expected a destination of f32[2], got f32[2] whose data is an Int32Array");
        assert.deepEqual(z.data, new Int32Array([7, 7]), "nothing written");
      }
      // A misspelt dtype is told as one, with the closest (it read "got f3[2] whose data is a Float32Array").
      const misspelt = { dtype: "f3", shape: [2], data: new Float32Array(2) };
      assert.throws(() => p[run]("G", { n }, { outputs: { z: misspelt } }), (e) => e instanceof ShrewRuntimeError &&
        e.code === "invalid_argument" && e.output === "z" && e.actual === "dtype 'f3'" &&
        e.message === "output 'z' of graph 'G': expected a destination of f32[2], got one of dtype 'f3', which is no dtype; did you mean 'f32'?");
      assert.deepEqual(misspelt.data, new Float32Array(2), "nothing written");
      // Data replaced by the dtype's own array of the right size: written there.
      const replaced = new Tensor("f32", [2]);
      replaced.data = new Float32Array(2);
      assert.equal(p[run]("G", { n }, { outputs: { z: replaced } }).z, replaced);
      assert.deepEqual(replaced.data, new Float32Array([1, 2]));
      const look = Object.assign(Object.create(Tensor.prototype), { dtype: "f32", shape: [2], data: new Float32Array(2) });
      assert.equal(p[run]("G", { n }, { outputs: { z: look } }).z, look);
      assert.deepEqual(look.data, new Float32Array([1, 2]));
    }
    const plain = Object.assign(Object.create(Tensor.prototype), { dtype: "f32", shape: [2], data: [0, 0] });
    assert.throws(() => p.run("G", { n }, { outputs: { z: plain } }), (e) => e instanceof ShrewRuntimeError && e.actual === "f32[2] whose data is an array");
    assert.deepEqual(plain.data, [0, 0]);
    plain.shape = "2";
    assert.throws(() => p.run("G", { n }, { outputs: { z: plain } }),
      { name: "TypeError", message: "output 'z': the destination Tensor's shape must be an array, got \"2\" (a string)" });
  });
});

test("value-shaped outputs: the destination must match this run's shape; i32 and bool outputs", () => {
  const src = "@graph R {\n  input n: Tensor<[1], f32>;\n  output y: range(sum(n)) * 2;\n}\n" +
    "@graph T {\n  input a: Tensor<[3], i32>;\n  input b: Tensor<[3], f32>;\n  output s: a + a;\n  output m: b > 0.0;\n}\n";
  withProgram(src, {}, (p) => {
    const y = new BigInt64Array(4);
    const out = p.run("R", { n: new Float32Array([4]) }, { outputs: { y } });
    assert.equal(out.y.data, y);
    assert.deepEqual([...y], [0n, 2n, 4n, 6n]);
    const short = new BigInt64Array(4).fill(-1n);
    assert.throws(() => p.run("R", { n: new Float32Array([5]) }, { outputs: { y: short } }),
      (e) => e instanceof ShrewRuntimeError && e.output === "y" && e.expected === "i64[5]" && e.actual === "a BigInt64Array of 4 elements");
    assert.ok(short.every((v) => v === -1n));

    const s = new Int32Array(3);
    const m = new Tensor("bool", [3]);
    const t = p.run("T", { a: new Int32Array([1, -2, 2 ** 30]), b: new Float32Array([1, -1, 0]) }, { outputs: { s, m } });
    assert.equal(t.s.data, s);
    assert.deepEqual([...s], [2, -4, -(2 ** 31)]);  // 2^31 wraps on the way out (i64 inside)
    assert.equal(t.m, m);
    assert.deepEqual([...m.data], [1, 0, 0]);
    assert.throws(() => p.run("T", { a: new Int32Array(3), b: new Float32Array(3) }, { outputs: { m: new Tensor("u8", [3]) } }),
      (e) => e instanceof ShrewRuntimeError && e.expected === "bool[3]" && e.actual === "u8[3]");
  });
});

test("destinations are read once, before the run: a getter that disposes the program makes the call throw 'disposed'", () => {
  const x = input(6);
  const q = shrew.compile(MLP, { dims: { Batch: 2 } });
  assert.throws(() => q.run("Classifier", { images: x }, { outputs: { get probs() { q.dispose(); return new Float32Array(20); } } }),
    (e) => e instanceof ShrewRuntimeError && e.code === "disposed");
  withProgram(MLP, { dims: { Batch: 2 } }, (p) => {
    const first = new Float32Array(20);
    let reads = 0;
    const outputs = { get probs() { reads++; return reads === 1 ? first : new Float32Array(20); } };
    const out = p.run("Classifier", { images: x }, { outputs });
    assert.equal(reads, 1);
    assert.equal(out.probs.data, first);
    assert.deepEqual(first, p.run("Classifier", { images: x }).probs.data);
  });
});

// Two copies of the package (two installs of it, or dist/index.js beside
// the bundle dist/shrew.node.js) have two Tensor classes. An input of the
// other copy's is taken as a {dtype, shape, data} object; as a destination
// it was refused ("the destination must be a Tensor or a typed array").
test("a Tensor of another copy of the package is a destination as it is an input: checked like a Tensor, filled in place", async () => {
  const { Tensor: OtherTensor } = await import("../dist/shrew.node.js");
  assert.notEqual(OtherTensor, Tensor);
  withProgram("@graph G { input x: Tensor<[3], f32>; output y: x * 2.0; output pos: x > 0.0; }", {}, (p) => {
    for (const exec of ["run", "interpret"]) {  // lean path, value path
      const x = new OtherTensor("f32", [3], [1, -2, 3]);
      const y = new OtherTensor("f32", [3]);
      const pos = new OtherTensor("bool", [3]);
      assert.ok(!(y instanceof Tensor));
      const out = p[exec]("G", { x }, { outputs: { y, pos } });
      assert.deepEqual([...y.data], [2, -4, 6]);
      assert.deepEqual([...pos.data], [1, 0, 1]);
      // Back as a Tensor of this copy over the destination's own array, as a typed array comes back.
      assert.ok(out.y instanceof Tensor);
      assert.equal(out.y.data, y.data);
      assert.equal(out.y.dtype, "f32");
      assert.deepEqual([...out.y.shape], [3]);
      assert.equal(out.pos.data, pos.data);
      // Any {dtype, shape, data} object, as an input may be one.
      const plain = { dtype: "f32", shape: [3], data: new Float32Array(3) };
      assert.equal(p[exec]("G", { x }, { outputs: { y: plain } }).y.data, plain.data);
      assert.deepEqual([...plain.data], [2, -4, 6]);
      // Its dtype and shape are checked as a Tensor's, before anything is written.
      const fresh = new OtherTensor("bool", [3]);
      for (const [bad, actual] of [[new OtherTensor("f32", [1, 3]), "f32[1, 3]"], [new OtherTensor("f64", [3]), "f64[3]"],
                                   [{ dtype: "f32", shape: [3], data: new Int32Array(3) }, "f32[3] whose data is an Int32Array"]]) {
        assert.throws(() => p[exec]("G", { x }, { outputs: { y: bad, pos: fresh } }), (e) => e instanceof ShrewRuntimeError &&
          e.code === "invalid_argument" && e.output === "y" && e.expected === "f32[3]" && e.actual === actual, actual);
        assert.ok(bad.data.every((v) => v === 0) && fresh.data.every((v) => v === 0), `${actual}: nothing written`);
      }
    }
    assert.throws(() => p.run("G", { x: new Float32Array(3) }, { outputs: { y: { shape: [3] } } }),
      { name: "TypeError", message: "output 'y': the destination must be a Tensor, a {dtype, shape, data} object or a typed array, got an Object" });
    assert.throws(() => p.run("G", { x: new Float32Array(3) }, { outputs: { y: { dtype: "f32", shape: 3, data: new Float32Array(3) } } }),
      { name: "TypeError", message: "output 'y': the destination's shape must be an array, got 3" });
    // A typed array of no tensor dtype is named as such, with the one the output takes (it was "must be ... a typed array, got an Int8Array").
    for (const [name, bad, takes] of [["y", new Int8Array(3), "f32 takes a Float32Array"], ["pos", new Uint16Array(3), "bool takes a Uint8Array"],
                                      ["pos", new Uint8ClampedArray(3), "bool takes a Uint8Array"]]) {
      assert.throws(() => p.run("G", { x: new Float32Array(3) }, { outputs: { [name]: bad } }),
        { name: "TypeError", message: `output '${name}': unsupported typed array ${bad.constructor.name} as the destination; its dtype ${takes} ` +
                                      "(a tensor's data is a Float32Array, Float64Array, Int32Array, BigInt64Array or Uint8Array)" });
    }
    assert.throws(() => p.run("G", { x: new Float32Array(3) }, { outputs: { pos: new DataView(new ArrayBuffer(3)) } }),
      { name: "TypeError", message: "output 'pos': a DataView is no tensor data; its dtype bool takes a Uint8Array " +
                                    "(a tensor's data is a Float32Array, Float64Array, Int32Array, BigInt64Array or Uint8Array)" });
  });
});
