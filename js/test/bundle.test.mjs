// The package entry (js/package.json "exports") is a single-file bundle:
// dist/shrew.node.js in Node, the minified dist/shrew.min.js elsewhere. Each
// must export what dist/index.js exports and behave the same — same outputs
// bit for bit, same error classes and codes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import * as unbundled from "../dist/index.js";

const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
const entries = { node: pkg.exports["."].node, import: pkg.exports["."].import };
const bundles = {};
for (const [condition, file] of Object.entries(entries)) bundles[condition] = await import(new URL(`../${file}`, import.meta.url).href);
const bundled = bundles.import;

/** Runs `script` in a child Node whose working directory is the package, so "shrew-wasm" names it. */
const nodeInPackage = (inputType, script) => spawnSync(process.execPath, [`--input-type=${inputType}`, "-e", script],
  { cwd: fileURLToPath(new URL("..", import.meta.url)), encoding: "utf8" });

const SOURCE = `@graph Net {
  input x: Tensor<[Batch, 3], f32>;
  param w: Tensor<[3, 4], f32> { init: "xavier_uniform"; };
  output y: softmax(tanh(matmul(x, w)), dim: -1);
}`;

test("the package entry is a bundle per platform, each exporting what index.js exports", () => {
  assert.deepEqual(entries, { node: "./dist/shrew.node.js", import: "./dist/shrew.min.js" });
  assert.equal(pkg.main, entries.import);
  for (const mod of Object.values(bundles)) assert.deepEqual(Object.keys(mod).sort(), Object.keys(unbundled).sort());
  // Node takes the "node" condition: importing the package by name from inside it gives that bundle.
  const child = nodeInPackage("module",
    'import * as m from "shrew-wasm"; console.log(import.meta.resolve("shrew-wasm"), typeof m.Shrew.load);');
  assert.equal(child.status, 0, child.stderr);
  assert.match(child.stdout, /\/dist\/shrew\.node\.js function\n$/);
});

test("the bundle compiles and runs like index.js, bit for bit", async () => {
  const x = new Float32Array([0.5, -1, 2, 0.25, 3, -0.75]);
  const results = [];
  for (const mod of [...Object.values(bundles), unbundled]) {
    const shrew = await mod.Shrew.load();
    const program = shrew.compile(SOURCE, { seed: 11, dims: { Batch: 2 } });
    const y = program.run("Net", { x }).y;
    assert.ok(y instanceof mod.Tensor);
    results.push({ shape: y.shape, data: Array.from(y.data), checksum: program.paramsChecksum() });
    program.dispose();
  }
  assert.deepEqual(results[0], results[2]);
  assert.deepEqual(results[1], results[2]);
  assert.deepEqual(results[0].shape, [2, 4]);
});

for (const [condition, bundled] of Object.entries(bundles)) test(`the ${condition} bundle's errors are its own classes, with codes and locations`, async () => {
  const shrew = await bundled.Shrew.load();
  assert.throws(() => shrew.compile("@graph G {\n  input x: Tensor<[2], f32>;\n  output y: relu(z);\n}", { filename: "bad.sw" }),
    (e) => e instanceof bundled.ShrewCompileError && e.name === "ShrewCompileError" && /bad\.sw:3:\d+/.test(e.message));
  const program = shrew.compile(SOURCE, { dims: { Batch: 2 } });
  assert.throws(() => program.run("Net", { x: new bundled.Tensor("f32", [2, 5], new Float32Array(10)) }),
    (e) => e instanceof bundled.ShrewRuntimeError && e.code === "invalid_argument" && e.input === "x");
  // Still usable after the errors.
  assert.deepEqual(program.run("Net", { x: new Float32Array(6) }).y.shape, [2, 4]);
  program.dispose();
});

