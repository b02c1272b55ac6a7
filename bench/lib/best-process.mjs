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

/** A WRONG or failed row in any process stays: one wrong result is a wrong runtime. */
const BAD = new Set(["WRONG", "failed"]);

/**
 * @param {any[][]} runs  `cells` of each process's results, same workloads and runtimes in each
 * @returns {any[]} cells like one run's, each row with `processMedians` (µs, one per process)
 */
export function mergeBestProcess(runs) {
  if (runs.length === 0) return [];
  return runs[0].map((cell) => {
    const same = runs.map((cells) => cells.find((c) => c.workload === cell.workload && c.batch === cell.batch));
    const rows = cell.results.map((/** @type {any} */ first) => {
      const candidates = same.map((c) => c?.results.find((/** @type {any} */ r) => r.runtime === first.runtime)).filter(Boolean);
      const processMedians = candidates.map((r) => r.medianUs ?? NaN);
      const bad = candidates.find((r) => BAD.has(r.status));
      const ok = candidates.filter((r) => r.status === "ok" && Number.isFinite(r.medianUs));
      const chosen = bad ?? (ok.length ? ok.reduce((a, b) => (b.medianUs < a.medianUs ? b : a)) : first);
      const row = { ...chosen, processMedians };
      delete row.ratioToBestPeer;
      delete row.cpuRatioToBestPeer;
      return row;
    });
    rankAgainstPeers(rows);
    return { ...cell, results: rows };
  });
}
