// The start-up figures reported for one way of starting, over its fresh
// processes: each figure its best over them, and first run ÷ steady state
// computed from the two figures printed.
import { bestPerField } from "./stats.mjs";

/**
 * `bestPerField` of `figures` (which must read `firstRunUs` and `steadyUs`),
 * plus `firstRunRatio` = best first run ÷ best steady run.
 *
 * Why not the lowest of the processes' own ratios: the minimum of a ratio
 * selects the process whose steady run (the denominator) noise inflated most,
 * so it reads low, and it is not first ÷ steady of the figures printed beside
 * it. Each printed figure is its own minimum over the processes (noise only
 * adds, so that is its best estimate), and their quotient selects nothing on
 * the ratio itself. Taking all figures from one process (say the one with the
 * best total) would instead make first run and steady run single samples
 * again, picked by a total that is mostly load and compile.
 * @param {any[]} runs  one result per fresh process
 * @param {Record<string, (r: any) => number>} figures  name → how to read it from a run
 * @returns {Record<string, number>}
 */
export function bestStartup(runs, figures) {
  const best = bestPerField(runs, figures);
  return { ...best, firstRunRatio: best.firstRunUs / best.steadyUs };
}
