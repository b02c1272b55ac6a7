// Seeded, platform-independent random numbers for weights and inputs.
// Every runtime gets exactly the same Float32Array contents.

/**
 * 32-bit FNV-1a hash of a string: turns a name ("mlp/w1") into a seed.
 * @param {string} s
 * @returns {number}
 */
export function hashSeed(s) {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/**
 * mulberry32: tiny, fast, good-enough generator; returns floats in [0, 1).
 * @param {number} seed
 * @returns {() => number}
 */
export function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A Float32Array of `n` values drawn from U[lo, hi) with a generator seeded by `key`.
 * Each tensor has its own seed, so adding or reordering tensors never changes the others.
 * @param {string} key
 * @param {number} n
 * @param {number} lo
 * @param {number} hi
 * @returns {Float32Array}
 */
export function uniform(key, n, lo, hi) {
  const next = mulberry32(hashSeed(key));
  const out = new Float32Array(n);
  const span = hi - lo;
  for (let i = 0; i < n; i++) out[i] = lo + span * next();
  return out;
}

/** @param {number[]} shape */
export function numel(shape) {
  return shape.reduce((a, b) => a * b, 1);
}
