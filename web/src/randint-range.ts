// The check of a "random integers" range [lo, hi) against its input's dtype,
// with the message the Run tab shows next to the fields and the worker
// throws: the CLI's table (`randint:LO:HI`), so both refuse the same ranges.
import { RANDINT_RANGE, randintFits } from "../../js/dist/randint.js";

/** Why [lo, hi) cannot fill input `input` of dtype `dtype`, or undefined when it can. */
export function randintProblem(input: string, dtype: string, lo: number, hi: number): string | undefined {
  if (!Number.isSafeInteger(lo) || !Number.isSafeInteger(hi)) {
    return `input '${input}': the range [${lo}, ${hi}) needs whole numbers within ±(2^53 − 1)`;
  }
  if (hi <= lo) return `input '${input}': the range [${lo}, ${hi}) is empty: low must be less than high (high is excluded)`;
  if (randintFits(dtype, lo, hi)) return undefined;
  const [min, max] = RANDINT_RANGE[dtype];
  // i64/u64 bounds go through JS numbers, exact only up to 2^53 - 1 (so high stops there too).
  const wide = dtype === "i64" || dtype === "u64";
  const holds = wide ? `${min}..${max} for random bounds, where JS numbers stay exact` : `${min}..${max}`;
  return `input '${input}' is ${dtype} (${holds}): random integers in [${lo}, ${hi}) do not fit; ` +
    `the widest range is [${min}, ${wide ? max : max + 1}) (high is excluded)`;
}
