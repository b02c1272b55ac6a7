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
    [{ dim: { N: 2 } }, /unknown compile option 'dim'; options: filename, dims, seed/],
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
