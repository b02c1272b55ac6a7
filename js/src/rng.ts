// The seeded generator of random inputs, shared by the CLI and the web
// playground so both make the same inputs for the same seed.

/** splitmix32-style generator with a 64-bit seed: deterministic for a seed. */
export class Rng {
  #s: number;  // the counter, from the seed's low 32 bits
  #k: number;  // the key, from its high 32 bits: 0 for a seed below 2^32
  /**
   * No two seeds modulo 2^64 draw the same stream: the low 32 bits start
   * the counter, the high 32 key every draw (folded into the counter, as
   * they were, seeds 2^32 apart and others, such as 1364076727 and 2^32,
   * drew the same inputs). Seeds below 2^32 draw what they always drew.
   * A bigint seed is taken modulo 2^64 (a program's seed is a u64) and
   * draws what the number of the same value draws.
   */
  constructor(seed: number | bigint) {
    // 1.5 drew what 1 draws, NaN and Infinity what 0 draws: not seeds.
    if (typeof seed === "number" && !Number.isInteger(seed)) throw new RangeError(`Rng: the seed must be an integer or a bigint, got ${seed}`);
    if (typeof seed !== "number" && typeof seed !== "bigint") {
      throw new TypeError(`Rng: the seed must be an integer or a bigint, got ${String(seed)} (${typeof seed})`);
    }
    let low: number, high: number;
    // A negative integer too goes modulo 2^64 (it took high = 0: -1 drew
    // other values than 2^64 - 1 and -1n); the others draw as they did.
    if (typeof seed === "number" && Number.isInteger(seed) && seed < 0) seed = BigInt(seed);
    if (typeof seed === "bigint") {
      low = Number(BigInt.asUintN(32, seed));
      high = Number(BigInt.asUintN(32, seed >> 32n));
    } else {
      low = seed >>> 0;
      high = seed >= 4294967296 ? Math.floor(seed / 4294967296) % 4294967296 : 0;
    }
    this.#s = (low ^ 0x9e3779b9) >>> 0;
    this.#k = mix32(high);
  }
  /** Uniform in [0, 1). */
  next(): number {
    return this.#u32() / 4294967296;
  }
  /**
   * Uniform integer in [lo, hi), for safe integers lo < hi. A range of at
   * most 2^32 values takes one draw, `lo + floor(next() * (hi - lo))`; a
   * wider one takes two as one 64-bit value, by rejection (one draw reached
   * only 2^32 of the values: over [0, 2^53) every one was odd).
   */
  int(lo: number, hi: number): number {
    if (!Number.isSafeInteger(lo) || !Number.isSafeInteger(hi) || hi <= lo) {
      throw new RangeError(`Rng.int: needs safe integers lo < hi, got ${lo} and ${hi}`);
    }
    if (hi - lo <= 4294967296) return lo + Math.floor(this.next() * (hi - lo));
    const span = BigInt(hi) - BigInt(lo);
    const limit = (1n << 64n) - ((1n << 64n) % span);  // a multiple of span: no value drawn more often
    for (;;) {
      const v = (BigInt(this.#u32()) << 32n) | BigInt(this.#u32());
      if (v < limit) return Number(BigInt(lo) + (v % span));
    }
  }
  #u32(): number {
    const z = mix32((this.#s = (this.#s + 0x9e3779b9) >>> 0));
    // Keyed, mixed again: two streams' draws then differ by no fixed pattern
    // (xor-ing the key alone equates counters a top bit apart).
    return this.#k === 0 ? z : mix32((z ^ this.#k) >>> 0);
  }
}

/** murmur3's 32-bit finaliser: a bijection with mix32(0) = 0. */
function mix32(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}
