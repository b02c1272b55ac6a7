// Benchmark harness: Shrew vs onnxruntime-web and TF.js (wasm, single thread),
// all in this one Node process, interleaved per cell.
//
//   npm run bench                       full run → bench/results/latest.json + Markdown on stdout
//   npm run bench -- --quick            few runs (CI smoke)
//   npm run bench -- --only mlp,tiny    some workloads
//   npm run bench -- --runtimes ort,tfjs
//   npm run bench -- --processes 3      the cells in 3 fresh processes, each runtime's best
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs, promisify } from "node:util";

import { mergeBestProcess } from "./lib/best-process.mjs";
import { makeCell } from "./lib/cell.mjs";
import { compareOutputs, RTOL } from "./lib/compare.mjs";
import { settleEntry } from "./lib/entry-row.mjs";
import { errText } from "./lib/err-text.mjs";
import { timeCall, timedRounds, warmup } from "./lib/measure.mjs";
import { rankAgainstPeers } from "./lib/rank.mjs";
import { renderMarkdown } from "./lib/report.mjs";
import { downloadSizes } from "./lib/sizes.mjs";
import { measureXnnAlone } from "./lib/xnn-alone.mjs";
import { bestPerField, summarize } from "./lib/stats.mjs";
import { bestStartup } from "./lib/startup-best.mjs";
import { numel } from "./lib/rng.mjs";
import { allRunners, REFERENCE_RUNNER } from "./runners/index.mjs";
import { SkipRunner } from "./runners/runner.mjs";
import { WORKLOADS, workloadByName } from "./workloads/index.mjs";
import { ensureDir } from "../js/dist/cli/files.js";

const HERE = path.dirname(fileURLToPath(import.meta.url));

const USAGE = `usage: node bench/run.mjs [--quick] [--only mlp,block,tiny] [--runtimes ort,tfjs,shrew-jit,...]
                         [--memory | --no-memory] [--processes N] [--out FILE]
  --quick      short warm-up and few runs (CI smoke); skips the memory probes unless --memory
  --only       workloads to run (default: ${WORKLOADS.map((w) => w.name).join(",")})
  --runtimes   runtime ids (default: all; ${allRunners().map((r) => r.id).join(",")})
  --processes  run the timed cells in N fresh Node processes one after another
               (each one interleaved as usual) and keep, per cell, each runtime's
               row from its fastest process (default 1: this process)
  --out        results JSON (default: bench/results/latest.json)
`;

/** A bad command line: the reason and the usage, exit status 2, before any work. */
function usageError(/** @type {string} */ message) {
  process.stderr.write(`error: ${message}\n\n${USAGE}`);
  process.exit(2);
}

