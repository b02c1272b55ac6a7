// Module loading and the abort guard: a wasm trap marks the instance dead.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Shrew, ShrewRuntimeError, Tensor } from "../dist/index.js";
import { instantiate, instantiateDefault } from "../dist/module.js";

const wasm = readFileSync(new URL("../dist/wasm/shrew.wasm", import.meta.url));

test("load: default instance is shared; wasmBinary gives a fresh one", async () => {
  const a = await Shrew.load(), b = await Shrew.load();
  assert.equal(a.heapStats().heapBytes, b.heapStats().heapBytes);
  const c = await Shrew.load({ wasmBinary: wasm });
  assert.equal(c.simd128, true);
  assert.equal(c.aborted, false);
});

test("wasmBinary as a whole Uint8Array, a view inside a larger buffer or an ArrayBuffer: each loads and runs, the caller's bytes untouched", async () => {
  const whole = new Uint8Array(wasm);                        // its own buffer (passed on as that buffer)
  const padded = new Uint8Array(wasm.length + 24);
  padded.set(wasm, 16);
  const inside = padded.subarray(16, 16 + wasm.length);      // offset 16 of a larger buffer
  const buffer = whole.slice().buffer;
  const src = "@graph G {\n  input x: Tensor<[3], f32>;\n  output y: x * x + 1.0;\n}";
  for (const [what, binary] of [["whole", whole], ["inside", inside], ["buffer", buffer]]) {
    const before = new Uint8Array(binary instanceof ArrayBuffer ? binary : binary.buffer).slice();
    const shrew = await Shrew.load({ wasmBinary: binary });
    const y = shrew.compile(src).run("G", { x: new Float32Array([1, -2, 0.5]) }).y.data;
    assert.deepEqual([...y], [2, 5, 1.25], what);
    assert.deepEqual(new Uint8Array(binary instanceof ArrayBuffer ? binary : binary.buffer), before, `${what}: bytes unchanged`);
  }
  assert.deepEqual(padded.subarray(0, 16), new Uint8Array(16));
});

test("in Node a file: wasmUrl (URL or string) or a path is read from disk; a missing file names it (Node's fetch said only 'fetch failed')", async () => {
  const url = new URL("../dist/wasm/shrew.wasm", import.meta.url);
  for (const wasmUrl of [url, url.href]) {
    const shrew = await Shrew.load({ wasmUrl });
    assert.deepEqual([...shrew.compile("@graph G { input x: Tensor<[2], f32>; output y: x * 2.0; }").run("G", { x: new Float32Array([1.5, -3]) }).y.data], [3, -6]);
  }
  // A path (absolute, or relative to the working directory): fetch took it for a URL ("Failed to parse URL").
  const path = fileURLToPath(url);
  for (const wasmUrl of [path, relative(process.cwd(), path), `./${relative(process.cwd(), path)}`]) {
    const shrew = await Shrew.load({ wasmUrl });
    assert.deepEqual([...shrew.compile("@graph G { input x: Tensor<[1], f32>; output y: x + 1.0; }").run("G", { x: new Float32Array([1]) }).y.data], [2], wasmUrl);
  }
  await assert.rejects(Shrew.load({ wasmUrl: "no/such/shrew.wasm" }), (e) => e instanceof ShrewRuntimeError && e.code === "invalid_argument" &&
    e.message.startsWith(`cannot read the Shrew wasm module from ${pathToFileURL("no/such/shrew.wasm").href}: ENOENT`));
  const missing = new URL("../dist/wasm/no-such.wasm", import.meta.url);
  await assert.rejects(Shrew.load({ wasmUrl: missing }), (e) => e instanceof ShrewRuntimeError && e.code === "invalid_argument" &&
    e.message.startsWith(`cannot read the Shrew wasm module from ${missing.href}: ENOENT`));
});

test("a WebAssembly.RuntimeError marks the module unusable; later calls throw a clear error", async () => {
  const state = await instantiate({ wasmBinary: wasm });
  assert.throws(() => state.call(() => { throw new WebAssembly.RuntimeError("unreachable"); }),
    (e) => e instanceof ShrewRuntimeError && e.code === "aborted" && /unreachable/.test(e.message));
  assert.equal(typeof state.dead, "string");
  assert.throws(() => state.call((raw) => raw.simd128()),
    (e) => e instanceof ShrewRuntimeError && e.code === "aborted" && /unusable/.test(e.message));
  // Ordinary JS errors pass through and leave the module alive.
  const fresh = await instantiate({ wasmBinary: wasm });
  assert.throws(() => fresh.call(() => { throw new TypeError("x"); }), TypeError);
  assert.equal(fresh.dead, undefined);
});

