// Shrew's JS call overhead (runners/shrew-wasm.mjs): the median of paired
// wall-time differences (a burst of public calls minus a burst of the same
// tape looped inside wasm, per run), its confidence interval, and whether the
// method resolved it at all.
import { quantile } from "./stats.mjs";

/**
 * Distribution-free confidence interval of the median of ascending-sorted
 * samples: the order statistics k and n+1−k (1-based), k the largest with
 * P(Binomial(n, ½) < k) ≤ alpha/2. Too few samples: (−∞, ∞).
 * @param {number[]} sorted @param {number} [alpha] @returns {[number, number]}
 */
export function medianCi(sorted, alpha = 0.05) {
  const n = sorted.length;
  let pmf = 0.5 ** n, cdf = 0, k = 0;
  for (let j = 0; j < n; j++) {
    cdf += pmf; // P(X ≤ j)
    if (2 * cdf > alpha) break;
    k = j + 1;
    pmf = (pmf * (n - j)) / (j + 1);
  }
  return k === 0 ? [-Infinity, Infinity] : [sorted[k - 1], sorted[n - k]];
}

/**
 * @param {number[]} diffsNs  paired differences, ns per run
 * @returns {{ jsCallOverheadNs: number, jsCallOverheadCiNs: [number, number] }} the median and its 95 % interval
 */
export function callOverhead(diffsNs) {
  const s = [...diffsNs].sort((a, b) => a - b);
  return { jsCallOverheadNs: quantile(s, 0.5), jsCallOverheadCiNs: medianCi(s) };
}

/**
 * The overhead the report shows, or NaN ("—") when the method did not resolve
 * it: a figure at or below zero is no time, and one whose interval reaches zero
 * is within the noise (on calls of milliseconds a burst is one call, whose own
 * jitter exceeds the overhead). Older results have no interval: sign only.
 * @param {number} ns @param {[number | null, number | null] | undefined} [ciNs]
 */
export function resolvedOverheadNs(ns, ciNs) {
  // (An infinite bound, too few pairs, reads back from JSON as null: not resolved either.)
  return ns > 0 && (!ciNs || ciNs[0] > 0) ? ns : NaN;
}
