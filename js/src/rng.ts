// The seeded generator of random inputs, shared by the CLI and the web
// playground so both make the same inputs for the same seed.

/** splitmix32-style generator: deterministic for a seed. */
export class Rng {
  #s: number;
  constructor(seed: number) {
    this.#s = (seed >>> 0) ^ 0x9e3779b9;
  }
  /** Uniform in [0, 1). */
  next(): number {
    let z = (this.#s = (this.#s + 0x9e3779b9) >>> 0);
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    z = (z ^ (z >>> 16)) >>> 0;
    return z / 4294967296;
  }
}