test("an allocation that fails in a container aborts with that reason, not only 'Aborted()'", async () => {
  const state = await instantiate({ wasmBinary: wasm });
  const raw = state.raw;
  // Every byte malloc can give, taken (the memory grows to its 2 GB maximum).
  for (let size = 1 << 28; size >= 1; size >>= 1) while (raw._malloc(size) !== 0);
  assert.throws(() => state.call((r) => new r.ProgramHandle()),
    (e) => e instanceof ShrewRuntimeError && e.code === "aborted" &&
      /^the Shrew wasm module aborted: out of wasm memory \(an allocation of \d+ bytes failed\); it is unusable from now on$/.test(e.message));
  assert.throws(() => state.call((r) => r.simd128()),
    (e) => e instanceof ShrewRuntimeError && /unusable after an earlier abort \(out of wasm memory/.test(e.message));
});

test("after the default instance aborts, load() re-creates it once and shares the new one", async () => {
  const dead = await instantiateDefault();
  assert.throws(() => dead.call(() => { throw new WebAssembly.RuntimeError("unreachable"); }), ShrewRuntimeError);
  const [a, b] = await Promise.all([Shrew.load(), Shrew.load()]);
  const c = await Shrew.load();
  const state = await instantiateDefault();
  assert.notEqual(state, dead);
  assert.equal(await instantiateDefault(), state);
  assert.ok(!a.aborted && !b.aborted && !c.aborted);
  // One instance: what a program holds shows in the others' heap.
  const before = c.heapStats().usedBytes;
  const p = a.compile("@graph G {\n  input x: Tensor<[2], f32>;\n  param w: Tensor<[64, 64], f32> { init: \"zeros\"; };\n  output y: x;\n}");
  assert.ok(b.heapStats().usedBytes > before && c.heapStats().usedBytes > before);
  p.dispose();
});

test("once the module aborted, Shrew and Program members throw 'aborted' before they look at their arguments", async () => {
  const shrew = await Shrew.load();
  const state = await instantiateDefault();  // the module `shrew` uses
  const p = shrew.compile("@graph G {\n  input x: Tensor<[2], f32>;\n  output y: x;\n}");
  assert.throws(() => state.call(() => { throw new WebAssembly.RuntimeError("unreachable"); }), ShrewRuntimeError);
  assert.equal(shrew.aborted, true);
  const aborted = (e) => e instanceof ShrewRuntimeError && e.code === "aborted" && /unusable after an earlier abort \(unreachable\)/.test(e.message);
  for (const call of [() => shrew.compile(42), () => shrew.compile("", { foo: 1 }), () => shrew.loadBundle("x"),
    () => shrew.dense("1", 1, 1, null, null), () => shrew.heapStats(), () => shrew.simd128,
    () => p.signature(5), () => p.run(5, null), () => p.ir("G", { optimized: 1 }), () => p.benchRun("G", 0),
    () => p.loadParams("x"), () => p.graphs, () => p.dims]) {
    assert.throws(call, aborted, String(call));
  }
  p.dispose();  // nothing to free in a dead module, and no error
  assert.throws(() => p.signature(5), (e) => e instanceof ShrewRuntimeError && e.code === "disposed");
  assert.equal((await Shrew.load()).aborted, false);  // the default module is re-created
});

test("new Shrew() is refused saying how to get one (it made an object every member of which failed)", () => {
  assert.throws(() => new Shrew(), { name: "TypeError", message: "Shrew cannot be constructed directly; use await Shrew.load()" });
  assert.throws(() => new Shrew({}), { name: "TypeError", message: "Shrew cannot be constructed directly; use await Shrew.load()" });
});

test("a wasmBinary that is not the module is a ShrewRuntimeError, not an abort printed to stderr", async () => {
  for (const [binary, pattern] of [
    [new Uint8Array([0, 1, 2]), /cannot instantiate the Shrew wasm module from wasmBinary: CompileError/],
    // A valid module, but not Shrew's (the smallest one: magic and version, no sections).
    [new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]),
      /cannot instantiate the Shrew wasm module from wasmBinary: its exports are not those of this package's shrew.wasm \(another module, or another build\)$/],
    ["abc", /wasmBinary must be an ArrayBuffer or a Uint8Array, got "abc" \(a string\)$/],
  ]) {
    await assert.rejects(Shrew.load({ wasmBinary: binary }),
      (e) => e instanceof ShrewRuntimeError && e.code === "invalid_argument" && pattern.test(e.message));
  }
  const warn = console.warn;
  const printed = [];
  console.warn = (...a) => printed.push(a.join(" "));
  try {
    await assert.rejects(Shrew.load({ wasmBinary: new Uint8Array(8) }), ShrewRuntimeError);
  } finally {
    console.warn = warn;
  }
  assert.deepEqual(printed, []);
});

