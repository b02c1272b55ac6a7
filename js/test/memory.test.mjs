// Lifetime tests: repeated runs and compile/dispose cycles keep the wasm
// heap flat; the FinalizationRegistry frees programs that were dropped.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { Shrew, Tensor } from "../dist/index.js";
import { ROOT, readExample } from "./helpers.mjs";

const shrew = await Shrew.load();
const MLP = readExample("mlp_classifier.sw");
const DEMO = readFileSync(`${ROOT}demo/model.sw`, "utf8");

test("10,000 runs leave the heap flat", () => {
  const p = shrew.compile(MLP, { dims: { Batch: 2 } });
  try {
    const x = new Tensor("f32", [2, 784], Float32Array.from({ length: 2 * 784 }, (_, i) => (i % 7) / 7));
    for (let i = 0; i < 200; i++) p.run("Classifier", { images: x });
    const before = shrew.heapStats();
    for (let i = 0; i < 10_000; i++) p.run("Classifier", { images: x });
    const after = shrew.heapStats();
    assert.equal(after.heapBytes, before.heapBytes, "linear memory did not grow");
    assert.ok(after.usedBytes - before.usedBytes <= 4096, `malloc'd bytes grew by ${after.usedBytes - before.usedBytes}`);
  } finally {
    p.dispose();
  }
});

test("1,000 compile + dispose cycles leave the heap flat", () => {
  const cycle = () => {
    const p = shrew.compile(DEMO, { dims: { Batch: 4 } });
    p.run("Classifier", { features: new Float32Array(16) });
    p.dispose();
  };
  for (let i = 0; i < 20; i++) cycle();
  const before = shrew.heapStats();
  for (let i = 0; i < 1000; i++) cycle();
  const after = shrew.heapStats();
  assert.equal(after.heapBytes, before.heapBytes, "linear memory did not grow");
  assert.ok(after.usedBytes - before.usedBytes <= 16384, `malloc'd bytes grew by ${after.usedBytes - before.usedBytes}`);
});

test("FinalizationRegistry frees programs that were never disposed", async () => {
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc");
  const base = shrew.heapStats().usedBytes;
  (() => {
    for (let i = 0; i < 10; i++) shrew.compile(MLP);
  })();
  const peak = shrew.heapStats().usedBytes;
  assert.ok(peak - base > 10 * 784 * 128 * 4, "ten programs hold their parameters");
  for (let i = 0; i < 20 && shrew.heapStats().usedBytes - base > (peak - base) / 4; i++) {
    gc();
    await new Promise((r) => setTimeout(r, 20));
  }
  const after = shrew.heapStats().usedBytes;
  assert.ok(after - base < (peak - base) / 4, `freed by the finalizer: base ${base}, peak ${peak}, after ${after}`);
});