for (const [condition, bundled] of Object.entries(bundles)) test(`the ${condition} bundle's classes keep their names (what Node prints for an uncaught error or a logged tensor)`, async () => {
  const { inspect } = await import("node:util");
  for (const name of ["Shrew", "Program", "Tensor", "ShrewCompileError", "ShrewRuntimeError", "NpyError", "Rng"]) {
    assert.equal(bundled[name].name, name);
  }
  const shrew = await bundled.Shrew.load();
  let error;
  try { shrew.compile("@graph G {", { filename: "cut.sw" }); } catch (e) { error = e; }
  assert.match(inspect(error).split("\n")[0], /^ShrewCompileError: cut\.sw:1:11: error\[E020\]/);
  assert.match(inspect(new bundled.Tensor("f32", [1], new Float32Array(1))), /^Tensor \{/);
});

test("a runtime error lists only the details it has", async () => {
  const shrew = await bundled.Shrew.load();
  const program = shrew.compile(SOURCE, { dims: { Batch: 2 } });
  let error;
  try { program.run("Net", { x: new Float32Array(5) }); } catch (e) { error = e; }
  assert.ok(error instanceof bundled.ShrewRuntimeError, String(error));
  assert.deepEqual(["input", "output", "expected", "actual"].filter((k) => Object.hasOwn(error, k)), ["input", "expected", "actual"]);
  assert.equal(error.output, undefined);
  const { inspect } = await import("node:util");
  assert.doesNotMatch(inspect(error), /undefined/);
  program.dispose();
});

// Node 20.19 and later load an ES module from require() when it has no
// top-level await; the "node" condition is what require() resolves too.
test("CommonJS code can require() the package (Node >= 20.19)", () => {
  const script = `const { Shrew, Tensor } = require("shrew-wasm");
Shrew.load().then((shrew) => {
  const p = shrew.compile("@graph G { input x: Tensor<[3], f32>; output y: relu(x); }");
  const y = p.run("G", { x: new Float32Array([-1, 2, -3]) }).y;
  console.log(y instanceof Tensor, Array.from(y.data).join(","), require.resolve("shrew-wasm"));
});`;
  const child = nodeInPackage("commonjs", script);
  assert.equal(child.status, 0, child.stderr);
  assert.match(child.stdout, /^true 0,2,0 .*\/dist\/shrew\.node\.js\n$/);
});

// Node prints an uncaught error with the source line it was thrown from: in
// the minified bundle that line is the whole 50 KB file.
test("an uncaught error in a Node script prints its message and short source lines", () => {
  const script = `import { Shrew } from "shrew-wasm";
const shrew = await Shrew.load();
shrew.compile("@graph G {\\n  input x: Tensor<[2], f32>;\\n  output y: relu(zz);\\n}", { filename: "bad.sw" });`;
  const child = nodeInPackage("module", script);
  assert.equal(child.status, 1);
  assert.match(child.stderr, /^ShrewCompileError: bad\.sw:3:18: error\[E040\]: undefined name 'zz'$/m);
  assert.match(child.stderr, /^ {4}output y: relu\(zz\);$/m);
  assert.match(child.stderr, /at Shrew\.compile \(file:.*\/dist\/shrew\.node\.js:\d+:\d+\)/);
  const longest = Math.max(...child.stderr.split("\n").map((l) => l.length));
  assert.ok(longest < 200, `longest stderr line: ${longest} characters`);
});

// The browser bundle has no `node:` import (web bundlers warn about them;
// web/test/vite-app.test.mjs), yet still reads shrew.wasm from disk when
// something runs it in Node (a test runner's browser-like environment, as
// Jest with jsdom): through process.getBuiltinModule, or with a clear error
// where Node lacks it.
test("the browser bundle in Node reads shrew.wasm from disk, by default and from a path; without getBuiltinModule it says what to do", () => {
  const min = new URL("../dist/shrew.min.js", import.meta.url).href;
  const wasm = fileURLToPath(new URL("../dist/wasm/shrew.wasm", import.meta.url));
  const script = (prelude) => `${prelude}
const { Shrew } = await import(${JSON.stringify(min)});
for (const options of [undefined, { wasmUrl: ${JSON.stringify(wasm)} }]) {
  try {
    const shrew = await Shrew.load(options);
    const p = shrew.compile("@graph G { input x: Tensor<[3], f32>; output y: relu(x); }");
    console.log(Array.from(p.run("G", { x: new Float32Array([-1, 2, -3]) }).y.data).join(","));
  } catch (e) {
    console.log(e.name, e.code, e.message);
  }
}`;
  const child = nodeInPackage("module", script(""));
  assert.equal(child.status, 0, child.stderr);
  assert.equal(child.stdout, "0,2,0\n0,2,0\n");
  const old = nodeInPackage("module", script("delete process.getBuiltinModule;"));
  assert.equal(old.status, 0, old.stderr);
  const lines = old.stdout.trim().split("\n");
  assert.equal(lines.length, 2, old.stdout);
  assert.match(lines[0], /^ShrewRuntimeError internal cannot read the Shrew wasm module from file:.*\/dist\/wasm\/shrew\.wasm: this is the package's browser build .* Node 20\.16 .*"node" condition.*wasmBinary/);
  assert.match(lines[1], /^ShrewRuntimeError invalid_argument cannot read the Shrew wasm module from .*shrew\.wasm: this is the package's browser build/);
});

// The glue's unused default wasm URL is replaced when bundling (a web
// bundler warns about it); a shorter text moved every later column of the
// glue's one long line, so its functions mapped 40 columns off.
test("the bundles' source maps lead the glue's functions to their own text", async () => {
  const { SourceMap } = await import("node:module");
  const code = readFileSync(new URL("../dist/shrew.node.js", import.meta.url), "utf8");
  const map = new SourceMap(JSON.parse(readFileSync(new URL("../dist/shrew.node.js.map", import.meta.url), "utf8")));
  const lines = code.split("\n");
  for (const fn of ["function getBinary(file)", "function createWasm()", "function abort(what)"]) {
    const line = lines.findIndex((l) => l.includes(fn));
    assert.ok(line >= 0, fn);
    const entry = map.findEntry(line, lines[line].indexOf(fn));
    const source = map.payload.sourcesContent[map.payload.sources.indexOf(entry.originalSource)] ??
      map.payload.sourcesContent.find((_, i) => entry.originalSource.endsWith(map.payload.sources[i]));
    assert.equal(source.split("\n")[entry.originalLine].slice(entry.originalColumn, entry.originalColumn + fn.length), fn);
  }
});
