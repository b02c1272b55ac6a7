// Input tensors for a run: seeded random exactly like `shrew run --seed S`
// (one generator over the inputs in declaration order; floats uniform in
// [-1, 1), bools 0/1, integers uniform in [lo, hi)), or numbers pasted as
// JSON or separated by spaces/commas. Pasted inputs draw nothing from the
// generator, like the CLI's .npy inputs.
import { Rng, Tensor, type DType, type Signature, type TensorSpec } from "../../js/dist/shrew.min.js";
import { RUN_DTYPES, UNKNOWN_DEFAULT, type InputSource, type OutputTensor } from "./protocol.js";
import { own, record } from "./own.js";
import { randintProblem } from "./randint-range.js";

// Declared dtype -> the JS storage dtype (the CLI's table).
const JS_DTYPE: Record<string, DType> = {
  f32: "f32", f16: "f32", bf16: "f32", f64: "f64", i32: "i32", i16: "i32", i8: "i32",
  i64: "i64", u16: "i64", u32: "i64", u64: "i64", u8: "u8", bool: "bool",
};

/**
 * A shape typed as sizes separated by commas or spaces ("2,3", "[2, 3]"); empty is a scalar.
 * A bad entry is an error naming the input.
 */
export function parseShape(input: string, text: string): number[] {
  const t = text.trim().replace(/^\[(.*)\]$/s, "$1").trim();
  if (t === "") return [];
  const parts = t.split(/\s*,\s*|\s+/);
  const bad = parts.find((d) => !/^\d+$/.test(d) || !Number.isSafeInteger(Number(d)));
  if (bad !== undefined) {
    throw new Error(`input '${input}': the shape '${text.trim()}' is not a list of sizes like 2,3 (each a non-negative integer; empty for a scalar): '${bad}'`);
  }
  return parts.map(Number);
}

/**
 * An input as it runs: one of unknown type (`?`) takes the dtype and shape
 * chosen for it (the graph is compiled for them), others are as declared.
 */
export function runSpec(spec: TensorSpec, src: InputSource): TensorSpec {
  if (spec.dtype !== null && spec.shape !== null) return spec;
  const dtype = spec.dtype ?? src.dtype ?? UNKNOWN_DEFAULT.dtype;
  if (spec.dtype === null && !RUN_DTYPES.includes(dtype as DType)) {
    throw new Error(`input '${spec.name}': dtype '${dtype}' is not one of ${RUN_DTYPES.join(", ")}`);
  }
  const shape = spec.shape ?? parseShape(spec.name, src.shape ?? UNKNOWN_DEFAULT.shape);
  return { ...spec, dtype, shape } as TensorSpec;
}

/**
 * Concrete shape of an input: symbolic dims from `dims` (unbound ones = 1, as
 * the CLI), the k-th `?` dim from sizes[k] (default 1).
 */
export function concreteShape(spec: TensorSpec, dims: Record<string, number>, sizes: readonly number[] = []): number[] {
  const bad = sizes.findIndex((n) => !Number.isSafeInteger(n) || n < 0);
  if (bad >= 0) throw new Error(`input '${spec.name}': the size of its ? dim ${bad} is ${sizes[bad]}, not a non-negative integer`);
  let k = 0;
  return (spec.shape ?? []).map((d) => (typeof d === "number" ? d : typeof d === "string" ? own(dims, d) ?? 1 : sizes[k++] ?? 1));
}

