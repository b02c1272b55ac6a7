// compile() options are checked, never ignored or truncated: an unknown key, a
// value of the wrong type or out of range is a ShrewRuntimeError
// ("invalid_argument") naming the option and the value; valid options work.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Shrew, ShrewRuntimeError } from "../dist/index.js";

const shrew = await Shrew.load();
const SRC = `@config { Width: 4; }
@graph G {
    input x: Tensor<[N], f32>;
    param w: Tensor<[N], f32> { init: "uniform(-1, 1)"; };
    output y: dropout(x * w, p: 0.5);
}`;

test("bad compile options are typed errors naming the option", () => {
  for (const [options, pattern] of [
    [{ seed: -1 }, /seed must be a non-negative integer .*got -1/],
    [{ seed: 1.5 }, /seed must be .*got 1\.5/],
    [{ seed: 2 ** 60 }, /seed must be .*at most 2\^53/],
    [{ seed: "7" }, /seed must be .*got "7" \(a string\)$/],
    [{ seed: NaN }, /got NaN/],
    [{ maxTensorBytes: -5 }, /maxTensorBytes must be a non-negative integer \(at most 2\^50 = 1125899906842624\), got -5/],
    [{ maxTensorBytes: 1.5 }, /maxTensorBytes must be .*got 1\.5/],
    [{ filename: 42 }, /filename must be a string, got 42/],
    [{ training: "yes" }, /training must be true or false, got "yes" \(a string\)$/],
    [{ optimize: 0 }, /optimize must be true or false, got 0/],
    [{ dims: [1, 2] }, /dims must be an object/],
    [{ dim: { N: 2 } }, /unknown compile option 'dim'; did you mean 'dims'\? options: filename, dims, seed/],
    // A misspelt option is told the closest one; a name close to none, only the list.
    [{ sed: 1 }, /^unknown compile option 'sed'; did you mean 'seed'\? options: filename, dims, seed, optimize, training, maxTensorBytes, params, maxStepsPerRun, defaultDtype$/],
    [{ defaultDtype: "i64" }, /^defaultDtype must be "f16", "bf16", "f32" or "f64", got "i64"/],
    [{ defaultDtype: "float64" }, /^defaultDtype must be "f16", "bf16", "f32" or "f64"/],
    // A misspelt name is told the closest, as an input's dtype is.
    [{ defaultDtype: "f63" }, /^defaultDtype must be "f16", "bf16", "f32" or "f64", got "f63" \(a string\); did you mean 'f64'\?$/],
    [{ Training: true }, /^unknown compile option 'Training'; did you mean 'training'\? options: filename, dims, seed, /],
    [{ verbose: true }, /^unknown compile option 'verbose'; options: filename, dims, seed, optimize, training, maxTensorBytes, params, maxStepsPerRun, defaultDtype$/],
    // The rule of setDims: a dim the source does not use or that @config sets would be ignored.
    [{ dims: { N: 2, Hidden: 3 } }, /^dimension 'Hidden' is not used by this program; its dimensions: N$/],
    [{ dims: { Width: 8 } }, /^dimension 'Width' is set by @config in the source/],
  ]) {
    assert.throws(() => shrew.compile(SRC, options),
      (e) => e instanceof ShrewRuntimeError && e.code === "invalid_argument" && pattern.test(e.message),
      JSON.stringify(options));
  }
  for (const [options, shown] of [["fast", '"fast" (a string)'], [null, "null"], [[], "an array"]]) {
    assert.throws(() => shrew.compile(SRC, options), (e) => e instanceof ShrewRuntimeError && e.code === "invalid_argument" &&
      e.message === `compile options must be an object, got ${shown}`);
  }
});

test("valid compile options take effect", (t) => {
  const x = { x: new Float32Array([1, 2, 3, 4]) };
  const a = shrew.compile(SRC, { dims: { N: 4 }, seed: 9, training: true, optimize: false, filename: "a.sw" });
  const b = shrew.compile(SRC, { dims: { N: 4 }, training: false, maxTensorBytes: 1024, seed: undefined });  // undefined = default
  t.after(() => { a.dispose(); b.dispose(); });
  assert.equal(a.seed, 9);
  assert.equal(b.seed, 0);
  assert.notDeepEqual(a.getParam("G/w").data, b.getParam("G/w").data);
  // training: dropout zeroes some elements on some run; inference is x * w exactly.
  const wb = b.getParam("G/w").data;
  assert.deepEqual([...b.run("G", x).y.data], [...x.x].map((v, i) => Math.fround(v * wb[i])));
  let zeros = 0;
  for (let i = 0; i < 20; i++) zeros += [...a.run("G", x).y.data].filter((v) => v === 0).length;
  assert.ok(zeros > 10, `training-mode dropout dropped ${zeros} of 80`);
  assert.throws(() => shrew.compile(SRC, { dims: { N: 1024 }, maxTensorBytes: 1024 }),
    (e) => e instanceof ShrewRuntimeError && e.code === "resource_exhausted");
});

