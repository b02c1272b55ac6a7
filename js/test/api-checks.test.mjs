// Every option object of the public API is checked by one rule set (unknown
// keys, value types), its errors ShrewRuntimeErrors that show a value's type;
// Tensor data that its dtype cannot hold exactly is refused, never wrapped,
// truncated or kept out of range.
import { test } from "node:test";
import assert from "node:assert/strict";
import { DTYPES, Shrew, ShrewRuntimeError, Tensor, isDType, writeNpy } from "../dist/index.js";

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
  assert.throws(() => p.run("G", { x }, { output: {} }), invalid("unknown run option 'output'; did you mean 'outputs'? options: outputs"));
  assert.throws(() => p.interpret("G", { x }, { output: {} }), invalid("unknown interpret option 'output'; did you mean 'outputs'? options: outputs"));
  assert.throws(() => p.interpret("G", { x }, 5), invalid("interpret options must be an object, got 5"));
  assert.throws(() => p.run("G", { x }, { outputs: [] }), invalid("outputs must be an object {name: Tensor or typed array}, got an array"));
  assert.throws(() => p.ir("G", { optimized: "no" }), invalid('optimized must be true or false, got "no" (a string)'));
  assert.throws(() => p.ir("G", { optimised: false }), invalid("unknown ir option 'optimised'; did you mean 'optimized'? options: optimized"));
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
    [{ seed: "1" }, 'seed must be a non-negative integer (a number of at most 2^53 - 1, or a bigint of at most 2^64 - 1), got "1" (a string)'],
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

