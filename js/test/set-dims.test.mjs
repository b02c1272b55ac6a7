// program.setDims: changing configured dims rebuilds the program from the
// same source, keeps parameters whose shape did not change, gives reshaped
// ones a fresh compile's values (then loadParams can fill them), keeps the
// lean run path correct, and leaves the program unchanged on every error.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Shrew, Tensor, ShrewRuntimeError } from "../dist/index.js";
import { readFileSync } from "node:fs";
import { ROOT, allClose } from "./helpers.mjs";

const shrew = await Shrew.load();
const SRC = readFileSync(`${ROOT}tests/testdata/api/reconfigure_net.sw`, "utf8");
const x = (n, t, d, k = 0.37) => new Tensor("f32", [n, t, d], Float32Array.from({ length: n * t * d }, (_, i) => Math.sin(i * k)));
const bytes = (t) => new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength);
// Disposed when the test ends (Node 20 has no `using`).
const track = (t, program) => (t.after(() => program.dispose()), program);
const fill = (shape, v) => new Tensor("f32", shape, new Float32Array(shape.reduce((a, b) => a * b, 1)).fill(v));

test("setDims carries unchanged params, re-initialises reshaped ones like a fresh compile", (t) => {
  const p = track(t, shrew.compile(SRC, { dims: { D: 8, H: 4 }, seed: 11 }));
  p.setParam("Net/b", fill([4], 0.25));
  p.run("Net", { x: x(2, 3, 8) });  // the lean path now has a prepared binding of the old program
  const r = p.setDims({ D: 16 });
  assert.deepEqual(r.carried, ["Net/b", "Net/s"]);
  assert.ok(r.initialized.includes("Net/w"));
  assert.deepEqual(p.dims, { D: 16, H: 4 });
  assert.deepEqual([...p.getParam("Net/w").shape], [16, 4]);
  assert.deepEqual([...p.getParam("Net/b").data], [0.25, 0.25, 0.25, 0.25]);
  assert.deepEqual(p.signature("Net").inputs[0].shape, ["N", "T", 16]);

  const fresh = track(t, shrew.compile(SRC, { dims: { D: 16, H: 4 }, seed: 11 }));
  for (const key of r.initialized) assert.deepEqual(bytes(p.getParam(key)), bytes(fresh.getParam(key)), key);
  fresh.setParam("Net/b", fill([4], 0.25));
  for (const shape of [[2, 5, 16], [1, 2, 16], [2, 5, 16]]) {
    const got = p.run("Net", { x: x(...shape) });
    assert.deepEqual(bytes(got.y), bytes(fresh.run("Net", { x: x(...shape) }).y));
    allClose(assert, got.y, p.interpret("Net", { x: x(...shape) }).y, 1e-5, 1e-6, "tape vs interpreter");
  }
  assert.throws(() => p.run("Net", { x: x(2, 3, 8) }),
    (e) => e instanceof ShrewRuntimeError && e.input === "x" && /16/.test(e.message));
});

test("a wider model's saved params load after setDims", (t) => {
  const wide = track(t, shrew.compile(SRC, { dims: { D: 16, H: 6 }, seed: 1 }));
  const narrow = track(t, shrew.compile(SRC, { dims: { D: 8, H: 6 }, seed: 2 }));
  const blob = wide.saveParams();
  assert.throws(() => narrow.loadParams(blob), ShrewRuntimeError);
  narrow.setDims({ D: 16 });
  narrow.loadParams(blob);
  assert.equal(narrow.paramsChecksum(), wide.paramsChecksum());
  assert.deepEqual(bytes(narrow.run("Net", { x: x(2, 4, 16) }).y), bytes(wide.run("Net", { x: x(2, 4, 16) }).y));
});

