// The values a random-integer input ([LO, HI)) may draw for each declared
// integer dtype: shared by the CLI's `--input NAME=randint:LO:HI` and the
// playground's "random integers", so both refuse the same ranges (a value
// outside its dtype was stored wrapped).

/** Per dtype, the least and greatest value; i64/u64 stop at ±(2^53 - 1), where JS numbers stop being exact. */
export const RANDINT_RANGE: Readonly<Record<string, readonly [number, number]>> = {
  bool: [0, 1], u8: [0, 255], i8: [-128, 127], i16: [-32768, 32767], u16: [0, 65535],
  i32: [-(2 ** 31), 2 ** 31 - 1], u32: [0, 2 ** 32 - 1],
  i64: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER], u64: [0, Number.MAX_SAFE_INTEGER],
};

/** True when every value of [lo, hi) (safe integers) fits `dtype`; a dtype without a range (a float) takes any. */
export function randintFits(dtype: string, lo: number, hi: number): boolean {
  const range = Object.hasOwn(RANDINT_RANGE, dtype) ? RANDINT_RANGE[dtype] : undefined;
  return range === undefined || (lo >= range[0] && hi - 1 <= range[1]);
}
