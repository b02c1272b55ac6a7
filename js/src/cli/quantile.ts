// Order statistics of `shrew bench`'s timings.

/**
 * The q-quantile (0 ≤ q ≤ 1) of ascending-sorted samples, interpolated
 * linearly between the two nearest ranks, as the benchmark package's
 * figures are (bench/lib/stats.mjs): the median of an even count is the mean
 * of the two middle values (of [1, 2, 4, 10], 3). NaN for no samples.
 */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return NaN;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos), hi = Math.ceil(pos);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}