test("bad dims are typed errors and change nothing", (t) => {
  const p = track(t, shrew.compile(SRC, { dims: { D: 8, H: 4 } }));
  const before = p.paramsChecksum();
  const y = p.run("Net", { x: x(1, 2, 8) }).y;
  for (const [dims, pattern] of [
    [{ D: 1.5 }, /dims\.D must be a non-negative integer \(at most 2\^53 - 1\), got 1\.5/],
    [{ D: -4 }, /dims\.D must be a non-negative integer/],
    [{ D: NaN }, /got NaN/],
    [{ D: 2 ** 60 }, /non-negative integer/],
    [{ D: "16" }, /got "16" \(a string\)$/],
    [{ Fixed: 5 }, /'Fixed' is set by @config/],
    [{ D: 7 }, /with D = 7 the program does not compile/],
    [{ d: 16 }, /dimension 'd' is not used by this program; did you mean 'D'\? its dimensions: D, H, N, T/],
  ]) {
    assert.throws(() => p.setDims(dims), (e) => e instanceof ShrewRuntimeError && e.code === "invalid_argument" &&
      pattern.test(e.message), JSON.stringify(dims));
  }
  for (const [dims, shown] of [[null, "null"], [[], "an array"], [[16], "an array"], ["D=16", '"D=16" (a string)']]) {
    assert.throws(() => p.setDims(dims), (e) => e instanceof ShrewRuntimeError && e.code === "invalid_argument" &&
      e.message === `dims must be an object {name: size}, got ${shown}`);
  }
  assert.equal(p.paramsChecksum(), before);
  assert.deepEqual(p.dims, { D: 8, H: 4 });
  assert.deepEqual(bytes(p.run("Net", { x: x(1, 2, 8) }).y), bytes(y));
});

test("compile rejects sizes that are not non-negative integers instead of truncating them", (t) => {
  for (const D of [1.5, -1, NaN, 1e20, "8"]) {
    assert.throws(() => shrew.compile(SRC, { dims: { D, H: 4 } }),
      (e) => e instanceof ShrewRuntimeError && e.code === "invalid_argument" && /dims\.D must be a non-negative integer/.test(e.message),
      String(D));
  }
  // 0 is a size (it passes the option check); the attention block then needs at least 1.
  assert.throws(() => shrew.compile(SRC, { dims: { D: 0, H: 4 } }),
    (e) => e.name === "ShrewCompileError" && e.diagnostics[0].code === "E064" && /model dimension 0 is empty/.test(e.message));
  const zero = track(t, shrew.compile(SRC, { dims: { D: 8, H: 0 } }));
  assert.deepEqual([...zero.getParam("Net/w").shape], [8, 0]);
  assert.deepEqual([...zero.run("Net", { x: x(2, 3, 8) }).y.shape], [2, 3, 0]);
});

test("the lean run path follows setDims for the same input types", (t) => {
  const p = track(t, shrew.compile(SRC, { dims: { D: 8, H: 4 } }));
  assert.deepEqual([...p.run("Net", { x: x(2, 3, 8) }).y.shape], [2, 3, 4]);
  const { carried, initialized } = p.setDims({ H: 6 });
  assert.deepEqual(initialized, ["Net/b", "Net/w"]);  // the block's parameters do not depend on H
  assert.ok(carried.includes("Net/s") && carried.includes("Net/blocked.attn.w_q"));
  const y = p.run("Net", { x: x(2, 3, 8) }).y;  // same input key as the cached binding
  assert.deepEqual([...y.shape], [2, 3, 6]);
  allClose(assert, y, p.interpret("Net", { x: x(2, 3, 8) }).y, 1e-5, 1e-6, "tape vs interpreter");
});

test("a bare typed array takes its shape from the dims in force, before and after setDims", (t) => {
  const p = track(t, shrew.compile(`@graph G {\n    input x: Tensor<[B, 3], f32>;\n    output y: x * 2.0;\n}`, { dims: { B: 2 } }));
  const data = (n) => Float32Array.from({ length: n * 3 }, (_, i) => i + 0.5);
  const y2 = p.run("G", { x: data(2) }).y;
  assert.deepEqual([...y2.shape], [2, 3]);
  assert.deepEqual([...y2.data], [...data(2)].map((v) => v * 2));
  p.setDims({ B: 4 });
  const y4 = p.run("G", { x: data(4) }).y;
  assert.deepEqual([...y4.shape], [4, 3]);
  assert.deepEqual([...y4.data], [...data(4)].map((v) => v * 2));
  // The old size no longer fits: the error gives the shape of the dims now in force.
  assert.throws(() => p.run("G", { x: data(2) }),
    (e) => e instanceof ShrewRuntimeError && e.input === "x" && /expected \[4, 3\] \(12 elements\)/.test(e.message));
});