// A decimal number as written: Number() also reads 0x10, 0b11 and 0o7 (as 16, 3 and 7).
const DECIMAL = /^[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?$/;  // one way to split digits: no backtracking on a long bad token

/** A finite number written as `text`; one past the largest double (1e400) would be ±Infinity unasked. */
function finite(n: number, text: string): number {
  if (!Number.isFinite(n)) throw new Error(`'${text}' is beyond the largest number (about 1.8e308): write inf or -inf for an infinity`);
  return n;
}

/** One pasted token as a number: a decimal, inf, -inf, infinity and nan (any case), or true and false (1 and 0, as in a JSON array). */
function parseToken(s: string): number {
  const special = /^([-+]?)(inf|infinity|nan)$/i.exec(s);
  if (special) return special[2].toLowerCase() === "nan" ? NaN : special[1] === "-" ? -Infinity : Infinity;
  if (s === "true" || s === "false") return s === "true" ? 1 : 0;
  if (!DECIMAL.test(s)) throw new Error(`not a number: '${s}'`);
  return finite(Number(s), s);
}

/**
 * Pasted numbers: each value, the text it was written as (i64 values are
 * read from it: a JS number holds integers exactly only below 2^53), and,
 * for a nested JSON array, its shape (null for a flat list or JSON array).
 */
export interface Pasted {
  values: number[];
  texts: string[];
  shape: number[] | null;
}

// JSON number and boolean tokens, in text order (the leaves of a valid JSON array of numbers).
const JSON_LEAF = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false/g;

/** Parses pasted numbers: a (nested) JSON array or numbers separated by whitespace/commas. */
export function parseNumbers(text: string): Pasted {
  const t = text.trim();
  if (t === "") return { values: [], texts: [], shape: null };
  if (t.startsWith("[")) {
    const values: number[] = [];
    // Length of the arrays at each depth; -1 where a number sits (a ragged array is an error).
    const dims: number[] = [];
    const walk = (v: unknown, depth: number): void => {
      const here = Array.isArray(v) ? v.length : -1;
      if (depth === dims.length) dims.push(here);
      else if (dims[depth] !== here) throw new Error("a ragged JSON array: its rows differ in length or depth");
      if (Array.isArray(v)) v.forEach((x) => walk(x, depth + 1));
      else if (typeof v === "number") values.push(v);
      else if (typeof v === "boolean") values.push(v ? 1 : 0);
      else throw new Error(`not a number: ${JSON.stringify(v)}`);
    };
    let parsed: unknown;
    try {
      parsed = JSON.parse(t);
    } catch (e) {
      throw new Error(`not a JSON array: ${(e as Error).message}`);
    }
    walk(parsed, 0);
    const texts = t.match(JSON_LEAF) ?? [];
    // JSON has no Infinity: one in the values is a literal past the largest double.
    values.forEach((v, i) => finite(v, texts[i] ?? String(v)));
    const shape = dims.filter((d) => d >= 0);
    // An empty innermost array leaves no number depth: its shape is the arrays' lengths.
    return { values, texts, shape: shape.length > 1 ? shape : null };
  }
  // Values are separated by whitespace or one comma (spaces around it or not).
  // Two commas with nothing between leave a value out: an error naming it ("1,,2"
  // was read as [1, 2]). One comma at either end (a list copied with its
  // trailing comma) separates nothing: no value.
  const body = t.replace(/^,\s*/, "").replace(/\s*,$/, "");
  const texts = body === "" ? [] : body.split(/\s*,\s*|\s+/);
  const empty = texts.indexOf("");
  if (empty >= 0) throw new Error(`element ${empty} is empty: there is nothing between two commas`);
  return { values: texts.map(parseToken), texts, shape: null };
}

// The values each declared integer dtype holds. i64 and u64 are read as BigInt
// (u64 only up to 2^63 - 1: the JS tensor stores it in a BigInt64Array).
const INT_RANGE: Record<string, [number, number]> = {
  i8: [-128, 127], i16: [-32768, 32767], i32: [-2147483648, 2147483647], u8: [0, 255], u16: [0, 65535],
  u32: [0, 4294967295], bool: [0, 1],
};
const BIG_RANGE: Record<string, [bigint, bigint]> = {
  i64: [-(2n ** 63n), 2n ** 63n - 1n], u64: [0n, 2n ** 63n - 1n],
};

/**
 * An integer token as a BigInt (also 1.0 and 1e18, which are integers), read
 * exactly from its digits: past 2^53 a double may not hold it (1e18 was
 * refused as "not an integer"); undefined if it is none.
 */
function bigIntOf(text: string, value: number): bigint | undefined {
  if (/^[-+]?\d+$/.test(text)) return BigInt(text);
  if (text === "true" || text === "false") return BigInt(value);
  const m = /^([-+]?)(\d*)(?:\.(\d*))?(?:[eE]([-+]?\d+))?$/.exec(text);
  if (!m || (m[2] === "" && (m[3] ?? "") === "")) return Number.isSafeInteger(value) ? BigInt(value) : undefined;
  // digits × 10^(exponent − fraction digits); an integer when the shift is
  // not negative or drops only zeros. Exponents past 30 make no i64.
  const fraction = m[3] ?? "";
  const shift = Number(m[4] ?? "0") - fraction.length;
  const digits = (m[2] + fraction).replace(/^0+(?=\d)/, "");
  if (!/[1-9]/.test(digits)) return 0n;
  if (shift > 30) return undefined;
  let v: bigint;
  if (shift >= 0) {
    v = BigInt(digits) * 10n ** BigInt(shift);
  } else {
    const kept = digits.length + shift;
    if (/[1-9]/.test(digits.slice(Math.max(0, kept)))) return undefined;  // a fraction: not an integer
    v = kept > 0 ? BigInt(digits.slice(0, kept)) : 0n;
  }
  return m[1] === "-" ? -v : v;
}

/** The pasted values of one input, checked against its shape and declared dtype. */
function pastedValues(spec: TensorSpec, text: string, shape: number[], n: number): number[] | bigint[] {
  let p: Pasted;
  try {
    p = parseNumbers(text);
  } catch (e) {
    throw new Error(`input '${spec.name}': ${(e as Error).message}`);
  }
  // A nested array must have the input's shape (a flat list only its element count).
  if (p.shape && (p.shape.length !== shape.length || p.shape.some((d, i) => d !== shape[i]))) {
    throw new Error(`input '${spec.name}': expected shape [${shape.join(", ")}], got a nested array of shape [${p.shape.join(", ")}]`);
  }
  const { values } = p;
  if (values.length !== n) {
    throw new Error(`input '${spec.name}' needs ${n} values for shape [${shape.join(", ")}], got ${values.length}`);
  }
  const big = own(BIG_RANGE, spec.dtype ?? "");
  if (big) {
    const out: bigint[] = [];
    for (let i = 0; i < n; i++) {
      const v = bigIntOf(p.texts[i] ?? "", values[i]);
      if (v === undefined || v < big[0] || v > big[1]) {
        throw new Error(`input '${spec.name}' is ${spec.dtype}: element ${i} is ${p.texts[i]}, not an integer in [${big[0]}, ${big[1]}]`);
      }
      out.push(v);
    }
    return out;
  }
  const range = own(INT_RANGE, spec.dtype ?? "");
  if (range) {
    const bad = values.findIndex((v) => !Number.isInteger(v) || v < range[0] || v > range[1]);
    if (bad >= 0) {
      throw new Error(`input '${spec.name}' is ${spec.dtype}: element ${bad} is ${values[bad]}, not an integer in [${range[0]}, ${range[1]}]`);
    }
  }
  // Held as f32 (OPS.md §1.3): a finite value past its range would be ±Infinity unasked, as 1e400 would for a double.
  if (spec.dtype === "f32" || spec.dtype === "f16" || spec.dtype === "bf16") {
    const bad = values.findIndex((v) => Number.isFinite(v) && !Number.isFinite(Math.fround(v)));
    if (bad >= 0) {
      throw new Error(`input '${spec.name}' is ${spec.dtype}: element ${bad}, ${p.texts[bad] ?? values[bad]}, is beyond the largest ` +
        "value it holds (about 3.4e38, as f32): write inf or -inf for an infinity");
    }
  }
  return values;
}

// compile's default maxTensorBytes, which the playground keeps: a larger
// input is refused before its values are made (a [1e9] input filled 4 GB
// for 12 s before the run refused it). Bytes as the runtime holds them: i32
// as i64 (OPS.md §1.3).
const MAX_TENSOR_BYTES = 2 ** 30;
const HELD_BYTES: Record<DType, number> = { f32: 4, f64: 8, i32: 8, i64: 8, u8: 1, bool: 1 };

/** A zero tensor for an input; one too large for this browser is an error that names the input. */
function allocate(spec: TensorSpec, dtype: DType, shape: number[]): Tensor {
  const bytes = shape.reduce((n, d) => n * d, 1) * HELD_BYTES[dtype];
  if (bytes > MAX_TENSOR_BYTES) {
    const held = dtype === "i32" ? ", held as i64" : "";
    throw new Error(`input '${spec.name}' (${dtype}[${shape.join(", ")}]${held}) would be ${bytes} bytes, over the limit of ${MAX_TENSOR_BYTES} bytes per tensor`);
  }
  try {
    return new Tensor(dtype, shape);
  } catch (e) {
    if (!(e instanceof RangeError)) throw e;
    throw new Error(`input '${spec.name}' (${spec.dtype}[${shape.join(", ")}]) is too large to allocate: ${e.message}`);
  }
}

export function makeInputs(sig: Signature, sources: Record<string, InputSource>, dims: Record<string, number>,
                           seed: number | bigint): Record<string, Tensor> {
  const rng = new Rng(seed);
  const feeds = record<Tensor>();  // by input name: one may be named __proto__
  for (const declared of sig.inputs) {
    const src: InputSource = own(sources, declared.name) ?? { mode: "random" };
    // Left out, as a caller of run() may leave an optional input out (and as
    // `shrew run` does without --input): nothing is drawn for it.
    if (declared.optional && src.omit) continue;
    const input = runSpec(declared, src);
    const dtype = own(JS_DTYPE, input.dtype ?? "");
    if (!dtype) throw new Error(`input '${input.name}' has dtype ${input.dtype}, which the playground cannot make`);
    const shape = concreteShape(input, dims, src.sizes);
    const t = allocate(input, dtype, shape);
    const n = t.size;
    if (src.mode === "paste") {
      const values = pastedValues(input, src.text, shape, n);
      for (let i = 0; i < n; i++) {
        const v = values[i];
        if (dtype === "i64") (t.data as BigInt64Array)[i] = typeof v === "bigint" ? v : BigInt(v);
        else (t.data as Float32Array)[i] = Number(v);
      }
    } else if (dtype === "bool") {
      for (let i = 0; i < n; i++) (t.data as Uint8Array)[i] = rng.next() < 0.5 ? 1 : 0;
    } else if (dtype === "f32" || dtype === "f64") {
      const d = t.data as Float32Array;
      for (let i = 0; i < n; i++) d[i] = rng.next() * 2 - 1;
    } else {
      const lo = src.lo ?? 0, hi = src.hi ?? 4;
      // The Run tab checks this too; here for any other caller (a value outside the dtype was stored wrapped).
      const problem = randintProblem(input.name, input.dtype ?? "", lo, hi);
      if (problem) throw new Error(problem);
      for (let i = 0; i < n; i++) {
        const v = rng.int(lo, hi);
        if (dtype === "i64") (t.data as BigInt64Array)[i] = BigInt(v);
        else (t.data as Int32Array)[i] = v;
      }
    }
    feeds[input.name] = t;
  }
  return feeds;
}

/** The values of a tensor as doubles (i64 as Number: exact below 2^53). */
export function tensorNumbers(t: Tensor): Float64Array {
  return Float64Array.from(t.data as ArrayLike<number | bigint>, (v) => Number(v));
}

/** A tensor for the page: its values as doubles, and an i64 tensor's exact values too. */
export function tensorForPage(name: string, t: Tensor): OutputTensor {
  const view = { name, dtype: t.dtype, shape: [...t.shape], data: tensorNumbers(t) };
  return t.dtype === "i64" ? { ...view, exact: (t.data as BigInt64Array).slice() } : view;
}
