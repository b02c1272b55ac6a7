// Merges the cells of several whole runs, each in its own Node process, into
// one: per cell, every runtime keeps its row from the process where its median
// was lowest.
//
// Why: on some VMs a Node process's wasm code runs at one of two speeds for
// its whole life (mlp/64: 1.8 or 2.8 ms for Shrew, 2.6 or 5.4 ms for TF.js),
// independent of the core it is pinned to, of V8's tiers and threads, and
// of which runtime it is (native 128-bit SIMD code shows it too: a state of
// the host's core, bench/README.md); interleaving inside one process cannot
// even that out. Noise only ever adds, so each runtime's best process is its figure.
import { rankAgainstPeers } from "./rank.mjs";

// A WRONG row in any process stays: one wrong result is a wrong runtime. A
// failed row (the runtime threw: its own error, lib/entry-row.mjs) stays only
// if the runtime failed in every process; otherwise the row is its best
// process's, with `failedProcesses` and the first `failedError` kept as a note,
// so a crash in one process neither hides the others' figures nor goes unseen.

/**
 * @param {any[][]} runs  `cells` of each process's results, same workloads and runtimes in each
 * @returns {any[]} cells like one run's, each row with `processMedians` (µs, one per process; NaN where
 *   it failed) and, if it failed in some processes, `failedProcesses` (how many) and `failedError`
 */
export function mergeBestProcess(runs) {
  if (runs.length === 0) return [];
  return runs[0].map((cell) => {
    const same = runs.map((cells) => cells.find((c) => c.workload === cell.workload && c.batch === cell.batch));
    const rows = cell.results.map((/** @type {any} */ first) => {
      const candidates = same.map((c) => c?.results.find((/** @type {any} */ r) => r.runtime === first.runtime)).filter(Boolean);
      const processMedians = candidates.map((r) => r.medianUs ?? NaN);
      const wrong = candidates.find((r) => r.status === "WRONG");
      const failed = candidates.filter((r) => r.status === "failed");
      const ok = candidates.filter((r) => r.status === "ok" && Number.isFinite(r.medianUs));
      const chosen = wrong ?? (ok.length ? ok.reduce((a, b) => (b.medianUs < a.medianUs ? b : a)) : failed[0] ?? first);
      const row = { ...chosen, processMedians };
      if (failed.length) Object.assign(row, { failedProcesses: failed.length, failedError: failed[0].error });
      delete row.ratioToBestPeer;
      delete row.cpuRatioToBestPeer;
      return row;
    });
    rankAgainstPeers(rows);
    return { ...cell, results: rows };
  });
}
