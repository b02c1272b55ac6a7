// Input tensors for a run: seeded random exactly like `shrew run --seed S`
// (one generator over the inputs in declaration order; floats uniform in
// [-1, 1), bools 0/1, integers uniform in [lo, hi)), or numbers pasted as
// JSON or separated by spaces/commas. Pasted inputs draw nothing from the
// generator, like the CLI's .npy inputs.
import { Rng, Tensor, type DType, type Signature, type TensorSpec } from "../../js/dist/index.js";
import type { InputSource } from "./protocol.js";

// Declared dtype -> the JS storage dtype (the CLI's table).
const JS_DTYPE: Record<string, DType> = {
  f32: "f32", f16: "f32", bf16: "f32", f64: "f64", i32: "i32", i16: "i32", i8: "i32",
  i64: "i64", u16: "i64", u32: "i64", u64: "i64", u8: "u8", bool: "bool",
};

/** Concrete shape of an input: symbolic dims from `dims`, unbound ones (and `?`) = 1 (as the CLI). */
export function concreteShape(spec: TensorSpec, dims: Record<string, number>): number[] {
  return (spec.shape ?? []).map((d) => (typeof d === "number" ? d : typeof d === "string" ? dims[d] ?? 1 : 1));
}

/** One pasted token as a number: also inf, -inf, infinity and nan (any case); NaN if it is none. */
function parseToken(s: string): number {
  const special = /^([-+]?)(inf|infinity|nan)$/i.exec(s);
  if (special) return special[2].toLowerCase() === "nan" ? NaN : special[1] === "-" ? -Infinity : Infinity;
  const n = Number(s);
  if (Number.isNaN(n)) throw new Error(`not a number: '${s}'`);
  return n;
}

/** Parses pasted numbers: a (nested) JSON array or numbers separated by whitespace/commas. */
export function parseNumbers(text: string): number[] {
  const t = text.trim();
  if (t === "") return [];
  if (t.startsWith("[")) {
    const flat: number[] = [];
    const walk = (v: unknown): void => {
      if (Array.isArray(v)) v.forEach(walk);
      else if (typeof v === "number") flat.push(v);
      else if (typeof v === "boolean") flat.push(v ? 1 : 0);
      else throw new Error(`not a number: ${JSON.stringify(v)}`);
    };
    let parsed: unknown;
    try {
      parsed = JSON.parse(t);
    } catch (e) {
      throw new Error(`not a JSON array: ${(e as Error).message}`);
    }
    walk(parsed);
    return flat;
  }
  // Separators at either end (a trailing comma) separate nothing: no value.
  return t.split(/[\s,]+/).filter((s) => s !== "").map(parseToken);
}

// The values each declared integer dtype holds (i64/u64: the integers a JS number holds exactly).
const INT_RANGE: Record<string, [number, number]> = {
  i8: [-128, 127], i16: [-32768, 32767], i32: [-2147483648, 2147483647], u8: [0, 255], u16: [0, 65535],
  u32: [0, 4294967295], i64: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER], u64: [0, Number.MAX_SAFE_INTEGER], bool: [0, 1],
};

/** The pasted values of one input, checked against its count and declared dtype. */
function pastedValues(spec: TensorSpec, text: string, shape: number[], n: number): number[] {
  let values: number[];
  try {
    values = parseNumbers(text);
  } catch (e) {
    throw new Error(`input '${spec.name}': ${(e as Error).message}`);
  }
  if (values.length !== n) {
    throw new Error(`input '${spec.name}' needs ${n} values for shape [${shape.join(", ")}], got ${values.length}`);
  }
  const range = INT_RANGE[spec.dtype ?? ""];
  if (range) {
    const bad = values.findIndex((v) => !Number.isInteger(v) || v < range[0] || v > range[1]);
    if (bad >= 0) {
      throw new Error(`input '${spec.name}' is ${spec.dtype}: element ${bad} is ${values[bad]}, not an integer in [${range[0]}, ${range[1]}]`);
    }
  }
  return values;
}

/** A zero tensor for an input; one too large for this browser is an error that names the input. */
function allocate(spec: TensorSpec, dtype: DType, shape: number[]): Tensor {
  try {
    return new Tensor(dtype, shape);
  } catch (e) {
    if (!(e instanceof RangeError)) throw e;
    throw new Error(`input '${spec.name}' (${spec.dtype}[${shape.join(", ")}]) is too large to allocate: ${e.message}`);
  }
}

export function makeInputs(sig: Signature, sources: Record<string, InputSource>, dims: Record<string, number>,
                           seed: number): Record<string, Tensor> {
  const rng = new Rng(seed);
  const feeds: Record<string, Tensor> = {};
  for (const input of sig.inputs) {
    const dtype = JS_DTYPE[input.dtype ?? ""];
    if (!dtype) throw new Error(`input '${input.name}' has dtype ${input.dtype}, which the playground cannot make`);
    const shape = concreteShape(input, dims);
    const t = allocate(input, dtype, shape);
    const n = t.size;
    const src = sources[input.name] ?? { mode: "random" };
    if (src.mode === "paste") {
      const values = pastedValues(input, src.text, shape, n);
      for (let i = 0; i < n; i++) {
        if (dtype === "i64") (t.data as BigInt64Array)[i] = BigInt(values[i]);
        else (t.data as Float32Array)[i] = values[i];
      }
    } else if (dtype === "bool") {
      for (let i = 0; i < n; i++) (t.data as Uint8Array)[i] = rng.next() < 0.5 ? 1 : 0;
    } else if (dtype === "f32" || dtype === "f64") {
      const d = t.data as Float32Array;
      for (let i = 0; i < n; i++) d[i] = rng.next() * 2 - 1;
    } else {
      const lo = src.lo ?? 0, hi = src.hi ?? 4;
      if (!Number.isSafeInteger(lo) || !Number.isSafeInteger(hi) || hi <= lo) {
        throw new Error(`input '${input.name}': the integer range needs lo < hi, got [${lo}, ${hi})`);
      }
      for (let i = 0; i < n; i++) {
        const v = lo + Math.floor(rng.next() * (hi - lo));
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
