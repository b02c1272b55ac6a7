// Warm-up and interleaved timing of in-process sessions.
// All sessions of one cell take turns (A B C A B C …, order reshuffled each
// round) so machine noise hits every runtime alike.
import { median } from "./stats.mjs";
import { mulberry32 } from "./rng.mjs";

/**
 * @typedef {Object} Entry
 * @property {string} id
 * @property {import("../runners/runner.mjs").Session} session
 * @property {number} [bestUs]        best warm-up chunk median
 * @property {number} [minRunsIfSlow] fewer timed runs suffice when a call takes > 100 ms (reference rows)
 * @property {number} [warmupCalls]
 * @property {number} [warmupMs]
 * @property {number[]} [timesUs]
 * @property {number} [burstWallUs]   total wall time of the timed bursts
 * @property {number} [burstCpuUs]    total process CPU time of the timed bursts
 * @property {Float32Array} [lastOutput]
 * @property {unknown} [error]        what its session threw; it took no further part in the cell's rounds
 */

/**
 * Runs one entry's share of a round; if its session throws, records the error
 * on the entry and returns false. One runtime's crash is its own: the others
 * of the cell go on and keep their timings.
 * @param {Entry} e @param {() => Promise<void>} turn @returns {Promise<boolean>}
 */
async function guarded(e, turn) {
  try {
    await turn();
    return true;
  } catch (err) {
    e.error = err;
    return false;
  }
}

/**
 * Times one call through the session's public API. Awaits only if the
 * library returned a promise, so sync APIs pay no extra microtask.
 * @param {import("../runners/runner.mjs").Session} session
 * @param {Float32Array} x
 * @returns {Promise<[number, Float32Array]>} [microseconds, output]
 */
export async function timeCall(session, x) {
  const t0 = performance.now();
  /** @type {any} */ let y = session.run(x);
  if (y && typeof y.then === "function") y = await y;
  const t1 = performance.now();
  return [(t1 - t0) * 1000, y];
}

/** @template T @param {T[]} xs @param {() => number} rand @returns {T[]} */
function shuffled(xs, rand) {
  const a = [...xs];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
}

/**
 * Warm-up until latency stops improving: each runtime runs chunks of calls
 * (~chunkMs each) in turn; a runtime is warm once it has spent ≥ minMs and its
 * chunk median has not improved by more than `improve` for `patience` chunks
 * (or after maxMs). V8 runs cold wasm 2–4× slower until tier-up finishes.
 * @param {Entry[]} entries
 * @param {Float32Array} x
 * @param {{ minMs: number, maxMs: number, chunkMs: number, patience: number, improve: number }} o
 */
export async function warmup(entries, x, o) {
  const rand = mulberry32(0x5eed);
  const state = new Map(entries.map((e) => [e, { best: Infinity, stale: 0, calls: 0, ms: 0, done: false }]));
  for (const e of entries) if (e.error !== undefined) /** @type {any} */ (state.get(e)).done = true;
  while ([...state.values()].some((s) => !s.done)) {
    for (const e of shuffled(entries, rand)) {
      const s = /** @type {any} */ (state.get(e));
      if (s.done) continue;
      /** @type {number[]} */
      const times = [];
      const c0 = performance.now();
      const ok = await guarded(e, async () => {
        do times.push((await timeCall(e.session, x))[0]);
        while (performance.now() - c0 < o.chunkMs);
      });
      s.calls += times.length;
      s.ms += performance.now() - c0;
      if (!ok) {
        s.done = true;
        continue;
      }
      const m = median(times);
      if (m < s.best * (1 - o.improve)) {
        s.best = m;
        s.stale = 0;
      } else {
        s.stale++;
      }
      if ((s.ms >= o.minMs && s.stale >= o.patience) || s.ms >= o.maxMs) s.done = true;
    }
  }
  for (const e of entries) {
    const s = /** @type {any} */ (state.get(e));
    e.bestUs = s.best;
    e.warmupCalls = s.calls;
    e.warmupMs = s.ms;
  }
}

/**
 * Timed phase: rounds in which every runtime (shuffled order) runs a short
 * burst of individually timed calls (~burstMs, at least one call), until each
 * has ≥ minRuns samples and ≥ minTimeMs have passed — or maxTimeMs have
 * passed (a very slow runtime, e.g. an interpreter, then reports fewer runs).
 * Each burst also adds up the process CPU time it used (process.cpuUsage, read
 * only at burst edges so calls are not slowed): on a loaded machine wall time
 * includes time the process waited for a core, CPU time does not. (CPU time
 * is process-wide: V8's GC and compiler threads count too.)
 * @param {Entry[]} entries
 * @param {Float32Array} x
 * @param {{ minRuns: number, minTimeMs: number, maxTimeMs: number, burstMs: number }} o
 */
export async function timedRounds(entries, x, o) {
  // An entry whose session threw (here or in the warm-up) sits out the rest of the rounds.
  const live = () => entries.filter((e) => e.error === undefined);
  if (live().length === 0) return;
  const rand = mulberry32(0xbe7c4);
  const burst = new Map(
    entries.map((e) => [e, Math.max(1, Math.min(1000, Math.round((o.burstMs * 1000) / (e.bestUs || 1e9))))]),
  );
  for (const e of live()) Object.assign(e, { timesUs: [], burstWallUs: 0, burstCpuUs: 0 });
  // A reference row whose calls take > 100 ms (the interpreter on the big
  // cells) may stop at its own smaller run count and leaves the rounds then,
  // so the other runtimes reach minRuns within the time limit.
  const runsFor = (/** @type {Entry} */ e) => (e.minRunsIfSlow && (e.bestUs ?? 0) > 100_000 ? e.minRunsIfSlow : o.minRuns);
  const t0 = performance.now();
  for (;;) {
    for (const e of shuffled(live(), rand)) {
      if (runsFor(e) < o.minRuns && /** @type {number[]} */ (e.timesUs).length >= runsFor(e)) continue;
      const n = /** @type {number} */ (burst.get(e));
      const c0 = process.cpuUsage();
      const w0 = performance.now();
      const ok = await guarded(e, async () => {
        for (let i = 0; i < n; i++) {
          const [us, y] = await timeCall(e.session, x);
          /** @type {number[]} */ (e.timesUs).push(us);
          e.lastOutput = y;
        }
      });
      if (!ok) continue;
      const wall = (performance.now() - w0) * 1000;
      const c = process.cpuUsage(c0);
      e.burstWallUs = /** @type {number} */ (e.burstWallUs) + wall;
      e.burstCpuUs = /** @type {number} */ (e.burstCpuUs) + c.user + c.system;
    }
    if (live().length === 0) break;
    const enough = live().every((e) => /** @type {number[]} */ (e.timesUs).length >= runsFor(e));
    const elapsed = performance.now() - t0;
    if ((enough && elapsed >= o.minTimeMs) || elapsed >= o.maxTimeMs) break;
  }
}
