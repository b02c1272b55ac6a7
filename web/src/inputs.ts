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
    walk(JSON.parse(t));
    return flat;
  }
  return t.split(/[\s,]+/).map((s) => {
    const n = Number(s);
    if (!Number.isFinite(n) && !/^[-+]?(inf|infinity|nan)$/i.test(s)) throw new Error(`not a number: '${s}'`);
    return n;
  });
}

export function makeInputs(sig: Signature, sources: Record<string, InputSource>, dims: Record<string, number>,
                           seed: number): Record<string, Tensor> {
  const rng = new Rng(seed);
  const feeds: Record<string, Tensor> = {};
  for (const input of sig.inputs) {
    const dtype = JS_DTYPE[input.dtype ?? ""];
    if (!dtype) throw new Error(`input '${input.name}' has dtype ${input.dtype}, which the playground cannot make`);
    const shape = concreteShape(input, dims);
    const t = new Tensor(dtype, shape);
    const n = t.size;
    const src = sources[input.name] ?? { mode: "random" };
    if (src.mode === "paste") {
      const values = parseNumbers(src.text);
      if (values.length !== n) {
        throw new Error(`input '${input.name}' needs ${n} values for shape [${shape.join(", ")}], got ${values.length}`);
      }
      for (let i = 0; i < n; i++) {
        if (dtype === "i64") (t.data as BigInt64Array)[i] = BigInt(Math.trunc(values[i]));
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

/** Plain numbers of a tensor (i64 as Number; exact below 2^53). */
export function tensorNumbers(t: Tensor): number[] {
  return Array.from(t.data as ArrayLike<number | bigint>, (v) => Number(v));
}
