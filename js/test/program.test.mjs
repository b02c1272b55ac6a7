// The Program API: signature, inputs in every accepted form, dumps, stats,
// params, metadata, every error class, dispose.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Shrew, Tensor, Program, ShrewCompileError, ShrewRuntimeError } from "../dist/index.js";
import { spawnSync } from "node:child_process";
import { readExample } from "./helpers.mjs";

const shrew = await Shrew.load();
const MLP = readExample("mlp_classifier.sw");
const randomF32 = (n) => Float32Array.from({ length: n }, (_, i) => Math.sin(i * 0.37));

test("compile: graphs, signature with symbolic dims, metadata", () => {
  const p = shrew.compile(MLP, { filename: "mlp.sw" });
  try {
    assert.deepEqual([...p.graphs], ["Classifier"]);
    const sig = p.signature("Classifier");
    assert.equal(sig.inputs[0].name, "images");
    assert.equal(sig.inputs[0].dtype, "f32");
    assert.deepEqual([...sig.inputs[0].shape], ["Batch", 784]);
    assert.deepEqual(sig.outputs.map((o) => o.name), ["probs", "logits"]);
    assert.equal(p.metadata.model.name, "DigitMLP");
    assert.equal(p.metadata.config.Hidden, 128);
    assert.equal(p.metadata.training.loss, "cross_entropy");
    assert.equal(p.metadata.training.optimizer.type, "Adam");
    assert.equal(p.metadata.inference.model, "Classifier");
  } finally {
    p.dispose();
  }
});

test("metadata: integers past 2^53 are exact bigints, the rest numbers", () => {
  const p = shrew.compile("@config { big: 9007199254740993; neg: -9223372036854775807; max: 9007199254740991; inf: 1e999;\n" +
    "  list: [9007199254740993, 2]; }\n@graph G { input x: Tensor<[2], f32>; output x; }\n" +
    "@training { model: G; loss: mse; optimizer: { type: \"SGD\"; lr: 0.1; steps: 9007199254740995; }\n" +
    "  epochs: 9007199254740997; batch_size: 32; }\n");
  try {
    assert.equal(p.metadata.config.big, 9007199254740993n);
    assert.equal(p.metadata.config.neg, -9223372036854775807n);
    assert.equal(p.metadata.config.max, 9007199254740991);
    assert.equal(p.metadata.config.inf, Infinity);
    assert.deepEqual(p.metadata.config.list, [9007199254740993n, 2]);
    assert.equal(p.metadata.training.optimizer.steps, 9007199254740995n);
    assert.equal(p.metadata.training.epochs, 9007199254740997n);
    assert.equal(p.metadata.training.batchSize, 32);
  } finally {
    p.dispose();
  }
});

test("run: Tensor, {dtype, shape, data} and bare typed arrays give the same outputs", () => {
  const p = shrew.compile(MLP, { dims: { Batch: 2 }, seed: 3 });
  try {
    const x = randomF32(2 * 784);
    const a = p.run("Classifier", { images: new Tensor("f32", [2, 784], x) });
    const b = p.run("Classifier", { images: { dtype: "f32", shape: [2, 784], data: x } });
    const c = p.run("Classifier", { images: x });
    assert.deepEqual([...a.probs.shape], [2, 10]);
    assert.ok(a.probs.data instanceof Float32Array);
    assert.ok(a.probs instanceof Tensor && Object.isFrozen(a.probs.shape) && a.probs.dtype === "f32" && a.probs.size === 20);
    assert.throws(() => { a.probs.shape[0] = 3; }, TypeError);  // shared by every run's output: frozen
    assert.deepEqual(a.probs.data, b.probs.data);
    assert.deepEqual(a.probs.data, c.probs.data);
    const row = a.probs.data.slice(0, 10).reduce((s, v) => s + v, 0);
    assert.ok(Math.abs(row - 1) < 1e-5, `softmax row sums to ${row}`);
    // Outputs are fresh arrays: a second run does not change the first result.
    const before = Float32Array.from(a.logits.data);
    p.run("Classifier", { images: randomF32(2 * 784).map((v) => v * 3) });
    assert.deepEqual(a.logits.data, before);
  } finally {
    p.dispose();
  }
});

test("same seed, same parameters; different seed, different parameters", () => {
  const a = shrew.compile(MLP, { seed: 5 }), b = shrew.compile(MLP, { seed: 5 }), c = shrew.compile(MLP, { seed: 6 });
  try {
    assert.deepEqual(a.getParam("Classifier/w1").data, b.getParam("Classifier/w1").data);
    assert.notDeepEqual(a.getParam("Classifier/w1").data, c.getParam("Classifier/w1").data);
  } finally {
    a.dispose(); b.dispose(); c.dispose();
  }
});

