// Params blob through the package: saveParams → loadParams reproduces the
// outputs bit for bit; a mismatched or corrupt blob throws a typed error and
// leaves the program usable and unchanged; compile({params}) starts from a
// blob (the same checks); the same seed gives the checksums
// the native build recorded in tests/testdata/param_checksums.txt.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { Shrew, Tensor, ShrewRuntimeError } from "../dist/index.js";
import { ROOT, readExample } from "./helpers.mjs";

const shrew = await Shrew.load();
const MLP = readExample("mlp_classifier.sw");
const input = () => new Tensor("f32", [2, 784], Float32Array.from({ length: 2 * 784 }, (_, i) => Math.cos(i * 0.11)));

test("saveParams → loadParams reproduces outputs bit for bit", () => {
  const a = shrew.compile(MLP, { seed: 1 }), b = shrew.compile(MLP, { seed: 2 });
  try {
    const ya = a.run("Classifier", { images: input() });
    const yb = b.run("Classifier", { images: input() });
    assert.notDeepEqual(ya.logits.data, yb.logits.data);
    assert.notEqual(a.paramsChecksum(), b.paramsChecksum());
    const blob = a.saveParams();
    assert.ok(blob instanceof Uint8Array);
    assert.equal(new TextDecoder().decode(blob.subarray(0, 8)), "SHRWPRM1");
    b.loadParams(blob);
    assert.equal(b.paramsChecksum(), a.paramsChecksum());
    assert.deepEqual(b.saveParams(), blob);
    const yb2 = b.run("Classifier", { images: input() });
    assert.deepEqual(new Uint8Array(yb2.logits.data.buffer), new Uint8Array(ya.logits.data.buffer));
    assert.deepEqual(new Uint8Array(yb2.probs.data.buffer), new Uint8Array(ya.probs.data.buffer));
  } finally {
    a.dispose(); b.dispose();
  }
});

test("loadParams of a mismatched or corrupt blob throws and changes nothing", () => {
  const p = shrew.compile(MLP, { seed: 1 });
  const other = shrew.compile(readExample("logistic_regression.sw"), { seed: 1 });
  try {
    const before = p.saveParams();
    const y0 = p.run("Classifier", { images: input() });
    assert.throws(() => p.loadParams(other.saveParams()), (e) => e instanceof ShrewRuntimeError &&
      e.code === "invalid_argument" && /does not have|missing/.test(e.message));
    const truncated = before.subarray(0, before.length - 3);
    assert.throws(() => p.loadParams(truncated), (e) => e instanceof ShrewRuntimeError && /parameter blob/.test(e.message));
    assert.throws(() => p.loadParams(new Uint8Array([1, 2, 3])), (e) => e instanceof ShrewRuntimeError && /bad magic/.test(e.message));
    // As compile's `params` and loadBundle's bytes: invalid_argument, saying what it got.
    assert.throws(() => p.loadParams([1, 2, 3]), (e) => e instanceof ShrewRuntimeError && e.code === "invalid_argument" &&
      e.message === "loadParams takes a Uint8Array (a saveParams() blob), got an array");
    assert.deepEqual(p.saveParams(), before);
    const y1 = p.run("Classifier", { images: input() });
    assert.deepEqual(y1.logits.data, y0.logits.data);
  } finally {
    p.dispose(); other.dispose();
  }
});

test("compile({params}) starts from the blob: the same values and outputs as compile + loadParams", () => {
  const a = shrew.compile(MLP, { seed: 1 });
  const blob = a.saveParams();
  const loaded = shrew.compile(MLP, { seed: 2 });
  loaded.loadParams(blob);
  const given = shrew.compile(MLP, { seed: 2, params: blob });
  try {
    assert.equal(given.paramsChecksum(), a.paramsChecksum());
    assert.deepEqual(given.saveParams(), blob);
    const want = a.run("Classifier", { images: input() });
    for (const p of [given, loaded]) {
      const got = p.run("Classifier", { images: input() });
      assert.deepEqual(new Uint8Array(got.logits.data.buffer), new Uint8Array(want.logits.data.buffer));
    }
    assert.deepEqual([...blob.subarray(0, 8)], [...a.saveParams().subarray(0, 8)]);  // the caller's blob is untouched
  } finally {
    a.dispose(); loaded.dispose(); given.dispose();
  }
});

