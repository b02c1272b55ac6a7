// XNNPACK alone: the mlp's three fully-connected layers as bare XNNPACK
// operators (tools/xnn_fc_probe.cc), natively and in wasm, in fresh processes
// taken in turns (native, wasm, native, wasm, …). Shrew's wasm ÷ native ratio
// is only as good as the kernel library's own on the machine; this measures
// that ratio in the same run instead of assuming it.
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const NATIVE = fileURLToPath(new URL("../../build/native/xnn_fc_probe", import.meta.url));
const WASM = fileURLToPath(new URL("../../build/wasm/xnn_fc_probe.cjs", import.meta.url));

/**
 * Per side and batch, the round with the lowest median (noise only ever adds).
 * @param {{ native: any[], wasm: any[] }} rounds each entry: one probe's parsed JSON
 * @returns {{ batch: number, native: any, wasm: any, ratio: number }[]}
 */
export function bestOfRounds(rounds) {
  /** @type {(list: any[]) => Map<number, any>} */
  const best = (list) => {
    const m = new Map();
    for (const run of list) {
      for (const r of run.results) {
        const cur = m.get(r.batch);
        if (!cur || r.medianUs < cur.medianUs) m.set(r.batch, r);
      }
    }
    return m;
  };
  const nat = best(rounds.native), wasm = best(rounds.wasm);
  return [...nat.keys()].filter((b) => wasm.has(b)).sort((a, b) => a - b)
    .map((batch) => ({ batch, native: nat.get(batch), wasm: wasm.get(batch), ratio: wasm.get(batch).medianUs / nat.get(batch).medianUs }));
}

/**
 * Runs the two probes `rounds` times each, in turns. Returns null (after
 * logging why) when either build is missing or a probe fails.
 * @param {{ rounds: number, quick: boolean, log: (s: string) => void }} o
 */
export async function measureXnnAlone({ rounds, quick, log }) {
  for (const [what, file, how] of [["native", NATIVE, "npm run build:native"], ["wasm", WASM, "npm run build:wasm"]]) {
    if (!existsSync(file)) {
      log(`  XNNPACK alone: skipped, no ${what} probe (${how} builds ${file})`);
      return null;
    }
  }
  const exec = promisify(execFile);
  const times = quick ? ["--warmup-ms", "300", "--time-ms", "300"] : ["--warmup-ms", "1000", "--time-ms", "1500"];
  /** @type {{ native: any[], wasm: any[] }} */
  const all = { native: [], wasm: [] };
  try {
    for (let i = 0; i < rounds; i++) {
      all.native.push(JSON.parse((await exec(NATIVE, times, { timeout: 120_000 })).stdout));
      all.wasm.push(JSON.parse((await exec(process.execPath, [WASM, ...times], { timeout: 120_000 })).stdout));
    }
  } catch (e) {
    log(`  XNNPACK alone: probe failed: ${(e instanceof Error ? e.message : String(e)).split("\n")[0]}`);
    return null;
  }
  return { layers: all.native[0].layers, rounds, best: bestOfRounds(all), all };
}
