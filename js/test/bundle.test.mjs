// The package entry (js/package.json "exports") is the single-file bundle
// dist/shrew.min.js: it must export what dist/index.js exports and behave the
// same — same outputs bit for bit, same error classes and codes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import * as unbundled from "../dist/index.js";

const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
const entry = pkg.exports["."].import;
const bundled = await import(new URL(`../${entry}`, import.meta.url).href);

const SOURCE = `@graph Net {
  input x: Tensor<[Batch, 3], f32>;
  param w: Tensor<[3, 4], f32> { init: "xavier_uniform"; };
  output y: softmax(tanh(matmul(x, w)), dim: -1);
}`;

test("the package entry is the bundle and exports what index.js exports", () => {
  assert.equal(entry, "./dist/shrew.min.js");
  assert.equal(pkg.main, entry);
  assert.deepEqual(Object.keys(bundled).sort(), Object.keys(unbundled).sort());
});

test("the bundle compiles and runs like index.js, bit for bit", async () => {
  const x = new Float32Array([0.5, -1, 2, 0.25, 3, -0.75]);
  const results = [];
  for (const mod of [bundled, unbundled]) {
    const shrew = await mod.Shrew.load();
    const program = shrew.compile(SOURCE, { seed: 11, dims: { Batch: 2 } });
    const y = program.run("Net", { x }).y;
    assert.ok(y instanceof mod.Tensor);
    results.push({ shape: y.shape, data: Array.from(y.data), checksum: program.paramsChecksum() });
    program.dispose();
  }
  assert.deepEqual(results[0], results[1]);
  assert.deepEqual(results[0].shape, [2, 4]);
});

test("the bundle's errors are its own classes, with codes and locations", async () => {
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

test("the bundle's classes keep their names (what Node prints for an uncaught error or a logged tensor)", async () => {
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