test("dump, stats, plan, ir", () => {
  const p = shrew.compile(MLP, { dims: { Batch: 4 } });
  try {
    p.run("Classifier", { images: randomF32(4 * 784) });
    assert.match(p.dump("Classifier"), /\S/);
    const s = p.stats("Classifier");
    for (const k of ["numInstructions", "numSourceNodes", "numSlots", "numReused", "numFrees", "numFused",
      "compileTimeUs", "arenaBytes", "arenaLowerBound", "arenaNaive", "numInPlace", "numAliases", "numRefKernels"]) {
      assert.equal(typeof s[k], "number", k);
    }
    assert.ok(s.numInstructions > 0);
    assert.ok(s.arenaBytes > 0);
    JSON.parse(p.plan("Classifier"));
    const opt = p.ir("Classifier");
    assert.match(opt.text, /^graph Classifier/);
    assert.equal(opt.json.graphs?.[0]?.name ?? opt.json.name, "Classifier");
    const raw = p.ir("Classifier", { optimized: false });
    assert.match(raw.text, /^graph Classifier/);
    assert.equal(typeof p.optStats.opsFused, "number");
  } finally {
    p.dispose();
  }
});

test("params, getParam, setParam", () => {
  const p = shrew.compile(MLP, { dims: { Batch: 1 } });
  try {
    const params = p.params();
    assert.deepEqual(params.map((q) => q.name), ["Classifier/b1", "Classifier/b2", "Classifier/w1", "Classifier/w2"]);
    const w2 = params.find((q) => q.name === "Classifier/w2");
    assert.deepEqual([...w2.shape], [128, 10]);
    assert.equal(w2.bytes, 128 * 10 * 4);
    p.setParam("Classifier/w2", new Tensor("f32", [128, 10]));
    p.setParam("Classifier/b2", new Tensor("f32", [10], Float32Array.from({ length: 10 }, (_, i) => i)));
    assert.deepEqual([...p.getParam("Classifier/b2").data], [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    const out = p.run("Classifier", { images: randomF32(784) });
    assert.deepEqual([...out.logits.data], [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    const paramError = (value, actual, pattern) => assert.throws(() => p.setParam("Classifier/b2", value), (e) =>
      e instanceof ShrewRuntimeError && e.code === "invalid_argument" && e.input === "Classifier/b2" &&
      e.expected === "f32[10]" && e.actual === actual && pattern.test(e.message));
    paramError(new Tensor("f32", [11]), "f32[11]", /expected f32\[10\], got f32\[11\]/);
    paramError(null, "null", /^parameter 'Classifier\/b2': expected a Tensor or \{dtype, shape, data\} of f32\[10\], got null$/);
    paramError(new Float32Array(10), "Float32Array", /got Float32Array/);
    assert.throws(() => p.getParam("Classifier/nope"), (e) => e instanceof ShrewRuntimeError && e.code === "not_found");
  } finally {
    p.dispose();
  }
});

test("dtypes cross both ways: i64 (BigInt64Array), bool, i32", () => {
  const src = `@graph G {
    input a: Tensor<[3], i64>;
    input m: Tensor<[3], bool>;
    input k: Tensor<[3], i32>;
    output s: a + a;
    output n: !m;
    output t: k * 2;
  }`;
  const p = shrew.compile(src);
  try {
    const out = p.run("G", {
      a: new Tensor("i64", [3], BigInt64Array.from([1n, -2n, 9007199254740993n])),
      m: new Tensor("bool", [3], Uint8Array.from([1, 0, 1])),
      k: new Tensor("i32", [3], Int32Array.from([5, -6, 7])),
    });
    assert.ok(out.s.data instanceof BigInt64Array);
    assert.deepEqual([...out.s.data], [2n, -4n, 18014398509481986n]);
    assert.equal(out.n.dtype, "bool");
    assert.deepEqual([...out.n.data], [0, 1, 0]);
    assert.equal(out.t.dtype, "i32");
    assert.ok(out.t.data instanceof Int32Array);
    assert.deepEqual([...out.t.data], [10, -12, 14]);
  } finally {
    p.dispose();
  }
});

test("a @custom_op call is a compile error at each call (OPS.md §3.19), not a runtime error at the first", () => {
  const src = "@custom_op rope { }\n@graph H {\n  input x: Tensor<[2], f32>;\n  output y: rope(x);\n}\n" +
    "@graph K {\n  input x: Tensor<[2], f32>;\n  output z: rope(x) * 2.0;\n}\n";
  assert.throws(() => shrew.compile(src, { filename: "co.sw" }), (e) => {
    assert.ok(e instanceof ShrewCompileError, String(e));
    assert.equal(e.stage, "jit");
    assert.deepEqual(e.diagnostics.map((d) => [d.code, d.line, d.column, d.message]), [
      ["E150", 4, 3, "[H::y] custom op 'rope' has no kernel"],
      ["E150", 8, 13, "[K::z] custom op 'rope' has no kernel"],
    ]);
    return true;
  });
  // A call nothing reads is removed before it is compiled.
  const dead = shrew.compile("@custom_op rope { }\n@graph H {\n  input x: Tensor<[2], f32>;\n  node r { op: rope(x); };\n  output y: x;\n}\n");
  dead.dispose();
});

// What the source declares but no executor can build is found while the
// program is built, after the compile proper: such an error, at its
// declaration, was a ShrewRuntimeError with no diagnostics, so code that
// shows a compile's diagnostics missed it.
test("a parameter nothing sizes, a random init on integers, an unrunnable input dtype: compile errors (E150, stage jit)", () => {
  const cases = [
    ["@graph G {\n  input x: Tensor<[B, W], f32>;\n  param w: Tensor<[W, 4], f32>;\n  output y: matmul(x, w);\n}\n", 3, 3,
     "graph 'G': unresolved symbolic dimension 'W' in parameter 'w': set it in @config or in the dims option"],
    ["@graph G {\n  input x: Tensor<[2], f32>;\n  param w: Tensor<[2], i64> { init: \"normal(0, 1)\"; };\n  output y: x;\n}\n", 3, 3,
     "graph 'G': parameter 'w': init 'normal(0, 1)' needs a float dtype, got i64"],
    ["@graph G {\n  input x: Tensor<[2], complex64>;\n  output y: x;\n}\n", 2, 3,
     "input 'x' of graph 'G': dtype complex64 is not supported for execution"],
  ];
  for (const [src, line, column, message] of cases) {
    assert.throws(() => shrew.compile(src, { filename: "setup.sw" }), (e) => {
      assert.ok(e instanceof ShrewCompileError, String(e));
      assert.equal(e.stage, "jit");
      assert.deepEqual(e.diagnostics.map((d) => [d.code, d.severity, d.line, d.column, d.message]),
                       [["E150", "error", line, column, message]]);
      assert.ok(e.message.startsWith(`setup.sw:${line}:${column}: error[E150]: ${message}\n`), e.message);
      return true;
    });
  }
  // Whatever the file's name holds (the header is matched whole, not searched for).
  assert.throws(() => shrew.compile(cases[0][0], { filename: "error[E150]: x.sw" }),
                (e) => e instanceof ShrewCompileError && e.diagnostics[0].message === cases[0][3]);
  // Bound, the first one compiles and runs: x · ones.
  const p = shrew.compile(cases[0][0].replace("param w: Tensor<[W, 4], f32>;", "param w: Tensor<[W, 4], f32> { init: \"ones\"; };"),
                          { dims: { W: 2 } });
  try {
    assert.deepEqual([...p.run("G", { x: new Tensor("f32", [1, 2], [1, 2]) }).y.data], [3, 3, 3, 3]);
  } finally {
    p.dispose();
  }
  // A limit stays a run-time error: the source is fine, the option is not. Its
  // position is the span, as for any run-time error (the message repeated it
  // in a rendered E150 header).
  assert.throws(() => shrew.compile("@graph G {\n  param w: Tensor<[1000], f32>;\n  output y: w;\n}\n", { maxTensorBytes: 1024 }),
                (e) => e instanceof ShrewRuntimeError && e.code === "resource_exhausted" &&
                  e.message === "parameter 'w' of graph 'G' (f32[1000]) is over the limit of 1024 bytes per tensor" &&
                  e.span?.line === 2 && e.span?.column === 3);
});

test("compile error: ShrewCompileError with code, line, column, rendered", () => {
  const src = "@graph G {\n    input x: Tensor<[2], f32>;\n    output y: relu(zz);\n}\n";
  assert.throws(() => shrew.compile(src, { filename: "bad.sw" }), (e) => {
    assert.ok(e instanceof ShrewCompileError);
    const d = e.diagnostics.find((x) => x.severity === "error");
    assert.ok(d, "an error diagnostic");
    assert.match(d.code, /^E\d+$/);
    assert.equal(d.line, 3);
    assert.equal(d.column, 20);
    assert.ok(d.length > 0);
    assert.match(d.rendered, /bad\.sw:3:20/);
    // message: the error's header first (file, line, column, code), then its
    // source line and caret, the header not repeated.
    const lines = e.message.split("\n");
    assert.equal(lines[0], `bad.sw:3:20: error[${d.code}]: ${d.message}`);
    assert.equal(lines.filter((l) => l === lines[0]).length, 1);
    assert.deepEqual(lines.slice(1).map((l) => l.trim()), ["output y: relu(zz);", "^~"]);
    return true;
  });
  assert.throws(() => shrew.compile("@graph {", {}), ShrewCompileError);
  // A warning before the error: the error's own lines first, then the warning's (its header was printed twice).
  assert.throws(() => shrew.compile(`@import "a";\n${src}`, { filename: "bad.sw" }), (e) => {
    const lines = e.message.split("\n");
    assert.match(lines[0], /^bad\.sw:4:20: error\[E040\]: undefined name 'zz'$/);
    assert.equal(lines.filter((l) => l === lines[0]).length, 1);
    assert.deepEqual(lines.slice(1).map((l) => l.trim()),
                     ["output y: relu(zz);", "^~", 'bad.sw:1:1: warning[W001]: @import "a" is parsed and ignored: no file is read', '@import "a";', "^~~~~~~"]);
    return true;
  });
});

test("shrew.excerpt renders a span's line and caret as compile diagnostics do (cells, not code points)", () => {
  assert.equal(shrew.excerpt("a\n  あx\n", { line: 2, column: 6, length: 1, offset: 7 }), "    あx\n      ^\n");
  assert.equal(shrew.excerpt(new TextEncoder().encode("ab\tcd"), { line: 1, column: 4, length: 2 }), "  ab\tcd\n    \t^~\n");
  assert.equal(shrew.excerpt("one line", { line: 3, column: 1, length: 1 }), undefined);
  // The same text as a diagnostic's: the line and caret under its header.
  try {
    shrew.compile("@graph G {\n  input x: Tensor<[2], f32>;\n  output y: /*😀*/ zz;\n}\n");
    assert.fail("compiled");
  } catch (e) {
    const d = e.diagnostics[0];
    assert.equal(d.rendered.slice(d.rendered.indexOf("\n") + 1), shrew.excerpt("@graph G {\n  input x: Tensor<[2], f32>;\n  output y: /*😀*/ zz;\n}\n", d));
  }
  assert.throws(() => shrew.excerpt("x", { line: "1", column: 1, length: 1 }), TypeError);
  assert.throws(() => shrew.excerpt(null, { line: 1, column: 1, length: 1 }), TypeError);
});

test("run errors: missing, extra, wrong dtype, wrong shape, unknown graph", () => {
  const p = shrew.compile(MLP, { dims: { Batch: 2 } });
  try {
    const good = new Tensor("f32", [2, 784]);
    const check = (fn, code, extra = {}) => assert.throws(fn, (e) => {
      assert.ok(e instanceof ShrewRuntimeError, String(e));
      assert.equal(e.code, code, e.message);
      for (const [k, v] of Object.entries(extra)) assert.equal(e[k], v, `${k} in: ${e.message}`);
      return true;
    });
    check(() => p.run("Classifier", {}), "invalid_argument", { input: "images" });
    check(() => p.run("Classifier", { images: good, extra: good }), "invalid_argument", { input: "extra" });
    check(() => p.run("Classifier", { images: new Tensor("f64", [2, 784]) }), "invalid_argument", { input: "images", expected: "f32", actual: "f64" });
    check(() => p.run("Classifier", { images: new Tensor("f32", [2, 783]) }), "invalid_argument", { input: "images" });
    check(() => p.run("Classifier", { images: new Tensor("f32", [784]) }), "invalid_argument", { input: "images" });
    check(() => p.run("Nope", { images: good }), "not_found");
    check(() => p.signature("Nope"), "not_found");
    // Still usable after errors.
    assert.deepEqual([...p.run("Classifier", { images: good }).probs.shape], [2, 10]);
  } finally {
    p.dispose();
  }
});

test("dispose: idempotent, use after dispose throws, Symbol.dispose", () => {
  const p = shrew.compile(MLP);
  p.dispose();
  p.dispose();
  assert.equal(p.disposed, true);
  for (const fn of [() => p.run("Classifier", {}), () => p.graphs, () => p.stats("Classifier"), () => p.params(),
    () => p.signature("Classifier"), () => p.dims, () => p.optStats, () => p.warnings, () => p.seed]) {
    assert.throws(fn, (e) => e instanceof ShrewRuntimeError && e.code === "disposed");
  }
  const q = shrew.compile(MLP);
  q[Symbol.dispose]();
  assert.equal(q.disposed, true);
  assert.throws(() => new Program(Symbol("x")), TypeError);
});

test("every member of a disposed program throws 'disposed' before it looks at its arguments", () => {
  const p = shrew.compile(MLP, { dims: { Batch: 1 } });
  p.dispose();
  const disposed = (e) => e instanceof ShrewRuntimeError && e.code === "disposed" && e.message === "this Program has been disposed";
  // Arguments each member would otherwise reject (TypeError, RangeError, invalid_argument).
  const bad = [5, { foo: 1 }, -1];
  const members = Object.getOwnPropertyNames(Program.prototype).filter((n) => !["constructor", "dispose", "disposed"].includes(n));
  assert.ok(members.length >= 25, members.join());  // all 25 today, none left out
  for (const name of members) {
    const getter = Object.getOwnPropertyDescriptor(Program.prototype, name).get !== undefined;
    assert.throws(() => (getter ? p[name] : p[name](...bad)), disposed, name);
  }
  // The calls that validated first, with the arguments that showed it.
  for (const call of [() => p.ir("Classifier", { foo: 1 }), () => p.ir("Classifier", { optimized: 1 }), () => p.signature(5),
    () => p.getParam(5), () => p.benchRun("Classifier", 0), () => p.setDims({ H: -1 }), () => p.loadParams("x"),
    () => p.run(5, null), () => p.setParam(5, null), () => p.stats(1), () => p.recompile(null)]) {
    assert.throws(call, disposed, String(call));
  }
  assert.equal(p.disposed, true);
  p.dispose();  // still idempotent
  p[Symbol.dispose]();
});

test("arguments of the wrong type are TypeError/RangeError naming the argument, and the program stays usable", () => {
  const p = shrew.compile(MLP, { dims: { Batch: 1 } });
  try {
    const x = { images: randomF32(784) };
    const want = p.run("Classifier", x).probs.data;
    for (const [call, kind, pattern] of [
      [() => p.run(123, x), TypeError, /graph must be a string, got number/],
      [() => p.interpret(null, x), TypeError, /graph must be a string, got null/],
      [() => p.run("Classifier", null), TypeError, /inputs must be an object/],
      [() => p.signature({}), TypeError, /graph must be a string, got object/],
      // The inputs where the graph's name goes: say the name comes first.
      [() => p.run(x), TypeError, /^graph must be a string, got an object: run\(\) takes the graph's name first, as in run\("Classifier", inputs\)$/],
      [() => p.interpret(x), TypeError, /interpret\(\) takes the graph's name first, as in interpret\("Classifier", inputs\)$/],
      [() => p.dump(undefined), TypeError, /graph must be a string/],
      [() => p.stats(1), TypeError, /graph must be a string/],
      [() => p.plan(1), TypeError, /graph must be a string/],
      [() => p.tape(1), TypeError, /graph must be a string/],
      [() => p.ir(1), TypeError, /graph must be a string/],
      [() => p.recompile(1), TypeError, /graph must be a string/],
      [() => p.getParam(5), TypeError, /parameter name must be a string/],
      [() => p.setParam(5, new Tensor("f32", [1], new Float32Array(1))), TypeError, /parameter name must be a string/],
      [() => p.benchRun("Classifier", 1.5), RangeError, /n must be a positive integer, got 1\.5/],
      [() => p.benchRun("Classifier", 0), RangeError, /got 0/],
      [() => p.benchRun("Classifier", "10"), RangeError, /got "10" \(a string\)$/],
      [() => shrew.compile(42), TypeError, /source must be a string or a Uint8Array, got number/],
    ]) {
      assert.throws(call, (e) => e instanceof kind && pattern.test(e.message), String(pattern));
    }
    assert.deepEqual(p.run("Classifier", x).probs.data, want);
    assert.ok(p.benchRun("Classifier", 3) > 0);
  } finally {
    p.dispose();
  }
});

// In a child process: before the fix this spun forever inside wasm, where no test timeout reaches.
test("setDims with a getter that disposes the program throws 'disposed'", () => {
  const script = `
    import { Shrew } from ${JSON.stringify(new URL("../dist/index.js", import.meta.url).href)};
    const shrew = await Shrew.load();
    const src = ${JSON.stringify(MLP)};
    const p = shrew.compile(src, { dims: { Batch: 1 } });
    try { p.setDims({ get Batch() { p.dispose(); return 2; } }); } catch (e) { console.log(e.code); }
    console.log(shrew.compile(src, { dims: { Batch: 1 } }).run("Classifier", { images: new Float32Array(784) }).probs.shape.join("x"));`;
  const r = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8", timeout: 60_000 });
  assert.equal(r.error, undefined, String(r.error));  // a hang ends in ETIMEDOUT
  assert.equal(r.stdout, "disposed\n1x10\n", r.stderr);
});

test("a getter or Proxy that disposes the program mid-call: the call throws 'disposed', the module stays usable", () => {
  const disposed = (e) => e instanceof ShrewRuntimeError && e.code === "disposed";
  const x = { images: randomF32(784) };
  const q = shrew.compile(MLP, { dims: { Batch: 1 } });
  const blob = q.saveParams();
  // Any access disposes (Uint8Array.from reads the iterator, the module indices).
  const trap = new Proxy(blob, { get(t, k) { q.dispose(); const v = Reflect.get(t, k); return typeof v === "function" ? v.bind(t) : v; } });
  assert.throws(() => q.loadParams(trap), disposed);
  const r = shrew.compile(MLP, { dims: { Batch: 1 } });
  const b2 = r.getParam("Classifier/b2");
  assert.throws(() => r.setParam("Classifier/b2", { dtype: "f32", get shape() { r.dispose(); return [10]; }, data: b2.data }), disposed);
  const s = shrew.compile(MLP, { dims: { Batch: 1 } });
  assert.throws(() => s.run("Classifier", { get images() { s.dispose(); return x.images; } }), disposed);
  assert.equal(shrew.aborted, false);
  const fresh = shrew.compile(MLP, { dims: { Batch: 1 } });
  assert.deepEqual([...fresh.run("Classifier", x).probs.shape], [1, 10]);
  fresh.loadParams(blob);
  fresh.dispose();
});

test("input data that does not fit its shape, or whose buffer was transferred or resized: errors naming the input, with expected and actual", () => {
  const p = shrew.compile("@graph G { input x: Tensor<[4], f32>; output y: x * 2.0; }");
  try {
    const t = new Tensor("f32", [4], new Float32Array([1, 2, 3, 4]));
    structuredClone(t.data.buffer, { transfer: [t.data.buffer] });  // as when posted to a worker
    const resizable = new ArrayBuffer(16, { maxByteLength: 32 });
    const grown = new Tensor("f32", [4], new Float32Array(resizable));  // length-tracking view
    resizable.resize(24);
    for (const [x, n] of [[t, 0], [grown, 6]]) {
      for (const exec of ["run", "interpret"]) {
        assert.throws(() => p[exec]("G", { x }), (e) => e instanceof ShrewRuntimeError && e.code === "invalid_argument" &&
          e.input === "x" && e.expected === "[4]" && e.actual === `[${n}]` &&
          e.message === `input 'x': expected [4] (4 elements), got a Float32Array of ${n} elements (its buffer was detached or resized)`);
      }
    }
    assert.throws(() => p.run("G", { x: { dtype: "f32", shape: [4], data: new Float32Array(3) } }),
      (e) => e instanceof RangeError && /^input 'x': shape \[4\] needs 4 elements, data has 3$/.test(e.message));
    assert.throws(() => p.run("G", { x: { dtype: "f32", shape: [4], data: new Int32Array(4) } }),
      (e) => e instanceof TypeError && /^input 'x': f32 tensor needs a Float32Array, got Int32Array$/.test(e.message));
    assert.deepEqual([...p.run("G", { x: new Float32Array([1, 2, 3, 4]) }).y.data], [2, 4, 6, 8]);
  } finally {
    p.dispose();
  }
});

test("a {dtype, shape, data} input with a bad field names the input and the field (it only said 'must be a Tensor, a {dtype, shape, data} object…')", () => {
  const p = shrew.compile("@graph G { input x: Tensor<[2], f32>; output y: x * 2.0; }");
  try {
    const data = new Float32Array([1.5, -2]);
    for (const [x, type, message] of [
      [{ dtype: "float32", shape: [2], data }, TypeError, "input 'x': unknown dtype 'float32' (expected one of f32, f64, i32, i64, u8, bool)"],
      [{ dtype: "f32", shape: 2, data }, TypeError, "input 'x': a shape must be an array of non-negative integers, got 2"],
      [{ dtype: "f32", shape: [2], data: [1.5, -2] }, TypeError, "input 'x': f32 tensor data must be a Float32Array, got an array"],
      // No data at all: not zeros, as the Tensor constructor would make.
      [{ dtype: "f32", shape: [2] }, TypeError, "input 'x': f32 tensor data must be a Float32Array, got undefined"],
      // A plain array: the exact way to make a tensor of it, for this input.
      [[1.5, -2], TypeError, "input 'x' must be a Tensor, a {dtype, shape, data} object or a typed array, got an array; " +
        "make one from the values: new Tensor(\"f32\", [2], Float32Array.from(values.flat(Infinity)))"],
    ]) {
      for (const exec of ["run", "interpret"]) assert.throws(() => p[exec]("G", { x }), { name: type.name, message });
    }
    assert.deepEqual([...p.run("G", { x: { dtype: "f32", shape: [2], data } }).y.data], [3, -4]);
  } finally {
    p.dispose();
  }
});

test("a plain array for an input names the typed array its dtype takes, and the hint's code makes a tensor that runs", () => {
  const p = shrew.compile("@graph G { input ids: Tensor<[B], i64>; input m: Tensor<[2, 2], bool>; output y: ids * 2; output n: m; }");
  try {
    const hint = (dtype, shape, ctor, extra = "") =>
      `; make one from the values: new Tensor("${dtype}", ${shape}, ${ctor}.from(values.flat(Infinity)${extra}))`;
    const m = new Tensor("bool", [2, 2], Uint8Array.of(1, 0, 0, 1));
    assert.throws(() => p.run("G", { ids: [1, 2], m }), { name: "TypeError", message:
      "input 'ids' must be a Tensor, a {dtype, shape, data} object or a typed array, got an array" + hint("i64", "shape", "BigInt64Array", ", BigInt") });
    assert.throws(() => p.run("G", { ids: new Tensor("i64", [1], new BigInt64Array(1)), m: [[1, 0], [0, 1]] }), { name: "TypeError", message:
      "input 'm' must be a Tensor, a {dtype, shape, data} object or a typed array, got an array" + hint("bool", "[2, 2]", "Uint8Array") });
    // Following the hints runs.
    const values = [[1, 2], [3]];
    const out = p.run("G", { ids: new Tensor("i64", [3], BigInt64Array.from(values.flat(Infinity), BigInt)),
      m: new Tensor("bool", [2, 2], Uint8Array.from([[1, 0], [0, 1]].flat(Infinity))) });
    assert.deepEqual([...out.y.data], [2n, 4n, 6n]);
    assert.deepEqual([...out.n.data], [1, 0, 0, 1]);
  } finally {
    p.dispose();
  }
});

test("an input or destination given as undefined is left out, as options are: an optional input runs without it, a required one is missing", () => {
  const p = shrew.compile("@graph G { input x: Tensor<[2], f32>; input m: Tensor<[2], f32>?; output y: x * 2.0; output z: x + 1.0; }");
  try {
    const x = new Float32Array([1.5, -2]);
    for (const exec of ["run", "interpret"]) {
      const out = p[exec]("G", { x, m: undefined }, { outputs: { y: undefined } });
      assert.deepEqual([[...out.y.data], [...out.z.data]], [[3, -4], [2.5, -1]]);
      assert.throws(() => p[exec]("G", { x: undefined, m: undefined }), (e) => e instanceof ShrewRuntimeError && e.code === "invalid_argument" &&
        e.input === "x" && e.message === "missing input 'x' for graph 'G' (expected Tensor<[2], f32>)");
      // A name that is no input or output is still an error, whatever its value.
      assert.throws(() => p[exec]("G", { x, q: undefined }), (e) => e instanceof ShrewRuntimeError && /no input named 'q'/.test(e.message));
      assert.throws(() => p[exec]("G", { x }, { outputs: { w: undefined } }), (e) => e instanceof ShrewRuntimeError && e.output === "w");
    }
  } finally {
    p.dispose();
  }
});

test("inputs or outputs destinations as a Map are errors: its entries are no own keys (a Map of destinations was ignored, each output a fresh array)", () => {
  const p = shrew.compile("@graph G { input x: Tensor<[2], f32>; output y: x * 2.0; }");
  try {
    const x = new Float32Array([1.5, -2]);
    const y = new Float32Array(2);
    for (const exec of ["run", "interpret"]) {
      assert.throws(() => p[exec]("G", { x }, { outputs: new Map([["y", y]]) }), (e) => e instanceof ShrewRuntimeError &&
        e.code === "invalid_argument" && e.message === "outputs must be an object {name: Tensor or typed array}, got a Map");
      assert.deepEqual([...y], [0, 0]);
      assert.throws(() => p[exec]("G", new Map([["x", x]])), { name: "TypeError", message: "inputs must be an object {name: tensor}, got a Map" });
      assert.throws(() => p[exec]("G", [x]), { name: "TypeError", message: "inputs must be an object {name: tensor}, got an array" });
      assert.equal(p[exec]("G", Object.fromEntries(new Map([["x", x]])), { outputs: Object.fromEntries(new Map([["y", y]])) }).y.data, y);
      assert.deepEqual([...y], [3, -4]);
      y.fill(0);
    }
  } finally {
    p.dispose();
  }
});

test("metadata, optStats and warnings are frozen like dims and signatures: a caller's change cannot show in later reads", () => {
  const src = `@model { name: "M"; }\n@config { H: 2; sizes: [1, 2]; }\n@graph G { input x: Tensor<[H], f32>; node unused { op: x + 1.0; }; output y: x * 2.0; }`;
  const p = shrew.compile(src);
  try {
    for (const read of [() => p, () => (p.setDims({}), p)]) {
      const q = read();
      assert.throws(() => { q.metadata.config.H = 99; }, TypeError);
      assert.throws(() => { q.metadata.config.sizes.push(3); }, TypeError);
      assert.throws(() => { q.metadata.model.name = "N"; }, TypeError);
      assert.throws(() => { q.optStats.rounds = -1; }, TypeError);
      assert.throws(() => { q.warnings.push({}); }, TypeError);
      assert.deepEqual([q.metadata.config.H, q.metadata.config.sizes, q.metadata.model.name], [2, [1, 2], "M"]);
      assert.ok(q.optStats.rounds >= 0);
    }
    assert.deepEqual([...p.run("G", { x: new Float32Array([1, -2]) }).y.data], [2, -4]);
  } finally {
    p.dispose();
  }
});

test("source text: a lone surrogate is U+FFFD (the next character survives); bytes compile as they are", () => {
  const p = shrew.compile("@graph G {\n  input x: Tensor<[2], f32>;  // \uD800\n  output y: x * 2.0;\n}\n", { filename: "a\uDC00.sw" });
  try {
    assert.deepEqual(p.signature("G").outputs.map((o) => o.name), ["y"]);
  } finally {
    p.dispose();
  }
  // Columns count bytes: the invalid byte 0xFF is one, not the three of U+FFFD.
  const bytes = new TextEncoder().encode("@graph G {\n  input x: Tensor<[2], f32>;\n  output y: /*#*/ zz;\n}\n");
  bytes[bytes.indexOf(0x23)] = 0xff;
  assert.throws(() => shrew.compile(bytes, { filename: "b.sw" }), (e) => e instanceof ShrewCompileError &&
    e.diagnostics[0].line === 3 && e.diagnostics[0].column === 19 && /b\.sw:3:19/.test(e.diagnostics[0].rendered));
  const q = shrew.compile(new TextEncoder().encode(MLP));
  assert.deepEqual([...q.graphs], ["Classifier"]);
  q.dispose();
});

test("an @assert over the run's dims fails the run with its message; the program stays usable", () => {
  const p = shrew.compile(`@graph G {
  input x: Tensor<[N, 2], f32>;
  @assert N >= 2, "need two rows";
  output y: x + 1.0;
}`);
  try {
    assert.throws(() => p.run("G", { x: new Tensor("f32", [1, 2], new Float32Array(2)) }),
      (e) => e instanceof ShrewRuntimeError && e.code === "failed_precondition" &&
        e.message.includes("graph 'G': assertion failed: need two rows (N >= 2, with N = 1)"));
    assert.throws(() => p.interpret("G", { x: new Tensor("f32", [1, 2], new Float32Array(2)) }), /need two rows/);
    // The @assert's position, for tools (the playground marks it).
    for (const exec of ["run", "interpret"]) {
      assert.throws(() => p[exec]("G", { x: new Tensor("f32", [1, 2], new Float32Array(2)) }),
        (e) => e.span?.line === 3 && e.span.column === 3 && e.span.length > 0);
    }
    // An error about the caller's input has none.
    assert.throws(() => p.run("G", { x: new Tensor("f32", [2, 3], new Float32Array(6)) }),
      (e) => e instanceof ShrewRuntimeError && e.input === "x" && !("span" in e));
    assert.deepEqual([...p.run("G", { x: new Tensor("f32", [2, 2], new Float32Array(4)) }).y.data], [1, 1, 1, 1]);
  } finally {
    p.dispose();
  }
});
