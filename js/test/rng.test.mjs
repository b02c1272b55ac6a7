// The seeded generator of the CLI's and the playground's random inputs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Rng } from "../dist/index.js";

/** The generator as it stood for seeds below 2^32, written out: those seeds keep their inputs. */
function reference(seed, n) {
  let s = (seed ^ 0x9e3779b9) >>> 0;
  const out = [];
  for (let i = 0; i < n; i++) {
    let z = (s = (s + 0x9e3779b9) >>> 0);
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    out.push(((z ^ (z >>> 16)) >>> 0) / 4294967296);
  }
  return out;
}

const draw = (seed, n = 4) => {
  const r = new Rng(seed);
  return Array.from({ length: n }, () => r.next());
};

test("seeds below 2^32 draw what they always drew, uniform in [0, 1)", () => {
  for (const seed of [0, 1, 5, 42, 2 ** 31, 2 ** 32 - 1]) assert.deepEqual(draw(seed), reference(seed, 4), String(seed));
  const many = draw(7, 10_000);
  assert.ok(many.every((v) => v >= 0 && v < 1));
  const mean = many.reduce((a, v) => a + v, 0) / many.length;
  assert.ok(Math.abs(mean - 0.5) < 0.02, String(mean));
});

test("every bit of a seed counts: seeds 2^32 apart draw different inputs, each the same every time", () => {
  for (const [a, b] of [[0, 2 ** 32], [5, 2 ** 32 + 5], [5, 2 ** 52 + 5], [2 ** 33, 2 ** 34]]) {
    assert.notDeepEqual(draw(a), draw(b), `${a} vs ${b}`);
  }
  assert.deepEqual(draw(2 ** 53 - 1), draw(2 ** 53 - 1));
  // The high 32 bits were folded into the 32-bit counter: mix32(1) = 1364076727 started
  // where 2^32 did, and seeds whose high words' mixes differed in the top bit only drew
  // the same stream from counters a top bit apart. Each is its own stream now.
  assert.notDeepEqual(draw(1364076727), draw(2 ** 32));
  assert.notDeepEqual(draw(1364076727, 1), draw(2 ** 32, 1));
  for (const high of [1, 2, 3, 0xffffffff]) {
    const a = draw(high * 2 ** 32 + 5, 64), b = draw(high * 2 ** 32 + 5 + 2 ** 31, 64);
    assert.ok(a.every((v, i) => v !== b[i]), `high ${high}`);
  }
  // Distinct seeds over the high bits give distinct first draws (none of 1,000 collide).
  const firsts = new Set(Array.from({ length: 1000 }, (_, k) => draw(k * 2 ** 32 + 3, 1)[0]));
  assert.equal(firsts.size, 1000);
});

test("a bigint seed draws what the number of its value draws; past 2^53 each one its own", () => {
  for (const seed of [0, 5, 2 ** 32 - 1, 2 ** 32 + 5, 2 ** 52 + 5, 2 ** 53 - 1]) assert.deepEqual(draw(BigInt(seed)), draw(seed), String(seed));
  const MAX = 2n ** 64n - 1n;
  assert.deepEqual(draw(MAX), draw(MAX));
  assert.notDeepEqual(draw(MAX), draw(MAX - 1n));
  assert.notDeepEqual(draw(2n ** 53n + 1n), draw(2n ** 53n));
  assert.notDeepEqual(draw(MAX), draw(2n ** 32n - 1n));  // the high 32 bits count
  assert.deepEqual(draw(-1n), draw(MAX));  // modulo 2^64, as a program's seed
});

test("a negative number draws what the bigint of its value draws (modulo 2^64)", () => {
  for (const seed of [-1, -5, -(2 ** 32), -(2 ** 32) - 7, -(2 ** 53) + 1]) {
    assert.deepEqual(draw(seed), draw(BigInt(seed)), String(seed));
  }
  assert.deepEqual(draw(-1), draw(2n ** 64n - 1n));
  assert.notDeepEqual(draw(-1), draw(2 ** 32 - 1));  // -1 took high = 0: the same as 2^32 - 1
});

test("int(lo, hi): ranges of at most 2^32 values draw lo + floor(next() * (hi - lo)); wider ones reach every value", () => {
  const a = new Rng(9), b = new Rng(9);
  for (let i = 0; i < 200; i++) assert.equal(a.int(-3, 7), -3 + Math.floor(b.next() * 10));
  const c = new Rng(9), d = new Rng(9);
  for (let i = 0; i < 50; i++) assert.equal(c.int(0, 2 ** 32), Math.floor(d.next() * 2 ** 32));
  // Over [0, 2^53 - 1) one 32-bit draw made values of 2^21 apart: every one odd or every one even.
  const r = new Rng(3);
  const xs = Array.from({ length: 4000 }, () => r.int(0, 2 ** 53 - 1));
  assert.ok(xs.every((x) => Number.isSafeInteger(x) && x >= 0 && x < 2 ** 53 - 1));
  for (let bit = 0; bit < 21; bit++) {
    const ones = xs.filter((x) => Math.floor(x / 2 ** bit) % 2 === 1).length / xs.length;
    assert.ok(Math.abs(ones - 0.5) < 0.05, `bit ${bit}: ${ones}`);
  }
  // The whole safe range (2^54 - 2 values: more than a double's 53 bits).
  const w = new Rng(4);
  const ys = Array.from({ length: 400 }, () => w.int(-(2 ** 53 - 1), 2 ** 53 - 1));
  assert.ok(ys.every((y) => Number.isSafeInteger(y) && y >= -(2 ** 53 - 1) && y < 2 ** 53 - 1));
  assert.ok(ys.some((y) => y < 0) && ys.some((y) => y > 0) && ys.some((y) => y % 2 !== 0) && ys.some((y) => y % 2 === 0));
  for (const [lo, hi] of [[1, 1], [2, 1], [0.5, 2], [0, 2 ** 53]]) assert.throws(() => new Rng(1).int(lo, hi), RangeError);
});

test("a seed that is not an integer is refused (1.5 drew what 1 draws, NaN and Infinity what 0 draws)", () => {
  for (const bad of [1.5, NaN, Infinity, -Infinity]) assert.throws(() => new Rng(bad), RangeError, String(bad));
  for (const bad of ["3", null, undefined]) assert.throws(() => new Rng(bad), TypeError, String(bad));
  assert.deepEqual(draw(-0), draw(0));
});
