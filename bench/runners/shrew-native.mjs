// Shrew native (C++ build): runs `build/native/bench_peer_native` once per
// cell in its own process; the binary times itself and prints JSON.
// Skipped while the binary does not exist.
//
// ============================================================================
// Protocol for build/native/bench_peer_native (tools/bench_peer_native.cc):
//
//   bench_peer_native --program FILE.sw --graph NAME --params DIR --input X.npy
//                     --output Y.npy --dim Batch=N
//                     --warmup-min-ms N --warmup-max-ms N --min-runs N --min-time-ms N
//                     --max-time-ms N
//
//   DIR holds one NAME.npy per param (float32, C order, the .sw shape); X.npy
//   is the input. The binary compiles the graph (timing create → first result
//   as session time), warms up until latency stops improving (at least
//   warmup-min-ms, at most warmup-max-ms), then times single calls until it has
//   ≥ min-runs and ≥ min-time-ms (or max-time-ms passed), writes the output
//   of X to Y.npy and prints one JSON object on stdout:
//
//     { "version": "0.1.0", "session_us": 1234.5, "warmup_calls": 800,
//       "warmup_ms": 1000.2, "times_us": [31.2, 30.9, ...],
//       "cpu_us": 3050.1, "wall_us": 3100.7,          (process CPU / wall over the timed calls)
//       "memory_bytes": 123456, "memory_kind": "arena + params (memory plan)",
//       "extra": { "instructions": 34, "execNsPerRun": 610.2, "execNsPerInstr": 17.9, ... } }
//
//   Exit code ≠ 0 → the cell is reported as failed with stderr's last line.
// ============================================================================
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { readNpyF32, writeNpyF32 } from "../lib/npy.mjs";
import { SkipRunner } from "./runner.mjs";

const run = promisify(execFile);
/** The binary; SHREW_BENCH_NATIVE=/path overrides (e.g. another build directory). */
export const NATIVE_BIN =
  process.env.SHREW_BENCH_NATIVE || fileURLToPath(new URL("../../build/native/bench_peer_native", import.meta.url));

/** @returns {import("./runner.mjs").Runner} */
export function shrewNativeRunner() {
  let version = "?";
  return {
    id: "shrew-native",
    label: "Shrew native",
    peer: false,
    async init() {
      if (!existsSync(NATIVE_BIN)) throw new SkipRunner(`${path.relative(process.cwd(), NATIVE_BIN)} not built`);
      const t0 = performance.now();
      try {
        const { stdout } = await run(NATIVE_BIN, ["--version"], { timeout: 30_000 });
        version = stdout.trim() || "?";
      } catch {
        version = "?";
      }
      return { version, detail: "separate process, times itself", initMs: performance.now() - t0 };
    },
    async measure(cell, opts) {
      const dir = mkdtempSync(path.join(tmpdir(), "shrew-bench-"));
      try {
        const params = path.join(dir, "params");
        mkdirSync(params);
        for (const w of cell.weights) writeNpyF32(path.join(params, `${w.name}.npy`), w.data, w.shape);
        const program = path.join(dir, `${cell.workload.name}.sw`);
        writeFileSync(program, cell.workload.sw);
        const input = path.join(dir, "x.npy");
        const output = path.join(dir, "y.npy");
        writeNpyF32(input, cell.input, cell.inputShape);
        const args = [
          "--program", program, "--graph", cell.workload.graph, "--params", params,
          "--input", input, "--output", output, "--dim", `Batch=${cell.batch}`,
          "--warmup-min-ms", String(opts.warmupMinMs), "--warmup-max-ms", String(opts.warmupMaxMs),
          "--min-runs", String(opts.minRuns), "--min-time-ms", String(opts.minTimeMs),
          "--max-time-ms", String(opts.maxTimeMs),
        ];
        const { stdout } = await run(NATIVE_BIN, args, { timeout: 600_000, maxBuffer: 64 << 20 });
        const r = JSON.parse(stdout);
        return {
          timesUs: r.times_us,
          warmupCalls: r.warmup_calls ?? 0,
          warmupMs: r.warmup_ms ?? 0,
          sessionMs: (r.session_us ?? NaN) / 1000,
          output: readNpyF32(output).data,
          memory: r.memory_bytes != null ? { bytes: r.memory_bytes, kind: r.memory_kind ?? "reported by binary" } : null,
          extra: r.extra ?? null,
          cpuUs: r.cpu_us ?? NaN,
          wallUs: r.wall_us ?? NaN,
        };
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
