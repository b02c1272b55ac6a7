// Input tensors for `shrew run` / `bench`: seeded random by default,
// `NAME=PATH.npy`, `NAME=random` or `NAME=randint:LO:HI`.
import { NpyError, Rng, ShrewRuntimeError, Tensor, readNpy, type DType, type Signature, type TensorSpec } from "../index.js";
import { setOwn } from "../plain.js";
import { RANDINT_RANGE, randintFits } from "../randint.js";
import { UsageError } from "./usage.js";
import { FileError, INPUT_LIMIT, readNpyFile } from "./files.js";
import { readNpyHeader } from "../npy.js";
import { byteSize } from "../tensor.js";
import { didYouMean } from "../spelling.js";

/** The largest f32 below 1: 1 - 2^-24. */
const F32_BELOW_ONE = 1 - 2 ** -24;

export type InputSpec = { kind: "random" } | { kind: "randint"; lo: number; hi: number } | { kind: "npy"; path: string };

/** Parses repeated `--input NAME=SPEC` options. */
export function parseInputSpecs(values: readonly string[]): Map<string, InputSpec> {
  const out = new Map<string, InputSpec>();
  for (const v of values) {
    const eq = v.indexOf("=");
    if (eq <= 0) throw new UsageError(`--input expects NAME=PATH.npy|random|randint:LO:HI, got '${v}'`);
    const name = v.slice(0, eq);
    const spec = v.slice(eq + 1);
    if (out.has(name)) throw new UsageError(`--input ${name} is given twice`);
    // An empty PATH was an attempt to open '' ("cannot read  (--input x): ENOENT").
    if (spec === "") throw new UsageError(`--input ${name}= expects PATH.npy, random or randint:LO:HI after '=', got nothing`);
    if (spec === "random") out.set(name, { kind: "random" });
    else if (spec.startsWith("randint:")) {
      // Number("") is 0: only LO:HI of plain (signed) digits.
      const m = /^randint:(-?[0-9]+):(-?[0-9]+)$/.exec(spec);
      const [lo, hi] = m ? [Number(m[1]), Number(m[2])] : [NaN, NaN];
      if (!Number.isSafeInteger(lo) || !Number.isSafeInteger(hi) || hi <= lo) {
        // Drawn as JS numbers: exact only up to 2^53 - 1 in magnitude (for i64 too).
        throw new UsageError(`--input ${name}=randint:LO:HI needs integers with LO < HI, each at most 2^53 - 1 in magnitude, got '${spec}'`);
      }
      out.set(name, { kind: "randint", lo, hi });
    } else out.set(name, { kind: "npy", path: spec });
  }
  return out;
}

/** Parses `--dims K=V,K=V`. */
export function parseDims(values: readonly string[]): Record<string, number> {
  // No prototype: a dim named __proto__ or constructor is just a name.
  const dims: Record<string, number> = Object.create(null);
  for (const v of values) {
    for (const part of v.split(",")) {
      // `--dims Batch=8,` or `--dims ''` is likely a size left out, as `--dims Batch=` is.
      if (part === "") throw new UsageError(`--dims expects NAME=SIZE[,NAME=SIZE…], got an empty entry in '${v}'`);
      const eq = part.indexOf("=");
      const k = part.slice(0, eq), val = part.slice(eq + 1);
      // Number("") is 0 and Number(" 8") is 8: only plain digits are sizes.
      if (eq <= 0 || !/^[0-9]+$/.test(val) || !Number.isSafeInteger(Number(val))) {
        throw new UsageError(`--dims expects NAME=SIZE[,NAME=SIZE…], got '${part}'`);
      }
      if (Object.hasOwn(dims, k)) throw new UsageError(`--dims gives ${k} twice`);
      dims[k] = Number(val);
    }
  }
  return dims;
}

/** An input the CLI cannot make up without a --input (stats then skips its run). */
export class NoDefaultInput extends UsageError {}

const JS_DTYPE: Record<string, DType> = {
  f32: "f32", f16: "f32", bf16: "f32", f64: "f64", i32: "i32", i16: "i32", i8: "i32",
  i64: "i64", u16: "i64", u32: "i64", u64: "i64", u8: "u8", bool: "bool",
};

const isFloat = (d: DType) => d === "f32" || d === "f64";

/** randint draws from [LO, HI): every value must fit the input's declared dtype. */
function checkRandint(input: TensorSpec, lo: number, hi: number): void {
  const dtype = input.dtype ?? "";
  if (randintFits(dtype, lo, hi)) return;
  const [min, max] = RANDINT_RANGE[dtype];
  throw new UsageError(`--input ${input.name}=randint:${lo}:${hi} draws values outside ${input.dtype} ` +
                       `(${min}..${max}; HI is exclusive)`);
}

