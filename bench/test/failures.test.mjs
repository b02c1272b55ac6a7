// A runtime that throws mid-cell fails its own row only: lib/measure.mjs drops it
// from the rounds, lib/entry-row.mjs reports it (and a throwing dispose), and
// lib/best-process.mjs keeps its other processes' figures.
//   node --test bench/test/
import assert from "node:assert/strict";
import { test } from "node:test";

import { mergeBestProcess } from "../lib/best-process.mjs";
import { settleEntry } from "../lib/entry-row.mjs";
import { timedRounds, warmup } from "../lib/measure.mjs";
import { renderMarkdown } from "../lib/report.mjs";

const x = new Float32Array(4);
const WARMUP = { minMs: 20, maxMs: 100, chunkMs: 2, patience: 2, improve: 0.05 };
const TIMED = { minRuns: 10, minTimeMs: 20, maxTimeMs: 2000, burstMs: 2 };
const quiet = () => {};

/** A session whose `run` throws on its nth call once `armed()` says so. */
function session({ failOn = Infinity, armed = () => true, disposeThrows = false } = {}) {
  let calls = 0;
  return {
    disposed: false,
    run(/** @type {Float32Array} */ v) {
      if (armed() && ++calls === failOn) throw new Error(`RuntimeError: call ${failOn} out of bounds\n    at wasm-function[12]`);
      return v.slice();
    },
    dispose() {
      this.disposed = true;
      if (disposeThrows) throw new Error("double free");
    },
  };
}
const rowOf = (id) => ({ runtime: id, label: id, peer: id !== "shrew-jit", status: "ok" });

/** The cell's steps as bench/run.mjs takes them: warm-up, timed rounds, then each row settled. */
async function cell(entries) {
  await warmup(entries, x, WARMUP);
  await timedRounds(entries, x, TIMED);
  const rows = new Map(entries.map((e) => [e.id, rowOf(e.id)]));
  for (const e of entries) await settleEntry(e, rows.get(e.id), quiet);
  return rows;
}

test("a runtime that throws in the warm-up fails alone; the others are timed and keep their rows", async () => {
  const rows = await cell([{ id: "ort", session: session() }, { id: "shrew-jit", session: session({ failOn: 500 }) },
    { id: "tfjs", session: session() }]);
  for (const id of ["ort", "tfjs"]) {
    const r = rows.get(id);
    assert.equal(r.status, "ok", id);
    assert.equal(r.error, undefined, id);
    assert.ok(r.runs >= TIMED.minRuns && Number.isFinite(r.medianUs), JSON.stringify(r));
  }
  const bad = rows.get("shrew-jit");
  assert.equal(bad.status, "failed");
  assert.equal(bad.error, "RuntimeError: call 500 out of bounds");
  assert.equal(bad.medianUs, undefined, "no figures from a session that threw");
});

test("a runtime that throws in the timed rounds leaves them; the others reach their runs", async () => {
  let timed = false;
  const flaky = { id: "shrew-jit", session: session({ failOn: 3, armed: () => timed }) };
  const entries = [{ id: "ort", session: session() }, flaky];
  await warmup(entries, x, WARMUP);
  timed = true;
  await timedRounds(entries, x, TIMED);
  assert.match(String(flaky.error), /call 3 out of bounds/);
  assert.equal(flaky.timesUs.length, 2, "no burst after the throw");
  assert.ok(entries[0].timesUs.length >= TIMED.minRuns);
  assert.equal(entries[0].error, undefined);
});

test("when every runtime throws the rounds end at once, not at maxTimeMs", async () => {
  const entries = [{ id: "a", session: session({ failOn: 1 }), bestUs: 1 }, { id: "b", session: session({ failOn: 1 }), bestUs: 1 }];
  const t0 = performance.now();
  await timedRounds(entries, x, { ...TIMED, minTimeMs: 5000, maxTimeMs: 5000 });
  assert.ok(performance.now() - t0 < 1000);
  assert.ok(entries.every((e) => e.error));
});

test("a dispose that throws fails that runtime's row only, and every session is still disposed", async () => {
  const sessions = [session(), session({ disposeThrows: true }), session({ failOn: 1, disposeThrows: true })];
  const entries = [{ id: "ort", session: sessions[0] }, { id: "tfjs", session: sessions[1] }, { id: "shrew-jit", session: sessions[2] }];
  const rows = await cell(entries);
  assert.ok(sessions.every((s) => s.disposed));
  assert.equal(rows.get("ort").status, "ok");
  assert.deepEqual([rows.get("tfjs").status, rows.get("tfjs").error], ["failed", "dispose: double free"]);
  assert.ok(Number.isFinite(rows.get("tfjs").medianUs), "its timings were complete");
  // Its own first error, not the dispose's.
  assert.deepEqual([rows.get("shrew-jit").status, rows.get("shrew-jit").error], ["failed", "RuntimeError: call 1 out of bounds"]);
});

const row = (runtime, peer, medianUs, status = "ok", error) =>
  ({ runtime, label: runtime, peer, status, ...(status === "failed" ? { error } : { medianUs, cpuPerCallUs: medianUs }) });
const cellOf = (results) => [{ workload: "mlp", batch: 1, results }];

test("--processes: a runtime failed in one process gets its other processes' best, noted; its peers are untouched", () => {
  const merged = mergeBestProcess([
    cellOf([row("ort", true, 40), row("shrew-jit", false, 0, "failed", "memory access out of bounds")]),
    cellOf([row("ort", true, 42), row("shrew-jit", false, 30)]),
    cellOf([row("ort", true, 41), row("shrew-jit", false, 29)]),
  ]);
  const by = Object.fromEntries(merged[0].results.map((r) => [r.runtime, r]));
  assert.equal(by["shrew-jit"].status, "ok");
  assert.equal(by["shrew-jit"].medianUs, 29);
  assert.equal(by["shrew-jit"].failedProcesses, 1);
  assert.equal(by["shrew-jit"].failedError, "memory access out of bounds");
  assert.equal(by["shrew-jit"].ratioToBestPeer, 29 / 40);
  assert.ok(Number.isNaN(by["shrew-jit"].processMedians[0]));
  assert.equal(by.ort.status, "ok");
  assert.equal(by.ort.failedProcesses, undefined);
  const md = renderMarkdown({ meta: { date: "d", cpu: "c", cores: 1, node: "20", v8: "v", loadAvgStart: 0, loadAvgEnd: 0,
    options: { timed: { minRuns: 50 } }, processes: 3, rtol: 1e-4 }, runtimes: [], cells: merged, sizes: [] });
  const line = md.split("\n").find((l) => l.startsWith("| mlp | 1 | shrew-jit"));
  assert.match(line, /\| ok \(\*\*failed\*\* in 1 of 3 processes: memory access out of bounds\) \|$/);
  assert.match(md, /failed in k of N processes: the runtime threw in k of the --processes; its row is its best of the others\./);
});

test("--processes: a runtime failed in every process stays failed with its own error", () => {
  const merged = mergeBestProcess([
    cellOf([row("ort", true, 40), row("tfjs", true, 0, "failed", "abort() at tfjs")]),
    cellOf([row("ort", true, 41), row("tfjs", true, 0, "failed", "abort() at tfjs")]),
  ]);
  const by = Object.fromEntries(merged[0].results.map((r) => [r.runtime, r]));
  assert.deepEqual([by.tfjs.status, by.tfjs.error, by.tfjs.failedProcesses], ["failed", "abort() at tfjs", 2]);
  assert.deepEqual([by.ort.status, by.ort.medianUs, by.ort.ratioToBestPeer], ["ok", 40, 1]);
});
