// The start-up side-by-side table: the peers' fresh-process figures next to Shrew's three ways in.
//   node --test bench/test/
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { renderMarkdown } from "../lib/report.mjs";

const latest = () => JSON.parse(readFileSync(new URL("../results/latest.json", import.meta.url), "utf8"));
const cols = (md, start) => {
  const row = md.split("\n").find((l) => l.startsWith(`| ${start}`));
  assert.ok(row, `no row starting '${start}' in:\n${md}`);
  return row.split("|").slice(1, -1).map((c) => c.trim());
};

test("each peer's row shows its best load, session, first run and first ÷ steady; Shrew's rows come from its start-up figures", () => {
  const results = latest();
  const su = results.shrewStartup;
  Object.assign(su.fromBundle, { loadMs: 15, compileMs: 25, firstRunUs: 2000, totalMs: 42, steadyUs: 80, firstRunRatio: 25 });
  su.peers = {
    ort: { model: "session from the ONNX bytes", runs: [], best: { importMs: 14, initMs: 330, loadMs: 345, sessionMs: 24.4, firstRunUs: 17100, totalMs: 392, steadyUs: 99.8, firstRunRatio: 171.5 } },
  };
  const md = renderMarkdown(results);
  assert.deepEqual(cols(md, "onnxruntime-web wasm (session"),
    ["onnxruntime-web wasm (session from the ONNX bytes)", "345 ms (import 14 ms)", "24 ms", "17.1 ms", "392 ms", "99.8 µs", "171.5×"]);
  assert.deepEqual(cols(md, "Shrew, `loadBundle`"),
    ["Shrew, `loadBundle` (program and weights)", "15 ms", "25 ms", "2.00 ms", "42 ms", "80.0 µs", "25.0×"]);
});

test("without peer figures (an older results file) there is no side-by-side table", () => {
  const results = latest();
  delete results.shrewStartup.peers;
  assert.doesNotMatch(renderMarkdown(results), /start-up side by side/);
});