test("options given as a Map are an error, not every default (a Map's entries are no own keys)", async (t) => {
  const src = "@graph G { input x: Tensor<[H], f32>; output y: x * 2.0; }";
  assert.throws(() => shrew.compile(src, new Map([["dims", { H: 2 }]])), invalid("compile options must be an object, got a Map"));
  const p = shrew.compile(src, { dims: { H: 2 } });
  t.after(() => p.dispose());
  assert.throws(() => shrew.loadBundle(p.saveBundle(), new Map([["training", true]])), invalid("loadBundle options must be an object, got a Map"));
  assert.throws(() => p.ir("G", new Map([["optimized", false]])), invalid("ir options must be an object, got a Map"));
  assert.throws(() => p.run("G", { x: new Float32Array(2) }, new Map()), invalid("run options must be an object, got a Map"));
  await assert.rejects(Shrew.load(new Map([["wasmUrl", "x"]])), invalid("load options must be an object, got a Map"));
  assert.deepEqual([...p.run("G", { x: new Float32Array([1, 2]) }).y.data], [2, 4]);
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

test("dims as a Map, a Set or a typed array is an error (a Map's entries are no own keys: it compiled as no dims at all)", (t) => {
  const src = "@graph G { input x: Tensor<[H], f32>; output y: x * 2.0; }";
  for (const [dims, what] of [[new Map([["H", 2]]), "a Map"], [new Set(["H"]), "a Set"], [new Int32Array([2]), "an Int32Array"]]) {
    assert.throws(() => shrew.compile(src, { dims }), invalid(`dims must be an object {name: size}, got ${what}`));
    assert.throws(() => shrew.compile(src, { dims: { H: 2 } }).setDims(dims), invalid(`dims must be an object {name: size}, got ${what}`));
  }
  const p = shrew.compile(src, { dims: Object.fromEntries(new Map([["H", 2]])) });
  t.after(() => p.dispose());
  assert.deepEqual([...p.run("G", { x: new Float32Array([1.5, -1]) }).y.data], [3, -2]);
});

test("a shape dimension that is a string or a bigint is shown as one", (t) => {
  const p = shrew.compile("@graph G { input x: Tensor<[N, 3], f32>; output y: x * 2; }");
  t.after(() => p.dispose());
  for (const [shape, message] of [
    [["2", 3], 'input \'x\': invalid dimension "2" (a string) in shape ["2", 3]: dimensions are non-negative integers'],
    [[2n, 3], "input 'x': invalid dimension 2n (a bigint) in shape [2n, 3]: dimensions are non-negative integers"],
  ]) {
    assert.throws(() => p.run("G", { x: { dtype: "f32", shape, data: new Float32Array(6) } }),
      (e) => e instanceof RangeError && e.message === message);
  }
  assert.throws(() => new Tensor("f32", [2, -1]), { name: "RangeError", message: "invalid dimension -1 in shape [2, -1]: dimensions are non-negative integers" });
  assert.throws(() => new Tensor("f32", 6), { name: "TypeError", message: "a shape must be an array of non-negative integers, got 6" });
});

test("Tensor values the dtype cannot hold exactly are refused, naming the element, the value and the dtype", () => {
  for (const [dtype, data, name, message] of [
    ["bool", [1, 2], "RangeError", "bool tensor: element 1 is 2, which bool cannot hold (0, 1, true or false)"],
    ["bool", ["1"], "TypeError", 'bool tensor: element 0 is "1" (a string), which bool cannot hold (0, 1, true or false)'],
    ["u8", [300], "RangeError", "u8 tensor: element 0 is 300, which u8 cannot hold (integers from 0 to 255)"],
    ["u8", [-1], "RangeError", "u8 tensor: element 0 is -1, which u8 cannot hold (integers from 0 to 255)"],
    ["u8", [true], "TypeError", "u8 tensor: element 0 is true (a boolean), which u8 cannot hold (integers from 0 to 255)"],
    ["i32", [0, 1.5], "RangeError", "i32 tensor: element 1 is 1.5, which i32 cannot hold (integers from -2147483648 to 2147483647)"],
    ["i32", [NaN], "RangeError", "i32 tensor: element 0 is NaN, which i32 cannot hold (integers from -2147483648 to 2147483647)"],
    ["i32", [2 ** 31], "RangeError", "i32 tensor: element 0 is 2147483648, which i32 cannot hold (integers from -2147483648 to 2147483647)"],
    ["i32", [5n], "TypeError", "i32 tensor: element 0 is 5n (a bigint), which i32 cannot hold (integers from -2147483648 to 2147483647)"],
    ["i64", [1.5], "RangeError", "i64 tensor: element 0 is 1.5, which i64 cannot hold (bigints from -2^63 to 2^63 - 1, or integers of at most 2^53 - 1 in magnitude)"],
    ["i64", [2 ** 53], "RangeError", "i64 tensor: element 0 is 9007199254740992, which i64 cannot hold (bigints from -2^63 to 2^63 - 1, or integers of at most 2^53 - 1 in magnitude)"],
    ["i64", [2n ** 63n], "RangeError", "i64 tensor: element 0 is 9223372036854775808n (a bigint), which i64 cannot hold (bigints from -2^63 to 2^63 - 1, or integers of at most 2^53 - 1 in magnitude)"],
    ["i64", [NaN], "RangeError", "i64 tensor: element 0 is NaN, which i64 cannot hold (bigints from -2^63 to 2^63 - 1, or integers of at most 2^53 - 1 in magnitude)"],
    ["f32", ["1"], "TypeError", 'f32 tensor: element 0 is "1" (a string), which f32 cannot hold (numbers)'],
    ["f64", [1n], "TypeError", "f64 tensor: element 0 is 1n (a bigint), which f64 cannot hold (numbers)"],
  ]) {
    assert.throws(() => new Tensor(dtype, [data.length], data), { name, message }, `${dtype} ${message}`);
  }
  assert.throws(() => new Tensor("f32", [1], null), { name: "TypeError", message: "f32 tensor data must be a Float32Array or an array, got null" });
  // What each dtype holds is taken as before.
  assert.deepEqual([...new Tensor("bool", [4], [0, 1, true, false]).data], [0, 1, 1, 0]);
  assert.deepEqual([...new Tensor("u8", [2], [0, 255]).data], [0, 255]);
  assert.deepEqual([...new Tensor("i32", [2], [-(2 ** 31), 2 ** 31 - 1]).data], [-(2 ** 31), 2 ** 31 - 1]);
  assert.deepEqual([...new Tensor("i64", [4], [5, -(2 ** 53 - 1), 2n ** 63n - 1n, -(2n ** 63n)]).data],
    [5n, -(2n ** 53n - 1n), 2n ** 63n - 1n, -(2n ** 63n)]);
  assert.deepEqual([...new Tensor("f32", [3], [0.5, NaN, -Infinity]).data], [0.5, NaN, -Infinity]);
  // setParam's {dtype, shape, data} goes through the same constructor.
  const p = shrew.compile('@graph G { input x: Tensor<[2], u8>; param w: Tensor<[2], u8> { init: "zeros"; }; output y: x + w; }');
  try {
    assert.throws(() => p.setParam("G/w", { dtype: "u8", shape: [2], data: [1, 256] }), { name: "RangeError", message: /element 1 is 256/ });
    assert.deepEqual([...p.getParam("G/w").data], [0, 0]);
  } finally {
    p.dispose();
  }
});

test("Tensor typed-array data of another type is refused, never converted (a Proxy of one too)", () => {
  // A Proxy whose functions run on the target, as a wrapper library would make.
  const proxy = (a) => new Proxy(a, { get(t, k) { const v = Reflect.get(t, k); return typeof v === "function" ? v.bind(t) : v; } });
  assert.throws(() => new Tensor("f32", [1], new Float64Array([0.1])), { name: "TypeError", message: "f32 tensor needs a Float32Array, got Float64Array" });
  assert.throws(() => new Tensor("u8", [1], new Uint8ClampedArray([3])), { name: "TypeError", message: /u8 tensor needs a Uint8Array, got Uint8ClampedArray/ });
  assert.throws(() => new Tensor("f32", [1], proxy(new Float64Array([0.1]))), { name: "TypeError", message: /f32 tensor needs a Float32Array/ });
  assert.throws(() => new Tensor("u8", [1], proxy(new Int32Array([300]))), { name: "TypeError", message: /u8 tensor needs a Uint8Array/ });
  // The dtype's own array is taken as is; a Proxy of one is copied (same type: exact).
  const own = new Float32Array([0.1]);
  assert.equal(new Tensor("f32", [1], own).data, own);
  const copied = new Tensor("f32", [1], proxy(own)).data;
  assert.ok(copied instanceof Float32Array && copied !== own && copied[0] === own[0]);
});

test("a Proxy of a typed array with no traps (whose built-in methods refuse it) is copied wherever the array is taken, and refused as a destination", () => {
  const bare = (a) => new Proxy(a, {});
  const t = new Tensor("f32", [3], bare(new Float32Array([1.5, -2, 3])));
  assert.ok(t.data instanceof Float32Array && ArrayBuffer.isView(t.data));
  assert.deepEqual([...t.data], [1.5, -2, 3]);
  assert.deepEqual([...new Tensor("i64", [2], bare(new BigInt64Array([-5n, 2n ** 62n]))).data], [-5n, 2n ** 62n]);
  const src = "@graph G { input x: Tensor<[3], f32>; param w: Tensor<[3], f32> { init: \"ones\"; }; output y: x * w; }";
  const p = shrew.compile(bare(new TextEncoder().encode(src)));
  try {
    p.setParam("G/w", { dtype: "f32", shape: [3], data: bare(new Float32Array([2, 3, 4])) });
    assert.deepEqual([...p.getParam("G/w").data], [2, 3, 4]);
    p.loadParams(bare(p.saveParams()));
    const x = new Float32Array([1, 2, -1]);
    for (const exec of ["run", "interpret"]) {
      assert.deepEqual([...p[exec]("G", { x: bare(x) }).y.data], [2, 6, -4]);
      assert.deepEqual([...p[exec]("G", { x: { dtype: "f32", shape: [3], data: bare(x) } }).y.data], [2, 6, -4]);
      assert.throws(() => p[exec]("G", { x }, { outputs: { y: bare(new Float32Array(3)) } }), { name: "TypeError",
        message: "output 'y': the destination is a Proxy of a Float32Array, which has no memory of its own to write into; pass the array itself" });
    }
    const loaded = shrew.loadBundle(bare(p.saveBundle()));
    assert.deepEqual([...loaded.run("G", { x }).y.data], [2, 6, -4]);
    loaded.dispose();
  } finally {
    p.dispose();
  }
});

test("setParam with a bad {dtype, shape, data} field names the parameter, as run names the input", () => {
  const p = shrew.compile(`@graph G { param w: Tensor<[2], f32> { init: "ones"; }; output y: w; }`);
  try {
    assert.throws(() => p.setParam("G/w", { dtype: "float", shape: [2], data: new Float32Array(2) }),
      { name: "TypeError", message: "parameter 'G/w': unknown dtype 'float' (expected one of f32, f64, i32, i64, u8, bool)" });
    assert.throws(() => p.setParam("G/w", { dtype: "f32", shape: [3], data: new Float32Array(2) }),
      { name: "RangeError", message: "parameter 'G/w': shape [3] needs 3 elements, data has 2" });
    assert.deepEqual([...p.run("G").y.data], [1, 1]);
  } finally {
    p.dispose();
  }
});

test("Tensor data that is neither a typed array nor a list of values (an ArrayBuffer, a plain object) is a TypeError, not 'data has 0'", () => {
  for (const [data, what] of [[new ArrayBuffer(8), "an ArrayBuffer"], [new SharedArrayBuffer(8), "a SharedArrayBuffer"], [{}, "an Object"]]) {
    assert.throws(() => new Tensor("f32", [2], data), { name: "TypeError", message: `f32 tensor data must be a Float32Array or an array, got ${what}` });
  }
  // setParam builds its value the same way.
  const p = shrew.compile(`@graph G { param w: Tensor<[2], f32> { init: "ones"; }; output y: w; }`);
  try {
    assert.throws(() => p.setParam("G/w", { dtype: "f32", shape: [2], data: new ArrayBuffer(8) }), { name: "TypeError", message: /got an ArrayBuffer/ });
    assert.deepEqual([...p.run("G").y.data], [1, 1]);
  } finally {
    p.dispose();
  }
  // Iterables and array-likes are lists of values.
  assert.deepEqual([...new Tensor("f32", [2], new Set([1.5, 2])).data], [1.5, 2]);
  assert.deepEqual([...new Tensor("i32", [2], { length: 2, 0: 3, 1: -4 }).data], [3, -4]);
});

test("a dtype that is not a string is shown with its type ('unknown dtype 'f32'' contradicted the list after it)", () => {
  assert.throws(() => new Tensor(new String("f32"), [1]), { name: "TypeError", message: "unknown dtype a String (expected one of f32, f64, i32, i64, u8, bool)" });
  assert.throws(() => new Tensor({ toString: () => "f32" }, [1]), { name: "TypeError", message: /^unknown dtype an Object \(/ });
  assert.throws(() => new Tensor("f16", [1]), { name: "TypeError", message: "unknown dtype 'f16' (expected one of f32, f64, i32, i64, u8, bool)" });
  // A misspelt dtype is told the closest one (src/base/spelling.cc's rule).
  assert.throws(() => new Tensor("F32", [1]), { name: "TypeError", message: "unknown dtype 'F32'; did you mean 'f32'? (expected one of f32, f64, i32, i64, u8, bool)" });
  assert.throws(() => new Tensor("i46", [1]), { name: "TypeError", message: "unknown dtype 'i46'; did you mean 'i64'? (expected one of f32, f64, i32, i64, u8, bool)" });
  assert.throws(() => new Tensor(undefined, [1]), { name: "TypeError", message: /^unknown dtype undefined \(/ });
});

test("a Tensor whose fields were reassigned, or a look-alike of one, is checked where it is used: bytes are never read as another type", () => {
  const p = shrew.compile(`@graph G { input n: Tensor<[N], f32>; param w: Tensor<[2], f32> { init: "zeros"; }; output z: n + w; }`);
  try {
    const wrongType = (message) => ({ name: "TypeError", message });
    // The fields are readonly in TypeScript only: plain JS can reassign them.
    const swapped = new Tensor("f32", [2], [1, 2]);
    swapped.data = new Int32Array([1, 2]);
    const retyped = new Tensor("f32", [2], [1, 2]);
    retyped.dtype = "i32";
    // Object.create(Tensor.prototype) passes instanceof with any fields, and
    // a Proxy of a Tensor can report any data.
    const fake = (data, shape = [2]) => Object.assign(Object.create(Tensor.prototype), { dtype: "f32", shape, data });
    const lying = new Proxy(new Tensor("f32", [2], [1, 2]), { get: (o, k) => (k === "data" ? new Int32Array([1, 2]) : Reflect.get(o, k)) });
    for (const [n, message] of [[swapped, "f32 tensor needs a Float32Array, got Int32Array"],
      [retyped, "i32 tensor needs an Int32Array, got Float32Array"], [fake(new Int32Array([1, 2])), "f32 tensor needs a Float32Array, got Int32Array"],
      [lying, "f32 tensor needs a Float32Array, got Int32Array"]]) {
      assert.ok(n instanceof Tensor);
      assert.throws(() => p.run("G", { n }), wrongType(`input 'n': ${message}`));  // lean path
      assert.throws(() => p.interpret("G", { n }), wrongType(`input 'n': ${message}`));  // value path
      assert.throws(() => p.setParam("G/w", n), wrongType(`parameter 'G/w': ${message}`));
    }
    assert.deepEqual([...p.getParam("G/w").data], [0, 0]);
    // One with no fields at all is not called "a Tensor" in the message that refuses it.
    const hollow = "input 'n' must be a Tensor, a {dtype, shape, data} object or a typed array, got a Tensor without a dtype";
    assert.throws(() => p.run("G", { n: Object.create(Tensor.prototype) }), wrongType(hollow));
    assert.throws(() => p.interpret("G", { n: Object.create(Tensor.prototype) }), wrongType(hollow));
    const cleared = new Tensor("f32", [2], [1, 2]);
    cleared.dtype = undefined;
    assert.throws(() => p.run("G", { n: cleared }), wrongType(hollow));
    assert.throws(() => p.setParam("G/w", Object.create(Tensor.prototype)), (e) => e instanceof ShrewRuntimeError &&
      e.message === "parameter 'G/w': expected a Tensor or {dtype, shape, data} of f32[2], got a Tensor without a dtype");
    // An Int32Array given Float32Array.prototype is still an Int32Array.
    const disguised = Object.setPrototypeOf(new Int32Array([1, 2]), Float32Array.prototype);
    assert.throws(() => new Tensor("f32", [2], disguised), wrongType("f32 tensor needs a Float32Array, got Int32Array"));
    assert.throws(() => p.run("G", { n: disguised }), (e) => e instanceof ShrewRuntimeError && e.code === "invalid_argument" && e.input === "n");
    // What holds together is taken, checked like {dtype, shape, data}.
    const replaced = new Tensor("f32", [2], [1, 2]);
    replaced.data = new Float32Array([5, 6]);
    assert.deepEqual([...p.run("G", { n: replaced }).z.data], [5, 6]);
    assert.deepEqual([...p.run("G", { n: fake(new Float32Array([3, 4])) }).z.data], [3, 4]);
    assert.throws(() => p.run("G", { n: fake(new Float32Array(3)) }), { name: "RangeError", message: "input 'n': shape [2] needs 2 elements, data has 3" });
    // A shape that is not the constructor's is read before the call into wasm.
    const q = shrew.compile(`@graph G { input n: Tensor<[N], f32>; output z: n + 0; }`);
    const sneaky = new Tensor("f32", [2], [1, 2]);
    sneaky.shape = [2];
    Object.defineProperty(sneaky.shape, 0, { get() { q.dispose(); return 2; } });
    assert.throws(() => q.run("G", { n: sneaky }), (e) => e instanceof ShrewRuntimeError && e.code === "disposed");
  } finally {
    p.dispose();
  }
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

test("a name with a lone surrogate is refused naming it as given; the module's UTF-8 conversion made it another name in the message", () => {
  const p = shrew.compile("@graph G {\n  input x: Tensor<[N], f32>;\n  output y: x * 2.0;\n}\n", { dims: { N: 2 } });
  const x = new Float32Array([1, -2]);
  const lone = (what, at, unit) => invalid(new RegExp(`^${what} "[^"]*\\\\u${unit}[^"]*" has a lone surrogate \\(\\\\u${unit} at index ${at}\\)`));
  assert.throws(() => p.run("G\uD800x", { x }), lone("graph", 1, "d800"));
  assert.throws(() => p.signature("\uDC00G"), lone("graph", 0, "dc00"));
  assert.throws(() => p.run("G", { ["x\uD800"]: new Tensor("f32", [2], x) }), lone("input name", 1, "d800"));
  assert.throws(() => p.interpret("G", { ["x\uD800"]: x }), lone("input name", 1, "d800"));
  assert.throws(() => p.getParam("G/w\uDBFF"), lone("parameter name", 3, "dbff"));
  assert.throws(() => p.setDims({ ["N\uDFFF"]: 3 }), lone("dims name", 1, "dfff"));
  assert.throws(() => shrew.compile("@graph G {}\n", { dims: { ["\uD800N"]: 3 } }), lone("dims name", 0, "d800"));
  // A surrogate pair is well-formed: an unknown name like any other, shown as given.
  assert.throws(() => p.run("G\u{1F600}", { x }), (e) => e instanceof ShrewRuntimeError && e.message.startsWith("no graph named 'G\u{1F600}'"));
  assert.deepEqual([...p.run("G", { x }).y.data], [2, -4]);  // still usable, its input untouched
  assert.deepEqual([...x], [1, -2]);
});

// An Int8Array for an i8 input (or Uint16Array for u16, Float16-like data as
// a Uint16Array for f16) said only "unsupported typed array Int8Array".
test("run: a typed array no tensor holds names the array the input's dtype takes", () => {
  const p = shrew.compile("@graph G {\n  input a: Tensor<[2], i8>;\n  input b: Tensor<[2], u16>;\n  input c: Tensor<[2], f16>;\n" +
    "  output y: a;\n}\n");
  const ok = { a: new Int32Array(2), b: new BigInt64Array(2), c: new Float32Array(2) };
  const LIST = "(a tensor's data is a Float32Array, Float64Array, Int32Array, BigInt64Array or Uint8Array)";
  for (const [name, value, takes] of [["a", new Int8Array(2), "an Int32Array"], ["b", new Uint16Array(2), "a BigInt64Array"],
                                      ["c", new Uint16Array(2), "a Float32Array"]]) {
    assert.throws(() => p.run("G", { ...ok, [name]: value }),
      (e) => e instanceof TypeError && e.message ===
        `input '${name}': unsupported typed array ${value.constructor.name}; its dtype ${p.signature("G").inputs.find((i) => i.name === name).dtype} takes ${takes} ${LIST}`);
  }
  assert.deepEqual([...p.run("G", ok).y.data], [0, 0]);
  p.dispose();
});

// A type name takes the article it is said with: messages said "a Int32Array"
// (and describe() "an Uint8Array").
test("messages say 'an Int32Array', 'an ArrayBuffer', 'a Float32Array' and 'a Uint8Array'", (t) => {
  const p = shrew.compile("@graph G {\n  input a: Tensor<[2], i32>;\n  output y: a + a;\n}\n");
  t.after(() => p.dispose());
  const typeError = (message) => ({ name: "TypeError", message });
  assert.throws(() => new Tensor("i32", [2], new Float32Array(2)), typeError("i32 tensor needs an Int32Array, got Float32Array"));
  assert.throws(() => new Tensor("i32", [2], 5), typeError("i32 tensor data must be an Int32Array or an array, got 5"));
  assert.throws(() => new Tensor("u8", [2], new Int8Array(2)), typeError("u8 tensor needs a Uint8Array, got Int8Array"));
  assert.throws(() => new Tensor("f64", [2], new Float32Array(2)), typeError("f64 tensor needs a Float64Array, got Float32Array"));
  assert.throws(() => p.run("G", { a: { dtype: "i32", shape: [2], data: [1, 2] } }),
    typeError("input 'a': i32 tensor data must be an Int32Array, got an array"));
  assert.throws(() => p.run("G", { a: new Int32Array(3) }),
    (e) => e instanceof ShrewRuntimeError && e.message === "input 'a': expected [2] (2 elements), got an Int32Array of 3 elements");
  assert.throws(() => p.run("G", { a: new Int32Array(2) }, { outputs: { y: new Int32Array(3) } }),
    (e) => e instanceof ShrewRuntimeError && e.actual === "an Int32Array of 3 elements" &&
      e.message === "output 'y' of graph 'G': expected a destination of i32[2], got an Int32Array of 3 elements");
  assert.throws(() => writeNpy({ dtype: "i32", shape: [2], data: new Float32Array(2) }),
    typeError("writeNpy: i32 tensor data must be an Int32Array, got a Float32Array"));
  // describe(): a value's type where a string belongs.
  for (const [value, shown] of [[new Int8Array(1), "an Int8Array"], [new Uint8Array(1), "a Uint8Array"], [new ArrayBuffer(1), "an ArrayBuffer"],
                                [new Uint16Array(1), "a Uint16Array"], [new URL("http://x/"), "a URL"], [new Float32Array(1), "a Float32Array"]]) {
    assert.throws(() => shrew.compile("@graph G { input x: Tensor<[2], f32>; output y: x; }", { filename: value }),
      invalid(`filename must be a string, got ${shown}`));
  }
  assert.deepEqual([...p.run("G", { a: new Int32Array([1, -2]) }).y.data], [2, -4]);
});

test("DTYPES is frozen: emptying it made every dtype unknown for the whole process", () => {
  assert.ok(Object.isFrozen(DTYPES));
  assert.throws(() => { DTYPES.length = 0; }, TypeError);
  assert.throws(() => DTYPES.push("f16"), TypeError);
  assert.deepEqual([...DTYPES], ["f32", "f64", "i32", "i64", "u8", "bool"]);
  assert.ok(isDType("f32"));
  assert.equal(new Tensor("f32", [1], [2]).data[0], 2);
});

test("a count of one element is '1 element' in messages", () => {
  assert.throws(() => new Tensor("f32", [1], [1, 2]), (e) => e instanceof RangeError && e.message === "shape [1] needs 1 element, data has 2");
});