test("compile({params}) with a blob that does not fit fails like loadParams; Shrew stays usable", () => {
  const p = shrew.compile(MLP, { seed: 1 });
  const other = shrew.compile(readExample("logistic_regression.sw"), { seed: 1 });
  try {
    let loadError;
    assert.throws(() => p.loadParams(other.saveParams()), (e) => (loadError = e) instanceof ShrewRuntimeError);
    assert.throws(() => shrew.compile(MLP, { params: other.saveParams() }),
      (e) => e instanceof ShrewRuntimeError && e.code === loadError.code && e.message === loadError.message);
    assert.throws(() => shrew.compile(MLP, { params: new Uint8Array([1, 2, 3]) }),
      (e) => e instanceof ShrewRuntimeError && /bad magic/.test(e.message));
    assert.throws(() => shrew.compile(MLP, { params: new Float32Array(4) }),
      (e) => e instanceof ShrewRuntimeError && e.code === "invalid_argument" &&
        e.message === "params must be a Uint8Array (a saveParams() blob), got a Float32Array");
    assert.throws(() => shrew.compile(MLP, { params: "blob" }), (e) => /got "blob" \(a string\)$/.test(e.message));
    // More bytes than the wasm heap can hold (2 GiB): an error, not an abort (the array is
    // never touched, so its pages are not committed).
    const huge = new Uint8Array(2_200_000_000);
    assert.throws(() => shrew.compile(MLP, { params: huge }),
      (e) => e instanceof ShrewRuntimeError && e.code === "resource_exhausted" && /2200000000-byte blob/.test(e.message));
    assert.throws(() => p.loadParams(huge), (e) => e instanceof ShrewRuntimeError && e.code === "resource_exhausted");
    const q = shrew.compile(MLP, { seed: 1, params: p.saveParams() });
    assert.equal(q.paramsChecksum(), p.paramsChecksum());
    q.dispose();
  } finally {
    p.dispose(); other.dispose();
  }
});

test("same seed, same checksum as the native build (tests/testdata/param_checksums.txt)", () => {
  const lines = readFileSync(`${ROOT}tests/testdata/param_checksums.txt`, "utf8").trim().split("\n");
  assert.ok(lines.length >= 18);
  for (const line of lines) {
    const [file, seed, checksum] = line.split(" ");
    const p = shrew.compile(readExample(file), { seed: Number(seed) });
    try {
      assert.equal(p.paramsChecksum(), checksum, `${file} seed ${seed}`);
    } finally {
      p.dispose();
    }
  }
});

test("recompile keeps parameters and outputs; an unknown graph throws", () => {
  const p = shrew.compile(MLP, { seed: 4 });
  try {
    const y0 = p.run("Classifier", { images: input() });
    const sum = p.paramsChecksum();
    p.recompile("Classifier");
    assert.equal(p.paramsChecksum(), sum);
    const y1 = p.run("Classifier", { images: input() });
    assert.deepEqual(y1.logits.data, y0.logits.data);
    assert.throws(() => p.recompile("Nope"), (e) => e instanceof ShrewRuntimeError && /no graph named 'Nope'/.test(e.message));
  } finally {
    p.dispose();
  }
});

// recompile kept nothing of the last run: stats, tape and benchRun of a graph
// each run binds said "no run of it has succeeded yet" or had an arena of 0.
test("recompile plans the last run's shapes again: stats, tape and benchRun go on", () => {
  const p = shrew.compile("@graph D { input x: ?; output y: x * 2.0; }\n@graph S(x: Tensor<[B], f32>) -> Tensor<[B], f32> { output y: relu(x); }");
  try {
    p.run("D", { x: new Tensor("f32", [3], new Float32Array([1, 2, 3])) });
    p.run("S", { x: new Tensor("f32", [4], new Float32Array([1, -2, 3, 4])) });
    const before = { D: p.stats("D").arenaBytes, S: p.stats("S").arenaBytes };
    assert.ok(before.D > 0 && before.S > 0);
    for (const g of ["D", "S"]) {
      p.recompile(g);
      assert.equal(p.stats(g).arenaBytes, before[g], g);
      assert.equal(p.tape(g).bound, true, g);
      assert.ok(p.benchRun(g, 2) >= 0, g);
    }
    assert.deepEqual([...p.run("S", { x: new Tensor("f32", [4], new Float32Array([1, -2, 3, 4])) }).y.data], [1, 0, 3, 4]);
  } finally {
    p.dispose();
  }
  // Shapes from computed values are planned by the next run: benchRun says so (it said "has not run yet").
  const r = shrew.compile("@graph R { input n: Tensor<[], i64>; output r: range(n) * 2; }");
  try {
    r.run("R", { n: new Tensor("i64", [], [5n]) });
    assert.ok(r.benchRun("R", 2) >= 0);
    r.recompile("R");
    assert.throws(() => r.benchRun("R", 2), (e) => e instanceof ShrewRuntimeError && e.code === "failed_precondition" &&
      e.message === "graph 'R' has not run since it was compiled (or its last run failed): run it once before benchRun");
    r.run("R", { n: new Tensor("i64", [], [5n]) });
    assert.ok(r.benchRun("R", 2) >= 0);
  } finally {
    r.dispose();
  }
});