// Seeds are u64 (OPS.md §5; `@config { seed: -1; }` is 2^64 - 1). They
// crossed as JS numbers, so 2^53 + 1 compiled as 2^53 and the seed read back
// as 18446744073709552000.
const W = "@graph G {\n  input x: Tensor<[16], f32>;\n  param w: Tensor<[16], f32> { init: \"uniform(-1, 1)\"; };\n  output y: x * w;\n}\n";

test("seeds are exact to 2^64 - 1: a bigint seed draws what @config's seed of that value draws, and reads back exactly", (t) => {
  const made = [];
  const compile = (source, options) => {
    const p = shrew.compile(source, options);
    made.push(p);
    return p;
  };
  t.after(() => made.forEach((p) => p.dispose()));
  const MAX = 2n ** 64n - 1n;
  const top = compile(W, { seed: MAX });
  const minusOne = compile(`@config { seed: -1; }\n${W}`);
  assert.equal(top.seedBigInt, MAX);
  assert.equal(minusOne.seedBigInt, MAX);
  assert.equal(top.paramsChecksum(), minusOne.paramsChecksum());
  assert.deepEqual(top.getParam("G/w").data, minusOne.getParam("G/w").data);
  // Each bit counts: the seed below draws other values.
  assert.notEqual(top.paramsChecksum(), compile(W, { seed: MAX - 1n }).paramsChecksum());

  const past = 2n ** 53n + 1n;  // as a number, 2^53
  const b = compile(W, { seed: past });
  assert.equal(b.seedBigInt, past);
  assert.equal(b.paramsChecksum(), compile(`@config { seed: ${past}; }\n${W}`).paramsChecksum());
  assert.notEqual(b.paramsChecksum(), compile(W, { seed: 2n ** 53n }).paramsChecksum());
  // A number and a bigint of one value are one seed.
  assert.equal(compile(W, { seed: 5n }).paramsChecksum(), compile(W, { seed: 5 }).paramsChecksum());
  assert.equal(compile(W, { seed: 5n }).seed, 5);

  // `seed` is the number while one holds the seed exactly; past that it would be another seed.
  assert.equal(compile(W, { seed: 2n ** 53n - 1n }).seed, 2 ** 53 - 1);
  assert.throws(() => top.seed, { name: "RangeError",
    message: "this program's seed 18446744073709551615 is past 2^53 - 1, where a number would round it: read seedBigInt" });
  assert.throws(() => b.seed, { name: "RangeError", message: /seed 9007199254740993 is past 2\^53 - 1/ });

  // A bundle and setDims keep the seed.
  const loaded = shrew.loadBundle(top.saveBundle());
  made.push(loaded);
  assert.equal(loaded.seedBigInt, MAX);
  assert.equal(loaded.paramsChecksum(), top.paramsChecksum());
  const sized = compile(W.replaceAll("[16]", "[N]"), { seed: MAX, dims: { N: 4 } });
  sized.setDims({ N: 16 });
  assert.equal(sized.seedBigInt, MAX);
  assert.equal(sized.paramsChecksum(), top.paramsChecksum());

  for (const [seed, shown] of [[2n ** 64n, "18446744073709551616n (a bigint)"], [-1n, "-1n (a bigint)"],
                               [2 ** 53, "9007199254740992 (past 2^53 - 1 a number may be rounded: give the seed as a bigint)"],
                               ["1", '"1" (a string)'], [-1, "-1"], [0.5, "0.5"]]) {
    assert.throws(() => shrew.compile(W, { seed }), (e) => e instanceof ShrewRuntimeError && e.code === "invalid_argument" &&
      e.message === `seed must be a non-negative integer (a number of at most 2^53 - 1, or a bigint of at most 2^64 - 1), got ${shown}`,
      String(seed));
  }
});

test("defaultDtype: the dtype of float literals no operation adopts, kept by setDims and bundles (0.1 was always an f32's)", () => {
  const src = '@graph G { input n: Tensor<[N], f32>; output y: cast(0.1, dtype: "f64"); output big: cast(1e300, dtype: "f64") * 1.0; }';
  const f32 = shrew.compile(src, { dims: { N: 1 } });
  const n = new Float32Array(1);
  assert.equal(f32.run("G", { n }).y.data[0], Math.fround(0.1));
  assert.equal(f32.run("G", { n }).big.data[0], Infinity);
  assert.deepEqual(f32.warnings.map((w) => w.code), ["W005"]);
  const f64 = shrew.compile(src, { dims: { N: 1 }, defaultDtype: "f64" });
  assert.deepEqual(f64.warnings, []);
  for (const p of [f64, shrew.loadBundle(f64.saveBundle())]) {
    for (const exec of ["run", "interpret"]) {
      const out = p[exec]("G", { n });
      assert.equal(out.y.data[0], 0.1, exec);
      assert.equal(out.big.data[0], 1e300, exec);
    }
  }
  f64.setDims({ N: 2 });
  assert.equal(f64.run("G", { n: new Float32Array(2) }).y.data[0], 0.1);
});
