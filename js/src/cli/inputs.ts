// Input tensors for `shrew run` / `bench`: seeded random by default,
// `NAME=PATH.npy`, `NAME=random` or `NAME=randint:LO:HI`.
import { readFileSync } from "node:fs";
import { Rng, Tensor, readNpy, type DType, type Signature, type TensorSpec } from "../index.js";
import { UsageError } from "./usage.js";

export type InputSpec = { kind: "random" } | { kind: "randint"; lo: number; hi: number } | { kind: "npy"; path: string };

/** Parses repeated `--input NAME=SPEC` options. */
export function parseInputSpecs(values: readonly string[]): Map<string, InputSpec> {
  const out = new Map<string, InputSpec>();
  for (const v of values) {
    const eq = v.indexOf("=");
    if (eq <= 0) throw new UsageError(`--input expects NAME=PATH.npy|random|randint:LO:HI, got '${v}'`);
    const name = v.slice(0, eq);
    const spec = v.slice(eq + 1);
    if (spec === "random") out.set(name, { kind: "random" });
    else if (spec.startsWith("randint:")) {
      const [lo, hi] = spec.slice(8).split(":").map(Number);
      if (!Number.isSafeInteger(lo) || !Number.isSafeInteger(hi) || hi <= lo) {
        throw new UsageError(`--input ${name}=randint:LO:HI needs integers with LO < HI, got '${spec}'`);
      }
      out.set(name, { kind: "randint", lo, hi });
    } else out.set(name, { kind: "npy", path: spec });
  }
  return out;
}

/** Parses `--dims K=V,K=V`. */
export function parseDims(values: readonly string[]): Record<string, number> {
  const dims: Record<string, number> = {};
  for (const v of values) {
    for (const part of v.split(",").filter((p) => p.length > 0)) {
      const [k, val] = part.split("=");
      const n = Number(val);
      if (!k || !Number.isSafeInteger(n) || n < 0) throw new UsageError(`--dims expects NAME=SIZE[,NAME=SIZE…], got '${part}'`);
      dims[k] = n;
    }
  }
  return dims;
}

const JS_DTYPE: Record<string, DType> = {
  f32: "f32", f16: "f32", bf16: "f32", f64: "f64", i32: "i32", i16: "i32", i8: "i32",
  i64: "i64", u16: "i64", u32: "i64", u64: "i64", u8: "u8", bool: "bool",
};

const isFloat = (d: DType) => d === "f32" || d === "f64";

/** Concrete shape of an input: symbolic dims from `dims`, unbound ones (and `?`) = 1. */
export function concreteShape(spec: TensorSpec, dims: Record<string, number>): number[] {
  return (spec.shape ?? []).map((d) => (typeof d === "number" ? d : typeof d === "string" ? dims[d] ?? 1 : 1));
}

export function makeInputs(sig: Signature, specs: Map<string, InputSpec>, dims: Record<string, number>,
                           seed: number): Record<string, Tensor> {
  for (const name of specs.keys()) {
    if (!sig.inputs.some((i) => i.name === name)) {
      throw new UsageError(`graph '${sig.name}' has no input '${name}'; its inputs are: ${sig.inputs.map((i) => i.name).join(", ")}`);
    }
  }
  const rng = new Rng(seed);
  const feeds: Record<string, Tensor> = {};
  for (const input of sig.inputs) {
    const spec = specs.get(input.name) ?? { kind: "random" };
    if (spec.kind === "npy") {
      feeds[input.name] = readNpy(new Uint8Array(readFileSync(spec.path)));
      continue;
    }
    const dtype = JS_DTYPE[input.dtype ?? ""];
    if (!dtype) throw new UsageError(`input '${input.name}' has dtype ${input.dtype}, which the CLI cannot generate`);
    const t = new Tensor(dtype, concreteShape(input, dims));
    const n = t.size;
    if (spec.kind === "randint") {
      for (let i = 0; i < n; i++) {
        const v = spec.lo + Math.floor(rng.next() * (spec.hi - spec.lo));
        if (dtype === "i64") (t.data as BigInt64Array)[i] = BigInt(v);
        else (t.data as Int32Array)[i] = v;
      }
    } else if (dtype === "bool") {
      for (let i = 0; i < n; i++) (t.data as Uint8Array)[i] = rng.next() < 0.5 ? 1 : 0;
    } else if (isFloat(dtype)) {
      const d = t.data as Float32Array;
      for (let i = 0; i < n; i++) d[i] = rng.next() * 2 - 1;
    } else {
      throw new UsageError(`integer input '${input.name}' (${input.type}) needs --input ${input.name}=randint:LO:HI or a .npy file`);
    }
    feeds[input.name] = t;
  }
  return feeds;
}
