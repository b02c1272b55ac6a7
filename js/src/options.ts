// The option objects of the public API (load, compile, loadBundle, run,
// interpret, ir, setDims' dims), checked in one place: every key known and
// every value of its documented type. A misspelt key, or "no" where a boolean
// belongs, would otherwise be ignored or coerced without a word.
import { ShrewRuntimeError } from "./errors.js";
import { checkWellFormed, describe, isNamedObject, setOwn } from "./plain.js";
import { didYouMean } from "./spelling.js";

/**
 * The largest `maxTensorBytes` (2^50 bytes): the JIT executor caps every
 * tensor there whatever the option says (src/jit/executor.cc) while the
 * interpreter takes the option as is, so a larger value would make the two
 * report different limits for the same tensor.
 */
export const MAX_TENSOR_BYTES_LIMIT = 2 ** 50;

/** Checks one option value and returns it as plain data, or throws naming the option. */
export type Rule = (value: unknown, name: string) => unknown;

export function invalid(name: string, must: string, value: unknown): ShrewRuntimeError {
  return new ShrewRuntimeError("invalid_argument", `${name} ${must}, got ${describe(value)}`);
}

/** A rule from a test; `plain` makes the accepted value plain data (a copy, a view). */
export function rule(must: string, test: (v: unknown) => boolean, plain: (v: never) => unknown = (v) => v): Rule {
  return (value, name) => {
    if (!test(value)) throw invalid(name, must, value);
    return plain(value as never);
  };
}

export const BOOLEAN = rule("must be true or false", (v) => typeof v === "boolean");

// JS numbers are exact integers only up to 2^53 - 1: a larger seed or size
// would not be the one the caller wrote.
const isCount = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;
export const COUNT = rule("must be a non-negative integer (at most 2^53 - 1)", isCount);

/** The largest seed: seeds are u64 (`@config { seed: -1; }` is 2^64 - 1). */
export const MAX_SEED = 2n ** 64n - 1n;

/**
 * A seed: a safe non-negative integer, or a bigint for any u64. It crosses
 * into wasm as its decimal digits, since a JS number there would round a
 * seed past 2^53 - 1.
 */
export const SEED: Rule = (value, name) => {
  if (isCount(value) || (typeof value === "bigint" && value >= 0n && value <= MAX_SEED)) return String(value);
  // A number past 2^53 - 1 may already be another one than was written.
  const hint = Number.isInteger(value) && (value as number) > 0 ? " (past 2^53 - 1 a number may be rounded: give the seed as a bigint)" : "";
  throw new ShrewRuntimeError("invalid_argument",
    `${name} must be a non-negative integer (a number of at most 2^53 - 1, or a bigint of at most 2^64 - 1), got ${describe(value)}${hint}`);
};
export const TENSOR_BYTES = rule("must be a non-negative integer (at most 2^50 = 1125899906842624)",
  (v) => isCount(v) && v <= MAX_TENSOR_BYTES_LIMIT);

/** `dims`, {name: size}: an own copy whose sizes are counts (a getter runs once). */
export const DIMS: Rule = (value, name) => {
  // A Map or Set keeps its entries out of its own keys: it read as no dims at all.
  if (!isNamedObject(value)) throw invalid(name, "must be an object {name: size}", value);
  const out: Record<string, number> = {};
  for (const key of Object.keys(value)) {
    checkWellFormed(key, `${name} name`);
    setOwn(out, key, COUNT((value as Record<string, unknown>)[key], `${name}.${key}`) as number);
  }
  return out;
};

/**
 * The options of `what` (a call: "compile", "run", …) as a plain object:
 * `options` must be an object (undefined: none), each own key one of
 * `rules` (the error lists them), each value that is not undefined accepted
 * by its rule. Known options are read once each, inherited ones included,
 * before any call into wasm; undefined values are left out (defaults).
 */
export function checkOptions(options: unknown, what: string, rules: Readonly<Record<string, Rule>>): Record<string, unknown> {
  if (options === undefined) return {};
  // A Map's entries are no own keys: compile(src, new Map([["dims", …]])) took every default.
  if (!isNamedObject(options)) throw invalid(`${what} options`, "must be an object", options);
  // for-in over own keys, not Object.keys/entries: no arrays per call (run's options).
  for (const key in options) {
    if (!Object.hasOwn(options, key)) continue;
    if (!Object.hasOwn(rules, key)) {
      const known = Object.keys(rules);
      throw new ShrewRuntimeError("invalid_argument", `unknown ${what} option '${key}'${didYouMean(key, known) || ";"} options: ${known.join(", ")}`);
    }
  }
  const out: Record<string, unknown> = {};
  for (const key in rules) {
    if (!Object.hasOwn(rules, key)) continue;
    const value = (options as Record<string, unknown>)[key];
    if (value !== undefined) out[key] = rules[key](value, key);
  }
  return out;
}
