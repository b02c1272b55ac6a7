// bestOfRounds and the XNNPACK-alone table: the best round per side and batch, and the ratios shown.
//   node --test bench/test/
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { test } from "node:test";

import { renderMarkdown } from "../lib/report.mjs";
import { bestOfRounds } from "../lib/xnn-alone.mjs";

const probe = (wasm, ...rs) => ({ layers: "784-512 relu, 512-512 relu, 512-10", wasm,
  results: rs.map(([batch, medianUs]) => ({ batch, medianUs, gflops: (1337344 * batch) / (medianUs * 1e3) })) });

test("each side keeps its fastest round per batch; the ratio is wasm over native", () => {
  const best = bestOfRounds({
    native: [probe(false, [1, 72], [64, 700]), probe(false, [1, 70], [64, 690])],
    wasm: [probe(true, [1, 80], [64, 2700]), probe(true, [1, 75], [64, 2900])],
  });
  assert.deepEqual(best.map((b) => b.batch), [1, 64]);
  assert.equal(best[0].native.medianUs, 70);
  assert.equal(best[0].wasm.medianUs, 75);
  assert.equal(best[0].ratio, 75 / 70);
  assert.equal(best[1].native.medianUs, 690);
  assert.equal(best[1].wasm.medianUs, 2700);
  assert.equal(best[1].ratio, 2700 / 690);
});

test("a batch only one side measured is left out", () => {
  const best = bestOfRounds({ native: [probe(false, [1, 70], [64, 690])], wasm: [probe(true, [64, 2800])] });
  assert.deepEqual(best.map((b) => b.batch), [64]);
});

test("the report puts XNNPACK's ratio next to Shrew's tape-loop ratio for the same batch", () => {
  // The last full run's results, with the mlp/64 tape loops set to known values.
  const results = JSON.parse(readFileSync(new URL("../results/latest.json", import.meta.url), "utf8"));
  const cell = results.cells.find((c) => c.workload === "mlp" && c.batch === 64);
  cell.results.find((r) => r.runtime === "shrew-jit").extra.inWasmNsPerRun = 2_730_000;
  cell.results.find((r) => r.runtime === "shrew-native").extra.execNsPerRun = 650_000;
  const best = bestOfRounds({ native: [probe(false, [64, 700])], wasm: [probe(true, [64, 2800])] });
  const md = renderMarkdown({ ...results, xnnAlone: { layers: "784-512 relu, 512-512 relu, 512-10", rounds: 3, best } });
  const row = md.split("\n").find((l) => l.startsWith("| 64 | 2.80 ms"));
  assert.ok(row, md);
  const cols = row.split("|").map((c) => c.trim());
  assert.equal(cols[2], "2.80 ms (30.6 GFLOP/s)");
  assert.equal(cols[4], "4.00×");
  assert.equal(cols[5], "2.73 ms");
  assert.equal(cols[7], "4.20×");
});

test("without probe figures (an older results file) the report has no XNNPACK-alone table", () => {
  const results = JSON.parse(readFileSync(new URL("../results/latest.json", import.meta.url), "utf8"));
  assert.doesNotMatch(renderMarkdown({ ...results, xnnAlone: null }), /XNNPACK alone/);
});

// The probes themselves (built by build-native.sh / build-wasm.sh): each checks
// its output against a plain loop before timing and exits 1 on a mismatch.
for (const [side, cmd] of [["native", ["../../build/native/xnn_fc_probe"]], ["wasm", [process.execPath, "../../build/wasm/xnn_fc_probe.cjs"]]]) {
  const file = fileURLToPath(new URL(cmd[cmd.length - 1], import.meta.url));
  test(`the ${side} probe runs the three layers, matches a plain loop, and reports one line of JSON`, { skip: !existsSync(file) && `${file} not built` }, () => {
    const args = ["--batch", "3", "--batch", "1", "--warmup-ms", "20", "--time-ms", "20"];
    const out = execFileSync(cmd.length === 1 ? file : cmd[0], cmd.length === 1 ? args : [file, ...args], { encoding: "utf8" });
    const r = JSON.parse(out);
    assert.equal(r.wasm, side === "wasm");
    assert.deepEqual(r.results.map((x) => x.batch), [3, 1]);
    for (const x of r.results) {
      assert.ok(x.relativeError < 1e-4, `relative error ${x.relativeError}`);
      assert.ok(x.bursts >= 50 && x.p10Us <= x.medianUs && x.medianUs <= x.p90Us, JSON.stringify(x));
      assert.ok(Math.abs(x.gflops - (1337344 * x.batch) / (x.medianUs * 1e3)) < 1e-3 * x.gflops, JSON.stringify(x));
    }
    assert.throws(() => execFileSync(cmd.length === 1 ? file : cmd[0], cmd.length === 1 ? ["--batch", "0"] : [file, "--batch", "0"], { stdio: "pipe" }),
      (e) => e.status === 1 && /--batch expects a positive number/.test(String(e.stderr)));
  });
}
