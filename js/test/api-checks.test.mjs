// Every option object of the public API is checked by one rule set (unknown
// keys, value types), its errors ShrewRuntimeErrors that show a value's type.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Shrew, ShrewRuntimeError } from "../dist/index.js";

const shrew = await Shrew.load();
const invalid = (message) => (e) => e instanceof ShrewRuntimeError && e.code === "invalid_argument" &&
  (typeof message === "string" ? e.message === message : message.test(e.message));

test("Shrew.load options must be an object of known keys", async () => {
  await assert.rejects(Shrew.load(null), invalid("load options must be an object, got null"));
  await assert.rejects(Shrew.load("shrew.wasm"), invalid('load options must be an object, got "shrew.wasm" (a string)'));
  await assert.rejects(Shrew.load({ foo: 1 }), invalid("unknown load option 'foo'; options: wasmBinary, wasmUrl"));
  await assert.rejects(Shrew.load({ wasmUrl: "" }), invalid('wasmUrl must be a URL or a non-empty string, got "" (a string)'));
  assert.equal((await Shrew.load({ wasmBinary: undefined })).simd128, true);  // undefined: the default
});

test("run, interpret and ir options: unknown keys and values of the wrong type are errors", (t) => {
  const p = shrew.compile("@graph G { input x: Tensor<[2], f32>; output y: x * (2 + 3); }");
  t.after(() => p.dispose());
  const x = new Float32Array([1, 2]);
  assert.throws(() => p.run("G", { x }, { output: {} }), invalid("unknown run option 'output'; options: outputs"));
  assert.throws(() => p.interpret("G", { x }, { output: {} }), invalid("unknown interpret option 'output'; options: outputs"));
  assert.throws(() => p.interpret("G", { x }, 5), invalid("interpret options must be an object, got 5"));
  assert.throws(() => p.run("G", { x }, { outputs: [] }), invalid("outputs must be an object {name: Tensor or typed array}, got an array"));
  assert.throws(() => p.ir("G", { optimized: "no" }), invalid('optimized must be true or false, got "no" (a string)'));
  assert.throws(() => p.ir("G", { optimised: false }), invalid("unknown ir option 'optimised'; options: optimized"));
  assert.throws(() => p.ir("G", null), invalid("ir options must be an object, got null"));
  // Valid options still work; an undefined value is the default; inherited ones are read.
  assert.notEqual(p.ir("G", { optimized: false }).text, p.ir("G").text);
  assert.equal(p.ir("G", { optimized: undefined }).text, p.ir("G").text);
  assert.equal(p.ir("G", Object.create({ optimized: false })).text, p.ir("G", { optimized: false }).text);
  const y = new Float32Array(2);
  assert.equal(p.interpret("G", { x }, { outputs: { y } }).y.data, y);
  assert.deepEqual([...y], [5, 10]);
});

test("compile and loadBundle options show the type of a value of the wrong type", (t) => {
  const src = "@graph G { input x: Tensor<[H], f32>; output y: x; }";
  for (const [options, message] of [
    [{ dims: { H: "2" } }, 'dims.H must be a non-negative integer (at most 2^53 - 1), got "2" (a string)'],
    [{ dims: { H: 2n } }, "dims.H must be a non-negative integer (at most 2^53 - 1), got 2n (a bigint)"],
    [{ dims: [2] }, "dims must be an object {name: size}, got an array"],
    [{ seed: "1" }, 'seed must be a non-negative integer (at most 2^53 - 1), got "1" (a string)'],
    [{ optimize: "false" }, 'optimize must be true or false, got "false" (a string)'],
    [{ filename: null }, "filename must be a string, got null"],
  ]) {
    assert.throws(() => shrew.compile(src, options), invalid(message), JSON.stringify(options, (k, v) => typeof v === "bigint" ? `${v}n` : v));
  }
  const p = shrew.compile(src, { dims: { H: 2 } });
  t.after(() => p.dispose());
  assert.throws(() => shrew.loadBundle(p.saveBundle(), { training: 1 }), invalid("training must be true or false, got 1"));
  assert.throws(() => shrew.loadBundle(p.saveBundle(), null), invalid("loadBundle options must be an object, got null"));
});

test("setDims takes compile's dims rule: null, an array or a string size are typed errors", (t) => {
  const p = shrew.compile("@graph G { input x: Tensor<[H], f32>; output y: x; }", { dims: { H: 2 } });
  t.after(() => p.dispose());
  assert.throws(() => p.setDims([]), invalid("dims must be an object {name: size}, got an array"));
  assert.throws(() => p.setDims(null), invalid("dims must be an object {name: size}, got null"));
  assert.throws(() => p.setDims({ H: "3" }), invalid('dims.H must be a non-negative integer (at most 2^53 - 1), got "3" (a string)'));
  assert.deepEqual(p.dims, { H: 2 });
  assert.deepEqual(p.setDims({ H: 3 }), { carried: [], initialized: [] });
  assert.deepEqual(p.dims, { H: 3 });
});

test("maxTensorBytes is at most 2^50: above, an option error; at 2^50, run and interpret report the same limit", (t) => {
  const src = "@graph G { input x: Tensor<[2], f32>; output y: expand(x, shape: [2305843009213693952, 2]); }";
  const over = invalid("maxTensorBytes must be a non-negative integer (at most 2^50 = 1125899906842624), got 9007199254740991");
  assert.throws(() => shrew.compile(src, { maxTensorBytes: 2 ** 53 - 1 }), over);
  const p = shrew.compile(src, { maxTensorBytes: 2 ** 50 });
  t.after(() => p.dispose());
  assert.throws(() => shrew.loadBundle(p.saveBundle(), { maxTensorBytes: 2 ** 53 - 1 }), over);
  const x = { x: new Float32Array(2) };
  for (const call of [() => p.run("G", x), () => p.interpret("G", x)]) {
    assert.throws(call, (e) => e instanceof ShrewRuntimeError && e.code === "resource_exhausted" &&
      /over the limit of 1125899906842624 bytes per tensor$/.test(e.message));
  }
});
