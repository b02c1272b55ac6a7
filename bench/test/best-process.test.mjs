// mergeBestProcess: each runtime's row from its fastest process, ratios recomputed.
//   node --test bench/test/
import assert from "node:assert/strict";
import { test } from "node:test";

import { mergeBestProcess } from "../lib/best-process.mjs";

const row = (runtime, peer, medianUs, cpuPerCallUs, status = "ok") =>
  ({ runtime, label: runtime, peer, status, medianUs, cpuPerCallUs, ratioToBestPeer: 99, cpuRatioToBestPeer: 99 });
const cell = (workload, batch, results) => ({ workload, batch, results });

test("each runtime keeps the row of its own fastest process; ratios are against the merged peers", () => {
  const p1 = [cell("mlp", 64, [row("ort", true, 4000, 4100), row("tfjs", true, 5400, 5500), row("shrew-jit", false, 1800, 1900)])];
  const p2 = [cell("mlp", 64, [row("ort", true, 3800, 3900), row("tfjs", true, 2600, 2700), row("shrew-jit", false, 2800, 2850)])];
  const [c] = mergeBestProcess([p1, p2]);
  const by = Object.fromEntries(c.results.map((r) => [r.runtime, r]));
  assert.equal(by.ort.medianUs, 3800);
  assert.equal(by.tfjs.medianUs, 2600);
  assert.equal(by["shrew-jit"].medianUs, 1800);
  assert.equal(by["shrew-jit"].cpuPerCallUs, 1900, "the whole row comes from one process");
  assert.deepEqual(by["shrew-jit"].processMedians, [1800, 2800]);
  assert.equal(by["shrew-jit"].ratioToBestPeer, 1800 / 2600);
  assert.equal(by["shrew-jit"].cpuRatioToBestPeer, 1900 / 2700);
  assert.equal(by.tfjs.ratioToBestPeer, 1);
  assert.equal(by.ort.ratioToBestPeer, 3800 / 2600);
});

test("a WRONG row in any process is kept, and is not a peer to rank against", () => {
  const p1 = [cell("tiny", 1, [row("ort", true, 15, 16), row("tfjs", true, 50, 60), row("shrew-jit", false, 2, 3)])];
  const p2 = [cell("tiny", 1, [row("ort", true, 14, 15), row("tfjs", true, 10, 11, "WRONG"), row("shrew-jit", false, 1.9, 2.9)])];
  const [c] = mergeBestProcess([p1, p2]);
  const by = Object.fromEntries(c.results.map((r) => [r.runtime, r]));
  assert.equal(by.tfjs.status, "WRONG");
  assert.equal(by["shrew-jit"].ratioToBestPeer, 1.9 / 14);
});

test("cells are matched by workload and batch, rows by runtime, in the first process's order", () => {
  const p1 = [cell("mlp", 1, [row("ort", true, 50, 55), row("shrew-jit", false, 52, 56)]),
    cell("mlp", 64, [row("ort", true, 4000, 4100), row("shrew-jit", false, 2000, 2100)])];
  const p2 = [cell("mlp", 64, [row("shrew-jit", false, 1700, 1750), row("ort", true, 3900, 3950)]),
    cell("mlp", 1, [row("shrew-jit", false, 49, 50), row("ort", true, 51, 52)])];
  const merged = mergeBestProcess([p1, p2]);
  assert.deepEqual(merged.map((c) => `${c.workload}/${c.batch}`), ["mlp/1", "mlp/64"]);
  assert.deepEqual(merged[1].results.map((r) => [r.runtime, r.medianUs]), [["ort", 3900], ["shrew-jit", 1700]]);
  assert.deepEqual(merged[0].results.map((r) => [r.runtime, r.medianUs]), [["ort", 50], ["shrew-jit", 49]]);
  assert.equal(merged[0].results[1].ratioToBestPeer, 49 / 50);
});

test("a runtime skipped everywhere stays skipped, without ratios", () => {
  const skipped = { runtime: "tfjs", label: "tfjs", peer: true, status: "skipped" };
  const [c] = mergeBestProcess([[cell("tiny", 1, [row("ort", true, 15, 16), skipped])], [cell("tiny", 1, [row("ort", true, 16, 17), skipped])]]);
  const tf = c.results.find((r) => r.runtime === "tfjs");
  assert.equal(tf.status, "skipped");
  assert.equal(tf.ratioToBestPeer, undefined);
  assert.equal(c.results[0].ratioToBestPeer, 1);
});