/** @type {any} */
let args;
try {
  ({ values: args } = parseArgs({
    options: {
      quick: { type: "boolean", default: false },
      only: { type: "string" },
      runtimes: { type: "string" },
      memory: { type: "boolean" },
      "no-memory": { type: "boolean" },
      out: { type: "string", default: path.join(HERE, "results", "latest.json") },
      processes: { type: "string", default: "1" },
      // Internal: a child of --processes N measures the cells only.
      "cells-only": { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
    strict: true,
  }));
} catch (e) {
  usageError(/** @type {Error} */ (e).message);
}

if (args.help) {
  process.stdout.write(USAGE);
  process.exit(0);
}

const QUICK = args.quick;
const OPTIONS = QUICK
  ? {
      warmup: { minMs: 200, maxMs: 1500, chunkMs: 25, patience: 2, improve: 0.05 },
      timed: { minRuns: 10, minTimeMs: 300, maxTimeMs: 20_000, burstMs: 5 },
    }
  : {
      warmup: { minMs: 1000, maxMs: 8000, chunkMs: 50, patience: 3, improve: 0.02 },
      timed: { minRuns: 50, minTimeMs: 3000, maxTimeMs: 120_000, burstMs: 5 },
    };
const MEMORY = args["no-memory"] ? false : (args.memory ?? !QUICK);
const CELLS_ONLY = args["cells-only"];
const PROCESSES = /^[1-9][0-9]?$/.test(args.processes) ? Number(args.processes) : NaN;
if (!(PROCESSES <= 20)) usageError(`--processes expects an integer from 1 to 20, got '${args.processes}'`);

const log = (/** @type {string} */ s) => process.stderr.write(s + "\n");

// ---------------------------------------------------------------- selection
/** @type {typeof WORKLOADS} */
let workloads = WORKLOADS;
try {
  if (args.only) workloads = args.only.split(",").map((/** @type {string} */ s) => workloadByName(s.trim()));
} catch (e) {
  usageError(/** @type {Error} */ (e).message);
}
let runners = allRunners();
if (args.runtimes) {
  const ids = args.runtimes.split(",").map((/** @type {string} */ s) => s.trim());
  for (const id of ids) {
    if (!runners.some((r) => r.id === id)) usageError(`unknown runtime '${id}' (known: ${runners.map((r) => r.id).join(", ")})`);
  }
  runners = runners.filter((r) => ids.includes(r.id));
}
// The results file's directory is made (or refused) now, not after minutes of runs.
try {
  ensureDir(path.dirname(args.out));
} catch (e) {
  usageError(/** @type {Error} */ (e).message);
}

const loadAvgStart = os.loadavg()[0];

// ---------------------------------------------------------------- init
/** @type {any[]} */
const runtimes = [];
for (const r of runners) {
  try {
    const info = await r.init();
    runtimes.push({ id: r.id, label: r.label, peer: r.peer, status: "ok", ...info });
    log(`init ${r.label}: ${info.version}, ${info.initMs.toFixed(0)} ms`);
  } catch (e) {
    const skipped = e instanceof SkipRunner;
    runtimes.push({ id: r.id, label: r.label, peer: r.peer, status: skipped ? "skipped" : "failed", reason: errText(e) });
    log(`init ${r.label}: ${skipped ? "skipped" : "FAILED"}: ${errText(e)}`);
  }
}
const ready = runners.filter((r) => runtimes.find((x) => x.id === r.id).status === "ok");

// ---------------------------------------------------------------- cells
/** Every cell measured in this process, its runtimes interleaved. */
async function measureCellsHere() {
  /** @type {any[]} */
  const cells = [];
  for (const workload of workloads) {
    for (const batch of workload.batches) {
      const cell = makeCell(workload, batch);
      log(`\n${workload.name}/${batch}: ${workload.title}`);
      /** @type {Map<string, any>} */
      const res = new Map();
      for (const r of runners) {
        const rt = runtimes.find((x) => x.id === r.id);
        res.set(r.id, { runtime: r.id, label: r.label, peer: r.peer, status: rt.status === "ok" ? "ok" : "skipped" });
      }

      // Create sessions (create → first result), in-process runtimes.
      /** @type {import("./lib/measure.mjs").Entry[]} */
      const entries = [];
      /** @type {Map<string, Float32Array>} */
      const firstOut = new Map();
      for (const r of ready) {
        if (!r.createSession) continue;
        const row = res.get(r.id);
        try {
          const t0 = performance.now();
          const session = await r.createSession(cell);
          const [, y] = await timeCall(session, cell.input);
          row.sessionMs = performance.now() - t0;
          firstOut.set(r.id, y);
          entries.push({ id: r.id, session, minRunsIfSlow: r.minRunsIfSlow });
        } catch (e) {
          row.status = "failed";
          row.error = errText(e);
          log(`  ${r.label}: FAILED: ${row.error}`);
        }
      }

      // Warm-up and timed runs, interleaved. A session that throws leaves the
      // rounds with its error on its entry (lib/measure.mjs); the others go on.
      await warmup(entries, cell.input, OPTIONS.warmup);
      await timedRounds(entries, cell.input, OPTIONS.timed);
      /** @type {Map<string, Float32Array>} */
      const lastOut = new Map();
      for (const en of entries) {
        const y = await settleEntry(en, res.get(en.id), log);
        if (y) lastOut.set(en.id, y);
      }

      // Out-of-process runtimes (Shrew native) measure themselves.
      for (const r of ready) {
        if (!r.measure) continue;
        const row = res.get(r.id);
        try {
          const m = await r.measure(cell, { warmupMinMs: OPTIONS.warmup.minMs, warmupMaxMs: OPTIONS.warmup.maxMs, ...OPTIONS.timed });
          Object.assign(row, summarize(m.timesUs), {
            sessionMs: m.sessionMs, warmupCalls: m.warmupCalls, warmupMs: m.warmupMs, memory: m.memory ?? null,
          });
          if (m.extra) row.extra = m.extra;
          if (Number.isFinite(m.cpuUs) && m.timesUs.length) {
            row.cpuPerCallUs = m.cpuUs / m.timesUs.length;
            row.cpuShare = m.cpuUs / (m.wallUs || 1);
          }
          firstOut.set(r.id, m.output);
          lastOut.set(r.id, m.output);
        } catch (e) {
          row.status = "failed";
          row.error = errText(e);
          log(`  ${r.label}: FAILED: ${row.error}`);
        }
      }

      // Correctness against the reference (first and last outputs), output size.
      const ref = firstOut.get(REFERENCE_RUNNER);
      const expectLen = numel(cell.outputShape);
      for (const [id, y] of firstOut) {
        const row = res.get(id);
        if (row.status !== "ok") continue;
        if (y.length !== expectLen) {
          row.status = "WRONG";
          row.error = `output has ${y.length} values, expected ${expectLen} ([${cell.outputShape}])`;
          continue;
        }
        if (!ref) {
          row.unchecked = true; // the reference runtime did not produce an output
          continue;
        }
        if (id === REFERENCE_RUNNER) {
          row.reference = true;
          const stable = compareOutputs(lastOut.get(id) ?? y, y, 0);
          if (!stable.ok) Object.assign(row, { status: "WRONG", error: "output changed between calls" });
          continue;
        }
        const a = compareOutputs(y, ref);
        const b = compareOutputs(lastOut.get(id) ?? y, ref);
        const worst = a.relErr >= b.relErr ? a : b;
        row.maxAbsDiff = worst.maxAbsDiff;
        row.relErr = worst.relErr;
        if (!worst.ok) {
          row.status = "WRONG";
          row.error = worst.reason ?? `rel err ${worst.relErr.toExponential(1)} > ${RTOL}`;
        }
      }

      // Ratio to the fastest peer.
      const rows = [...res.values()];
      rankAgainstPeers(rows);

      for (const r of rows) {
        if (r.status === "skipped") continue;
        log(
          `  ${r.label.padEnd(26)} ${r.status === "ok" ? "" : r.status + " "}median ${(r.medianUs ?? NaN).toFixed(1)} µs ` +
            `(p10 ${(r.p10Us ?? NaN).toFixed(1)}, p90 ${(r.p90Us ?? NaN).toFixed(1)}, n=${r.runs ?? 0}, ` +
            `warm-up ${r.warmupCalls ?? 0} calls / ${(r.warmupMs ?? 0).toFixed(0)} ms) cpu/call ${(r.cpuPerCallUs ?? NaN).toFixed(1)} µs ` +
            `(cpu share ${((r.cpuShare ?? NaN) * 100).toFixed(0)} %) session ${(r.sessionMs ?? NaN).toFixed(1)} ms`,
        );
      }
      cells.push({ workload: workload.name, batch, inputShape: cell.inputShape, outputShape: cell.outputShape, results: rows });
    }
  }
  return cells;
}

/** The cells measured by PROCESSES fresh Node processes, one after another, merged. */
async function measureCellsInProcesses() {
  const exec = promisify(execFile);
  const dir = mkdtempSync(path.join(os.tmpdir(), "shrew-bench-"));
  const childArgs = ["--cells-only", "--no-memory", ...(QUICK ? ["--quick"] : []),
    ...(args.only ? ["--only", args.only] : []), ...(args.runtimes ? ["--runtimes", args.runtimes] : [])];
  /** @type {any[][]} */
  const runs = [];
  try {
    for (let i = 0; i < PROCESSES; i++) {
      log(`\n== process ${i + 1} of ${PROCESSES}`);
      const out = path.join(dir, `cells-${i}.json`);
      const child = exec(process.execPath, [path.join(HERE, "run.mjs"), ...childArgs, "--out", out], {
        timeout: 3_600_000, maxBuffer: 64 << 20,
      });
      child.child.stderr?.pipe(process.stderr);
      try {
        await child;
      } catch (e) {
        // Exit code 1 after writing its results is a WRONG or failed row, which the
        // merge keeps; anything else (a crash also exits 1, without results) lost the process.
        if (/** @type {any} */ (e).code !== 1 || !existsSync(out)) throw e;
      }
      runs.push(JSON.parse(readFileSync(out, "utf8")).cells);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const cells = mergeBestProcess(runs);
  log(`\nbest process per runtime and cell (medians of the ${PROCESSES} processes):`);
  for (const c of cells) {
    for (const r of c.results) {
      if (r.status === "skipped") continue;
      const each = r.processMedians.map((/** @type {number} */ us) => (Number.isFinite(us) ? us.toFixed(1) : "failed")).join(", ");
      log(`  ${`${c.workload}/${c.batch}`.padEnd(9)} ${r.label.padEnd(26)} ${r.status === "ok" ? "" : r.status + " "}median ${(r.medianUs ?? NaN).toFixed(1)} µs (${each})`);
    }
  }
  return cells;
}

const cells = PROCESSES > 1 ? await measureCellsInProcesses() : await measureCellsHere();

// ---------------------------------------------------------------- XNNPACK alone
/** @type {any} */
let xnnAlone = null;
if (!CELLS_ONLY && runners.some((r) => r.id === "shrew-jit" || r.id === "shrew-native")) {
  log("\nXNNPACK alone (mlp's three fully-connected layers as bare XNNPACK operators; native and wasm processes in turns)");
  xnnAlone = await measureXnnAlone({ rounds: QUICK ? 1 : 5, quick: QUICK, log });
  for (const b of xnnAlone?.best ?? []) {
    log(`  B=${b.batch}: wasm ${b.wasm.medianUs.toFixed(1)} µs (${b.wasm.gflops.toFixed(1)} GFLOP/s), native ${b.native.medianUs.toFixed(1)} µs ` +
        `(${b.native.gflops.toFixed(1)} GFLOP/s): wasm ÷ native ${b.ratio.toFixed(2)}×`);
  }
}

// ---------------------------------------------------------------- Shrew start-up
/** @type {any} */
let shrewStartup = null;
if (!CELLS_ONLY && ready.some((r) => r.id === "shrew-jit")) {
  log("\nShrew start-up (fresh process each: load + compile + first run of mlp/1, seeded, with its weights as a params blob and as a bundle, interleaved; 1,000-node compile, also as a fresh process's first compile)");
  const exec = promisify(execFile);
  // A start-up script in a fresh process; its result is the last line of its stdout, as JSON.
  const freshProcess = async (/** @type {string} */ script, /** @type {string[]} */ args) => {
    const { stdout } = await exec(process.execPath, [path.join(HERE, script), ...args], { timeout: 300_000 });
    return JSON.parse(stdout.trim().split("\n").pop() ?? "{}");
  };
  const blobDir = mkdtempSync(path.join(os.tmpdir(), "shrew-cold-"));
  const blobFile = path.join(blobDir, "mlp.params");
  const bundleFile = path.join(blobDir, "mlp.swb");
  const runs = [], blobRuns = [], bundleRuns = [], genFirstRuns = [];
  // The peers' start-up on the same model, in processes taken in turns with Shrew's (bench/peer-start.mjs).
  const peerIds = ready.filter((r) => r.peer).map((r) => r.id);
  /** @type {Record<string, any[]>} */
  const peerRuns = Object.fromEntries(peerIds.map((id) => [id, []]));
  try {
    await exec(process.execPath, [path.join(HERE, "cold-start.mjs"), "--write-params", blobFile], { timeout: 300_000 });
    await exec(process.execPath, [path.join(HERE, "cold-start.mjs"), "--write-bundle", bundleFile], { timeout: 300_000 });
    for (let i = 0; i < (QUICK ? 1 : 3); i++) {
      for (const [list, args] of /** @type {const} */ ([[runs, []], [blobRuns, ["--params", blobFile]],
                                                        [bundleRuns, ["--bundle", bundleFile]], [genFirstRuns, ["--gen1000-first"]]])) {
        try {
          list.push(await freshProcess("cold-start.mjs", args));
        } catch (e) {
          log(`  cold start failed: ${errText(e)}`);
        }
      }
      for (const id of peerIds) {
        try {
          peerRuns[id].push(await freshProcess("peer-start.mjs", [id]));
        } catch (e) {
          log(`  ${id} start-up failed: ${errText(e)}`);
        }
      }
    }
  } catch (e) {
    log(`  writing the mlp params blob failed: ${errText(e)}`);
  } finally {
    rmSync(blobDir, { recursive: true, force: true });
  }
  // Best of the runs per figure; first run ÷ steady from the two best (lib/startup-best.mjs says why).
  const bestOf = (/** @type {any[]} */ rs) => bestStartup(rs, {
    loadMs: (r) => r.loadMs, compileMs: (r) => r.compileMs, firstRunUs: (r) => r.firstRunUs,
    totalMs: (r) => r.totalMs, steadyUs: (r) => r.steadyUs,
    cpuTotalMs: (r) => r.cpu.totalMs, cpuLoadMs: (r) => r.cpu.loadMs, cpuCompileMs: (r) => r.cpu.compileMs,
    cpuFirstRunMs: (r) => r.cpu.firstRunMs,
    faultsLoad: (r) => r.faults.load, faultsCompile: (r) => r.faults.compile,
    faultsFirstRun: (r) => r.faults.firstRun, faultsTotal: (r) => r.faults.total,
    warmCompileMs: (r) => r.warmCompileMs, freshPageUs: (r) => r.freshPageUs,
  });
  // The 1,000-node compile is the same measurement in every start-up process,
  // whichever way it loaded mlp: the best over all of them. (Its first compile
  // there comes after mlp's: gen1000FirstMs. The first compile of a fresh
  // process is gen1000FreshFirstMs, from its own processes.)
  const gen1000Of = (/** @type {any[]} */ rs) => ({
    ...bestPerField(rs, {
      gen1000FirstMs: (r) => r.gen1000.firstMs, gen1000WarmMs: (r) => r.gen1000.warmMedianMs,
      gen1000BestMs: (r) => r.gen1000.warmBestMs, gen1000CpuMs: (r) => r.gen1000.warmMedianCpuMs,
    }),
    gen1000Instructions: rs[0].gen1000.instructions, gen1000Processes: rs.length,
  });
  const gen1000FreshOf = (/** @type {any[]} */ rs) => rs.length ? {
    ...bestPerField(rs, { gen1000FreshFirstMs: (r) => r.gen1000.firstMs, gen1000FreshFirstCpuMs: (r) => r.gen1000.firstCpuMs }),
    gen1000FreshProcesses: rs.length,
  } : {};
  const PEER_FIGURES = ["importMs", "initMs", "loadMs", "sessionMs", "firstRunUs", "totalMs", "steadyUs"];
  if (runs.length) {
    shrewStartup = {
      runs, best: { ...bestOf(runs), ...gen1000Of([...runs, ...blobRuns, ...bundleRuns]), ...gen1000FreshOf(genFirstRuns) },
      ...(blobRuns.length ? { blobRuns, withParams: bestOf(blobRuns) } : {}),
      ...(bundleRuns.length ? { bundleRuns, fromBundle: bestOf(bundleRuns) } : {}),
      ...(genFirstRuns.length ? { gen1000FreshRuns: genFirstRuns } : {}),
      peers: Object.fromEntries(Object.entries(peerRuns).filter(([, rs]) => rs.length).map(([id, rs]) => [id, {
        model: rs[0].model, runs: rs,
        best: bestStartup(rs, Object.fromEntries(PEER_FIGURES.map((k) => [k, (/** @type {any} */ r) => r[k]]))),
      }])),
    };
    for (const [what, b] of [["seeded", shrewStartup.best], ["with its weights", shrewStartup.withParams],
                             ["from a bundle", shrewStartup.fromBundle]]) {
      if (!b) continue;
      log(`  ${what}: load ${b.loadMs.toFixed(1)} ms + compile ${b.compileMs.toFixed(1)} ms + first run ${(b.firstRunUs / 1000).toFixed(1)} ms = ${b.totalMs.toFixed(1)} ms ` +
          `(cpu ${b.cpuTotalMs.toFixed(1)} ms, ${b.faultsTotal} page faults at ${b.freshPageUs.toFixed(1)} µs); ` +
          `the same ${what === "from a bundle" ? "loadBundle" : "compile"} warm ${b.warmCompileMs.toFixed(1)} ms; ` +
          `first run ${b.firstRunRatio.toFixed(1)}× steady ${b.steadyUs.toFixed(0)} µs`);
    }
    for (const [id, { best: p }] of Object.entries(shrewStartup.peers)) {
      log(`  ${id}: import ${p.importMs.toFixed(1)} ms + init ${p.initMs.toFixed(1)} ms + session ${p.sessionMs.toFixed(1)} ms + ` +
          `first run ${(p.firstRunUs / 1000).toFixed(1)} ms = ${p.totalMs.toFixed(1)} ms; first run ${p.firstRunRatio.toFixed(1)}× steady ${p.steadyUs.toFixed(0)} µs`);
    }
    const g = shrewStartup.best;
    log(`  1,000-node compile ${g.gen1000WarmMs.toFixed(1)} ms warm median (the < 10 ms target's figure), best of ${g.gen1000Processes} processes; ` +
        `its first compile ${g.gen1000FreshFirstMs?.toFixed(1) ?? "—"} ms in a fresh process${g.gen1000FreshProcesses ? ` (best of ${g.gen1000FreshProcesses})` : ""}, ` +
        `${g.gen1000FirstMs.toFixed(1)} ms after mlp's compiles and runs`);
  }
}

// ---------------------------------------------------------------- memory probes
if (MEMORY && !CELLS_ONLY) {
  log("\nmemory probes (fresh process per runtime and cell)");
  const exec = promisify(execFile);
  for (const c of cells) {
    for (const row of c.results) {
      const r = ready.find((x) => x.id === row.runtime);
      if (!r || !r.createSession || row.status === "skipped" || row.status === "failed") continue;
      try {
        const { stdout } = await exec(process.execPath, [path.join(HERE, "probe-memory.mjs"), row.runtime, c.workload, String(c.batch)], {
          timeout: 300_000,
        });
        row.probe = JSON.parse(stdout.trim().split("\n").pop() ?? "{}");
        if (!row.memory && row.probe.reported) row.memory = row.probe.reported;
      } catch (e) {
        log(`  probe ${row.runtime} ${c.workload}/${c.batch} failed: ${errText(e)}`);
      }
    }
  }
}

// ---------------------------------------------------------------- output
const cpu = os.cpus()[0]?.model ?? "?";
const results = {
  meta: {
    date: new Date().toISOString(),
    quick: QUICK,
    node: process.versions.node,
    v8: process.versions.v8,
    platform: `${process.platform}-${process.arch}`,
    cpu,
    cores: os.cpus().length,
    nice: os.getPriority(),
    loadAvgStart,
    loadAvgEnd: os.loadavg()[0],
    rtol: RTOL,
    reference: REFERENCE_RUNNER,
    options: OPTIONS,
    memoryProbes: MEMORY,
    processes: PROCESSES,
  },
  runtimes,
  cells,
  shrewStartup,
  xnnAlone,
  sizes: downloadSizes(),
};
writeFileSync(args.out, JSON.stringify(results, null, 2) + "\n");
process.stdout.write(renderMarkdown(results) + "\n");
log(`\nwrote ${path.relative(process.cwd(), args.out)}`);
// A runtime that failed in some of the --processes counts too: its row shows its other processes' figures.
const wrong = cells.flatMap((c) => c.results).filter((r) => r.status === "WRONG" || r.status === "failed" || r.failedProcesses);
if (wrong.length) {
  log(`${wrong.length} result(s) WRONG or failed`);
  process.exitCode = 1;
}
