// The heatmap's colour scale: spanned by the finite values only (one NaN or
// Inf made it "Infinity … -Infinity" and every cell one colour), with NaN,
// +Inf and -Inf cells drawn in colours of their own that viridis never uses.

export type Rgb = readonly [number, number, number];

export interface HeatScale {
  /** Least and greatest finite value; NaN when there is none. */
  lo: number;
  hi: number;
  /** How many cells are NaN, +Inf and -Inf. */
  nan: number;
  posInf: number;
  negInf: number;
}

export function heatScale(data: ArrayLike<number>): HeatScale {
  let lo = Infinity, hi = -Infinity, nan = 0, posInf = 0, negInf = 0;
  for (let i = 0; i < data.length; i++) {
    const v = data[i];
    if (Number.isFinite(v)) {
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    } else if (Number.isNaN(v)) nan++;
    else if (v > 0) posInf++;
    else negInf++;
  }
  return lo <= hi ? { lo, hi, nan, posInf, negInf } : { lo: NaN, hi: NaN, nan, posInf, negInf };
}

export const NAN_RGB: Rgb = [160, 160, 160];
export const POS_INF_RGB: Rgb = [255, 255, 255];
export const NEG_INF_RGB: Rgb = [0, 0, 0];

/** The colour of a non-finite cell. */
export function nonFiniteRgb(v: number): Rgb {
  return Number.isNaN(v) ? NAN_RGB : v > 0 ? POS_INF_RGB : NEG_INF_RGB;
}

/** Where a finite value sits on the scale, 0..1 (the middle when all finite values are equal). */
export function scalePosition(v: number, s: HeatScale): number {
  if (!(s.hi > s.lo)) return 0.5;
  // A span past the largest double (f64 values from -1e308 to 1e308) is taken
  // in halves: Infinity / Infinity was NaN, a colour of no index.
  const u = Number.isFinite(s.hi - s.lo) ? (v - s.lo) / (s.hi - s.lo) : (v / 2 - s.lo / 2) / (s.hi / 2 - s.lo / 2);
  return Math.min(1, Math.max(0, u));
}

// A few stops of matplotlib's viridis, linearly interpolated.
const STOPS = [[68, 1, 84], [59, 82, 139], [33, 145, 140], [94, 201, 98], [253, 231, 37]];
export function viridis(u: number): Rgb {
  const x = Math.min(1, Math.max(0, u)) * (STOPS.length - 1);
  const i = Math.min(STOPS.length - 2, Math.floor(x)), f = x - i;
  const a = STOPS[i], b = STOPS[i + 1];
  return [0, 1, 2].map((k) => Math.round(a[k] + (b[k] - a[k]) * f)) as unknown as Rgb;
}
