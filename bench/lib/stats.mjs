// Order statistics over latency samples.

/** Linear-interpolated quantile of an ascending-sorted array. @param {number[]} sorted @param {number} q */
export function quantile(sorted, q) {
  if (sorted.length === 0) return NaN;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

/** @param {number[]} xs */
export function median(xs) {
  return quantile([...xs].sort((a, b) => a - b), 0.5);
}

/**
 * @param {number[]} timesUs
 * @returns {{ runs: number, medianUs: number, p10Us: number, p90Us: number, minUs: number, meanUs: number }}
 */
export function summarize(timesUs) {
  const s = [...timesUs].sort((a, b) => a - b);
  return {
    runs: s.length,
    medianUs: quantile(s, 0.5),
    p10Us: quantile(s, 0.1),
    p90Us: quantile(s, 0.9),
    minUs: s[0] ?? NaN,
    meanUs: s.reduce((a, b) => a + b, 0) / (s.length || 1),
  };
}

/**
 * Each figure's best (lowest) value over repeated runs, figure by figure:
 * noise from other processes only ever adds.
 * @param {any[]} runs @param {Record<string, (r: any) => number>} figures name → how to read it from a run
 * @returns {Record<string, number>}
 */
export function bestPerField(runs, figures) {
  return Object.fromEntries(Object.entries(figures).map(([name, read]) => [name, Math.min(...runs.map(read))]));
}
