// Output comparison against the reference runtime (onnxruntime-web).

/** Relative tolerance: max |y − ref| must be ≤ RTOL · max |ref|. */
export const RTOL = 1e-4;

/**
 * @param {Float32Array} out
 * @param {Float32Array} ref
 * @returns {{ maxAbsDiff: number, relErr: number, ok: boolean, reason?: string }}
 */
export function compareOutputs(out, ref, rtol = RTOL) {
  if (out.length !== ref.length) {
    return { maxAbsDiff: Infinity, relErr: Infinity, ok: false, reason: `length ${out.length} ≠ ${ref.length}` };
  }
  let maxAbs = 0;
  let refMax = 0;
  for (let i = 0; i < ref.length; i++) {
    const d = Math.abs(out[i] - ref[i]);
    if (!(d <= maxAbs)) maxAbs = Number.isNaN(d) ? Infinity : d; // NaN counts as infinitely wrong
    const r = Math.abs(ref[i]);
    if (r > refMax) refMax = r;
  }
  const relErr = maxAbs / Math.max(refMax, Number.MIN_VALUE);
  return { maxAbsDiff: maxAbs, relErr, ok: relErr <= rtol };
}