test("an http(s) wasmUrl: fetched and checked; octet-stream loads, a 404, a refused connection and a foreign module each say what happened", async () => {
  const { createServer } = await import("node:http");
  const server = createServer((req, res) => {
    if (req.url === "/missing.wasm") {
      res.writeHead(404, { "content-type": "text/plain" });
      res.end("not found");
    } else if (req.url === "/html.wasm") {
      res.writeHead(200, { "content-type": "application/wasm" });
      res.end("<html>");
    } else {
      res.writeHead(200, { "content-type": req.url === "/typed.wasm" ? "application/wasm" : "application/octet-stream" });
      res.end(wasm);
    }
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${server.address().port}`;
  const warn = console.warn;
  const printed = [];
  console.warn = (...a) => printed.push(a.join(" "));
  try {
    // application/wasm compiles while streaming; any other type (what many
    // servers send) from the bytes, where the glue fell back to require("fs").
    for (const path of ["/typed.wasm", "/octet.wasm"]) {
      const shrew = await Shrew.load({ wasmUrl: base + path });
      assert.deepEqual([...shrew.compile("@graph G { input x: Tensor<[2], f32>; output y: x * 2.0; }").run("G", { x: new Float32Array([1, 2]) }).y.data], [2, 4]);
    }
    const rejects = (wasmUrl, pattern) => assert.rejects(Shrew.load({ wasmUrl }),
      (e) => e instanceof ShrewRuntimeError && e.code === "invalid_argument" && pattern.test(e.message), wasmUrl);
    await rejects(`${base}/missing.wasm`, /^cannot fetch the Shrew wasm module from http:\/\/127\.0\.0\.1:\d+\/missing\.wasm: HTTP 404 Not Found$/);
    // A failed connection was "its exports are not those of this package's shrew.wasm".
    await rejects("http://127.0.0.1:9/refused.wasm", /^cannot fetch the Shrew wasm module from http:\/\/127\.0\.0\.1:9\/refused\.wasm: fetch failed \(a network error/);
    await rejects(`${base}/html.wasm`, /^cannot instantiate the Shrew wasm module from .*html\.wasm: .*expected magic word/);
  } finally {
    console.warn = warn;
    server.close();
  }
  assert.deepEqual(printed, []);  // the glue's "failed to asynchronously prepare wasm" and "Aborted(…)" lines
});

// A runtime with Node's `process` that imported the package over http(s)
// (Deno from a CDN, Node's network imports): the default shrew.wasm is next
// to the module, on that server. It was read "from disk" ("The URL must be
// of scheme file").
test("the package imported over http by a Node-like runtime fetches its default shrew.wasm from there", async () => {
  const { createServer } = await import("node:http");
  const { spawn } = await import("node:child_process");
  const dist = new URL("../dist/", import.meta.url);
  const server = createServer((req, res) => {
    try {
      const body = readFileSync(new URL(`.${req.url}`, dist));
      res.writeHead(200, { "content-type": req.url.endsWith(".wasm") ? "application/wasm" : "text/javascript" });
      res.end(body);
    } catch {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const script = `const { Shrew } = await import("http://127.0.0.1:${server.address().port}/shrew.min.js");
const shrew = await Shrew.load();
const y = shrew.compile("@graph G { input x: Tensor<[2], f32>; output y: x * 2.0; }").run("G", { x: new Float32Array([1, 2]) }).y;
console.log(Array.from(y.data).join(","));`;
    const child = spawn(process.execPath, ["--experimental-network-imports", "--no-warnings", "--input-type=module", "-e", script],
      { stdio: ["ignore", "pipe", "pipe"] });
    let out = "", err = "";
    child.stdout.on("data", (d) => { out += d; });
    child.stderr.on("data", (d) => { err += d; });
    const status = await new Promise((resolve) => child.on("close", resolve));
    assert.equal(status, 0, err);
    assert.equal(out, "2,4\n");
  } finally {
    server.close();
  }
});

test("bytes and arrays from another realm (node:vm, a Jest environment) are taken like this realm's", async () => {
  const vm = await import("node:vm");
  const foreign = vm.runInNewContext("(b) => new Uint8Array(b)");
  const foreignBuffer = vm.runInNewContext("(b) => { const a = new ArrayBuffer(b.length); new Uint8Array(a).set(b); return a; }");
  for (const wasmBinary of [foreign(wasm), foreignBuffer(wasm)]) assert.equal((await Shrew.load({ wasmBinary })).simd128, true);
  const shrew = await Shrew.load();
  const src = "@graph G { input x: Tensor<[2], f32>; param w: Tensor<[2], f32>; output y: x * w; }";
  const p = shrew.compile(src);
  try {
    p.setParam("G/w", new Tensor("f32", [2], vm.runInNewContext("new Float32Array([3, 4])")));
    const want = [...p.run("G", { x: new Float32Array([1, 2]) }).y.data];
    const x = new Float32Array([1, 2]);
    assert.deepEqual([...shrew.loadBundle(foreign(p.saveBundle())).run("G", { x }).y.data], want);
    assert.deepEqual([...shrew.compile(src, { params: foreign(p.saveParams()) }).run("G", { x }).y.data], want);
    assert.deepEqual(shrew.compile(foreign(new TextEncoder().encode(src))).graphs, ["G"]);
    const q = shrew.compile(src);
    q.loadParams(foreign(p.saveParams()));
    assert.deepEqual([...q.run("G", { x }).y.data], want);
    const dense = shrew.dense(1, 2, 1, vm.runInNewContext("new Float32Array([1, 2])"), new Float32Array([1, 1]));
    assert.deepEqual([...dense], [3]);
    // Still refused: another typed array class, from any realm.
    assert.throws(() => shrew.loadBundle(vm.runInNewContext("new Float32Array(4)")), /a bundle must be a Uint8Array/);
  } finally {
    p.dispose();
  }
});