/** An input tensor of zeros; one that cannot be allocated is a one-line error naming it. */
function allocateInput(graph: string, input: TensorSpec, dtype: DType, shape: number[]): Tensor {
  // The runtime refuses an input over maxTensorBytes (1 GiB, the CLI's): said
  // before allocating and filling it (6 GB took 45 s, then failed unnamed).
  const size = shape.reduce((a, d) => a * d, 1);
  if (size * byteSize(dtype) > INPUT_LIMIT) {
    throw new ShrewRuntimeError("resource_exhausted", `input '${input.name}' of graph '${graph}' is ${size * byteSize(dtype)} bytes ` +
      `(${dtype}[${shape.join(", ")}]), over the limit of ${INPUT_LIMIT} bytes`, { input: input.name });
  }
  try {
    return new Tensor(dtype, shape);
  } catch (e) {
    if (!(e instanceof RangeError)) throw e;
    throw new ShrewRuntimeError("resource_exhausted",
      `input '${input.name}' (${dtype}[${shape.join(", ")}]) is too large to allocate: ${e.message}`, { input: input.name });
  }
}

/** Concrete shape of an input: symbolic dims from `dims`, unbound ones (and `?`) = 1. */
export function concreteShape(spec: TensorSpec, dims: Record<string, number>): number[] {
  return (spec.shape ?? []).map((d) => (typeof d === "number" ? d : typeof d === "string" ? dims[d] ?? 1 : 1));
}

/**
 * The graph's inputs: read from the --input files, generated from the seed
 * for the others. A generated input's symbolic dims take their size from
 * `dims`, else from a file given for another input with that dim, else 1.
 * `fileDtypes` (if given) receives numpy's name of each file's dtype, by
 * input name (a file of int8 is read as i32: an error names what it holds).
 */
export function makeInputs(sig: Signature, specs: Map<string, InputSpec>, dims: Record<string, number>,
                           seed: number | bigint, fileDtypes?: Map<string, string>): Record<string, Tensor> {
  const names = sig.inputs.map((i) => i.name);
  for (const name of specs.keys()) {
    if (!names.includes(name)) {
      throw new UsageError(`graph '${sig.name}' has no input '${name}'${didYouMean(name, names) || ";"} its inputs are: ${names.join(", ") || "(none)"}`);
    }
  }
  // Files first: their shapes bind the dims of the inputs generated after
  // (x from a [4, 12] file and y: [N, 1] generated made y [1, 1], and the
  // run then blamed y, which the user never gave).
  const read = new Map<string, Tensor>();
  const bound: Record<string, number> = Object.assign(Object.create(null), dims);
  for (const input of sig.inputs) {
    const spec = specs.get(input.name);
    if (spec?.kind !== "npy") continue;
    const what = `--input ${input.name}`;
    let t: Tensor;
    try {
      const bytes = readNpyFile(spec.path, what);
      t = readNpy(bytes);
      fileDtypes?.set(input.name, readNpyHeader(bytes).numpy);
    } catch (e) {
      if (e instanceof NpyError) throw new FileError(`${spec.path} (${what}): ${e.message}`);
      throw e;
    }
    read.set(input.name, t);
    if (input.shape === null || input.shape.length !== t.shape.length) continue;
    input.shape.forEach((d, k) => {
      if (typeof d === "string" && d !== "_" && !Object.hasOwn(bound, d)) bound[d] = t.shape[k];
    });
  }
  const rng = new Rng(seed);
  const feeds: Record<string, Tensor> = {};
  const feed = (name: string, t: Tensor) => setOwn(feeds, name, t);
  for (const input of sig.inputs) {
    // An optional input (`input m: T?;`) without --input is left out, as a
    // caller of run() may: a graph that reads it fails naming it.
    const given = specs.get(input.name);
    if (input.optional && given === undefined) continue;
    const spec = given ?? { kind: "random" };
    const file = read.get(input.name);
    if (file !== undefined) {
      feed(input.name, file);
      continue;
    }
    if (input.dtype == null) {
      throw new UsageError(`input '${input.name}' has an unknown type (?): give its values with --input ${input.name}=PATH.npy`);
    }
    const dtype = JS_DTYPE[input.dtype];
    if (!dtype) throw new UsageError(`input '${input.name}' has dtype ${input.dtype}, which the CLI cannot generate`);
    if (spec.kind === "randint") checkRandint(input, spec.lo, spec.hi);
    else if (!isFloat(dtype) && dtype !== "bool") {
      const needs = `integer input '${input.name}' (${input.type}) needs --input ${input.name}=randint:LO:HI or a .npy file`;
      // Left out, stats does without a run; given as `random`, it is as wrong for stats as for run.
      throw given ? new UsageError(`${needs}, not random`) : new NoDefaultInput(needs);
    }
    const t = allocateInput(sig.name, input, dtype, concreteShape(input, bound));
    const n = t.size;
    if (spec.kind === "randint") {
      for (let i = 0; i < n; i++) {
        const v = rng.int(spec.lo, spec.hi);
        if (dtype === "i64") (t.data as BigInt64Array)[i] = BigInt(v);
        else (t.data as Int32Array)[i] = v;
      }
    } else if (dtype === "bool") {
      for (let i = 0; i < n; i++) (t.data as Uint8Array)[i] = rng.next() < 0.5 ? 1 : 0;
    } else {
      const d = t.data as Float32Array;
      for (let i = 0; i < n; i++) {
        d[i] = rng.next() * 2 - 1;
        // 1 - 2^-31 rounds to 1 in an f32 (64 draws in 2^32): [-1, 1) as documented.
        if (d[i] === 1) d[i] = F32_BELOW_ONE;
      }
    }
    feed(input.name, t);
  }
  return feeds;
}