test("setParam takes what getParam returns for every declared dtype (f16 as f32, i8 as i32 or i64, u32 as i64)", () => {
  const types = ["f16", "bf16", "i8", "i16", "i32", "u16", "u32", "u64", "f64", "u8", "bool", "i64", "f32"];
  const src = `@graph G {\n  input x: Tensor<[2], f32>;\n${types.map((t) =>
    `  param p_${t}: Tensor<[2], ${t}> { init: "${t === "bool" ? "zeros" : "ones"}"; };`).join("\n")}\n  output y: x;\n}`;
  const p = shrew.compile(src);
  try {
    for (const t of types) {
      const key = `G/p_${t}`;
      const before = p.getParam(key);
      p.setParam(key, before);
      assert.deepEqual(p.getParam(key), before, t);
    }
    p.setParam("G/p_f16", new Tensor("f32", [2], [0.5, 3]));
    assert.deepEqual([...p.getParam("G/p_f16").data], [0.5, 3]);
    p.setParam("G/p_i8", new Tensor("i64", [2], [7n, -3n]));  // the storage type, as for inputs
    assert.deepEqual([...p.getParam("G/p_i8").data], [7, -3]);
    assert.throws(() => p.setParam("G/p_f16", new Tensor("f64", [2])),
      (e) => e instanceof ShrewRuntimeError && e.code === "invalid_argument" && /expected f16\[2\], got f64\[2\]/.test(e.message));
  } finally {
    p.dispose();
  }
});

// A Tensor whose buffer was detached after it was made: setParam said only
// "shape [3] needs 12 bytes of f32 data, got 0", naming no parameter; an
// unknown getParam name set no `input` field (setParam's did).
test("setParam of a detached Tensor and getParam of an unknown name name the parameter in message and fields", () => {
  const p = shrew.compile("@graph G { input x: Tensor<[3], f32>; param w: Tensor<[3], f32> { init: \"ones\"; }; output y: x * w; }");
  try {
    const t = new Tensor("f32", [3], new Float32Array([7, 8, 9]));
    structuredClone(t.data.buffer, { transfer: [t.data.buffer] });
    assert.throws(() => p.setParam("G/w", t), (e) => {
      assert.ok(e instanceof ShrewRuntimeError);
      assert.equal(e.code, "invalid_argument");
      assert.equal(e.message, "parameter 'G/w': expected [3] (3 elements), got a Float32Array of 0 elements (its buffer was detached or resized)");
      assert.deepEqual([e.input, e.expected, e.actual], ["G/w", "[3]", "[0]"]);
      return true;
    });
    assert.deepEqual([...p.getParam("G/w").data], [1, 1, 1]);  // unchanged
    assert.throws(() => p.getParam("G/nope"), (e) => e instanceof ShrewRuntimeError && e.code === "not_found" && e.input === "G/nope" &&
      /^no parameter 'G\/nope'/.test(e.message));
    assert.deepEqual([...p.run("G", { x: new Float32Array([1, 2, 3]) }).y.data], [1, 2, 3]);
  } finally {
    p.dispose();
  }
});

// A blob or bundle whose buffer was transferred reads as empty: the decoders
// said "bad magic; 0 bytes". Each is told what happened, and nothing changes.
test("a detached parameter blob or bundle is told as detached, not as bad magic", () => {
  const p = shrew.compile("@graph G { input x: Tensor<[3], f32>; param w: Tensor<[3], f32> { init: \"ones\"; }; output y: x * w; }");
  try {
    const blob = p.saveParams(), bundle = p.saveBundle();
    structuredClone(blob.buffer, { transfer: [blob.buffer] });
    structuredClone(bundle.buffer, { transfer: [bundle.buffer] });
    const detached = /a Uint8Array whose buffer was detached \(transferred\)$/;
    assert.throws(() => p.loadParams(blob), (e) => e instanceof ShrewRuntimeError && e.code === "invalid_argument" &&
      /^loadParams takes a Uint8Array/.test(e.message) && detached.test(e.message));
    assert.throws(() => shrew.loadBundle(bundle), (e) => e instanceof ShrewRuntimeError && e.code === "invalid_argument" &&
      /^a bundle must be a Uint8Array/.test(e.message) && detached.test(e.message));
    assert.throws(() => shrew.compile("@graph G { input x: Tensor<[3], f32>; output y: x; }", { params: blob }),
      (e) => e instanceof ShrewRuntimeError && e.code === "invalid_argument" && detached.test(e.message));
    // A source read as empty compiled as a program of no graphs.
    const text = new TextEncoder().encode("@graph G { input x: Tensor<[3], f32>; output y: x; }");
    structuredClone(text.buffer, { transfer: [text.buffer] });
    assert.throws(() => shrew.compile(text), (e) => e instanceof TypeError &&
      e.message === "source must be a string or a Uint8Array, got a Uint8Array whose buffer was detached (transferred)");
    // A DataView is no typed array: told what it is (the detached check threw a TypeError on it).
    const view = new DataView(p.saveParams().buffer);
    assert.throws(() => p.loadParams(view), (e) => e instanceof ShrewRuntimeError && e.code === "invalid_argument" &&
      e.message === "loadParams takes a Uint8Array (a saveParams() blob), got a DataView");
    assert.throws(() => shrew.loadBundle(view), (e) => e instanceof ShrewRuntimeError && /got a DataView$/.test(e.message));
    // An empty one is still the decoder's to judge; the program is unchanged.
    assert.throws(() => p.loadParams(new Uint8Array(0)), (e) => e instanceof ShrewRuntimeError && /bad magic; 0 bytes/.test(e.message));
    assert.deepEqual([...p.run("G", { x: new Float32Array([1, 2, 3]) }).y.data], [1, 2, 3]);
  } finally {
    p.dispose();
  }
});
