// Outputs crossing from wasm to JS: Tensors over the module's fresh copies,
// or the caller's own arrays (the `outputs` run option), each destination
// checked before any is written.
import type { RawTensorOut } from "./wasm/shrew.mjs";
import { ShrewRuntimeError } from "./errors.js";
import { ARRAY_CTORS as CTORS, ARRAY_FOR_DECLARED, DTYPES, Tensor, type DType, type TensorData, dtypeOfArray, isDataOf, isDType, isTypedArrayProxy, madeShape } from "./tensor.js";
import type { Signature } from "./signature.js";
import { byteLengthOf, bytesView, describe as describeValue, elements, isNamedObject, joinNames, lengthOf, setOwn, spanOf, typeName, withArticle } from "./plain.js";
import { didYouMean } from "./spelling.js";
import { checkOptions, rule, type Rule } from "./options.js";
import type { Outputs } from "./program.js";

/** Options of `run` and `interpret`. */
export interface RunOptions {
  /**
   * Where outputs go, by output name: a Tensor of the output's dtype and
   * shape, or a typed array of its dtype (Uint8Array for u8 and bool) and
   * element count. The run fills it in place and returns it (a typed array
   * wrapped in a Tensor, the same one while the array lives), so repeated
   * runs need no new output memory. As for an input, any other
   * {dtype, shape, data} object — a Tensor of another copy of this package —
   * is checked and filled like a Tensor, and comes back wrapped as a typed
   * array does (a Tensor of this package over its `data`).
   * Outputs not named (or given as undefined) get fresh arrays. Every
   * destination is checked before any is written; on an error none is.
   */
  outputs?: Record<string, Tensor | { dtype: DType; shape: readonly number[]; data: TensorData } | TensorData | undefined> | undefined;
}

/** The output's dtype, or an error when its values cannot cross to JS. */
function crossingDType(raw: RawTensorOut): DType {
  if (!isDType(raw.dtype)) throw new ShrewRuntimeError("unimplemented", `output '${raw.name}' has dtype ${raw.declaredDtype}, which cannot cross to JS`);
  return raw.dtype;
}

/** Wraps an output's fresh byte copy (offset 0, own buffer) in its typed array without copying again. */
export function tensorFromRaw(raw: RawTensorOut): Tensor {
  const dtype = crossingDType(raw);
  const ctor = CTORS[dtype];
  const b = raw.bytes;
  const data = new ctor(b.buffer as ArrayBuffer, b.byteOffset, b.byteLength / ctor.BYTES_PER_ELEMENT) as TensorData;
  return new Tensor(dtype, raw.shape, data as never);
}

/**
 * One destination, read once before the run: a Tensor's fields are
 * readonly in TypeScript only, so its dtype, shape and data are taken here
 * and what is checked is what is written.
 */
export interface Destination {
  /** The caller's Tensor, returned as the output; undefined for any other destination (it comes back wrapped). */
  readonly tensor: Tensor | undefined;
  /** A bare typed array: no dtype or shape of its own to check, only its class and size. */
  readonly bare: boolean;
  /** A Tensor's or {dtype, shape, data} object's fields as read (shape as plain data), checked by checkDestination. */
  readonly dtype: unknown;
  readonly shape: readonly unknown[];
  readonly data: TensorData;
}

/**
 * RunOptions.outputs once checked: names of the graph's outputs, each a
 * Destination. A copy, read once before the run: a getter or Proxy cannot
 * hand over another value afterwards.
 */
export type Destinations = ReadonlyMap<string, Destination>;

/**
 * A destination's fields, or the error for a value that is no Tensor, typed
 * array of a dtype or {dtype, shape, data} object. Such an object is taken
 * as an input takes it: a Tensor of another copy of the package (two
 * installs, a second bundle) fails `instanceof Tensor` and was refused.
 */
function destination(name: string, value: unknown, declared: string | null | undefined): Destination {
  if (isTypedArrayProxy(value)) {
    throw new TypeError(`output '${name}': the destination is a Proxy of ${withArticle(typeName(value))}, which has no memory of its own to write into; pass the array itself`);
  }
  if (ArrayBuffer.isView(value)) {
    if (dtypeOfArray(value) !== undefined) return { tensor: undefined, bare: true, dtype: undefined, shape: [], data: value as TensorData };
    // An Int8Array for an i8 output: say which array it takes, as for an input.
    const takes = declared != null && Object.hasOwn(ARRAY_FOR_DECLARED, declared)
      ? `; its dtype ${declared} takes ${withArticle(ARRAY_FOR_DECLARED[declared])}` : "";
    const what = value instanceof DataView ? "a DataView is no tensor data" : `unsupported typed array ${typeName(value)}`;
    throw new TypeError(`output '${name}': ${what}${value instanceof DataView ? "" : " as the destination"}${takes} ` +
                        "(a tensor's data is a Float32Array, Float64Array, Int32Array, BigInt64Array or Uint8Array)");
  } else if (value !== null && typeof value === "object") {
    // Each field read once (a getter, a Proxy trap). Any data is taken here:
    // checkDestination names what it is.
    const { dtype, shape, data } = value as { dtype?: unknown; shape?: unknown; data?: unknown };
    const tensor = value instanceof Tensor ? value : undefined;
    if (tensor !== undefined || dtype !== undefined) {
      if (!Array.isArray(shape)) {
        throw new TypeError(`output '${name}': the destination${tensor ? " Tensor's" : "'s"} shape must be an array, got ${describeValue(shape)}`);
      }
      // Its constructor's shape is frozen numbers; any other is copied now, so
      // that no getter or trap runs once the outputs wait in wasm memory.
      return { tensor, bare: false, dtype, shape: tensor && shape === madeShape(tensor) ? shape : Array.from(shape), data: data as TensorData };
    }
  }
  throw new TypeError(`output '${name}': the destination must be a Tensor, a {dtype, shape, data} object or a typed array, got ${describeValue(value)}`);
}

// Each signature's output names, built on first use.
const outputNames = new WeakMap<Signature, ReadonlySet<string>>();

const RUN_OPTIONS: Record<string, Rule> = {
  // A Map's entries are no own keys: it named no destinations, and each output went to a fresh array.
  outputs: rule("must be an object {name: Tensor or typed array}", isNamedObject),
};

/**
 * Checks the options of a run (`what`: "run" or "interpret"), then the
 * destinations' names and value kinds (not yet dtypes and shapes: those need
 * the run).
 */
export function destinations(options: RunOptions, sig: Signature, what: string): Destinations | undefined {
  const { outputs } = checkOptions(options, what, RUN_OPTIONS) as RunOptions;
  if (outputs === undefined) return undefined;
  let names = outputNames.get(sig);
  if (names === undefined) {
    names = new Set(sig.outputs.map((o) => o.name));
    outputNames.set(sig, names);
  }
  const seen = new Set<unknown>();
  const taken = new Map<string, Destination>();
  for (const name of Object.keys(outputs)) {
    if (!names.has(name)) {
      throw new ShrewRuntimeError("invalid_argument",
        `graph '${sig.name}' has no output named '${name}'${didYouMean(name, names) || ";"} its outputs are: ${joinNames([...names])}`, { output: name });
    }
    const value = outputs[name];
    if (value === undefined) continue;  // left out, as an option is: a fresh array
    const dest = destination(name, value, sig.outputs.find((o) => o.name === name)?.dtype);
    // Two outputs written into one array would leave only the last.
    if (seen.has(dest.data)) throw new ShrewRuntimeError("invalid_argument", `output '${name}': its destination array is also another output's`, { output: name });
    seen.add(dest.data);
    taken.set(name, dest);
  }
  checkNoSharedMemory(taken);
  return taken;
}

/**
 * Throws when two destinations view overlapping bytes of one buffer (two
 * arrays over one ArrayBuffer, overlapping subarrays): the last output
 * written would overwrite part of the other. Checked when the options are
 * read and again just before the outputs are written, since an input's
 * getter may resize a buffer in between (views of 0 bytes overlap nothing).
 */
export function checkNoSharedMemory(into: Destinations): void {
  const spans = new Map<ArrayBufferLike, { name: string; start: number; end: number }[]>();
  for (const [name, { data }] of into) {
    if (!ArrayBuffer.isView(data)) continue;
    const { buffer, start, end } = spanOf(data);  // built-in getters: no caller code runs (plain.ts)
    if (start === end) continue;
    const list = spans.get(buffer);
    const span = { name, start, end };
    if (list === undefined) spans.set(buffer, [span]);
    else list.push(span);
  }
  for (const list of spans.values()) {
    if (list.length < 2) continue;
    list.sort((a, b) => a.start - b.start);
    let last = list[0];
    for (let i = 1; i < list.length; i++) {
      const span = list[i];
      if (span.start < last.end) {
        throw new ShrewRuntimeError("invalid_argument",
          `output '${span.name}': its destination array shares memory with the destination of output '${last.name}'`, { output: span.name });
      }
      if (span.end > last.end) last = span;
    }
  }
}

function describe(dtype: unknown, shape: readonly unknown[]): string {
  return `${String(dtype)}[${shape.join(", ")}]`;
}

function sameShape(a: readonly unknown[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  for (let d = 0; d < a.length; d++) if (a[d] !== b[d]) return false;
  return true;
}

/** Throws unless `dest` can take an output of this dtype, shape and byte size. */
export function checkDestination(graph: string, name: string, dtype: DType, shape: readonly number[], bytes: number,
                          dest: Destination): void {
  // The data's class is checked for a Tensor too: its data may have been
  // replaced by another typed array. byteLength also catches a buffer that
  // was transferred (detached: 0 bytes).
  const { bare, data } = dest;
  // Its size through the built-in getters (plain.ts): a subclass's may lie or run code.
  const fits = isDataOf(dtype, data) && byteLengthOf(data) === bytes;
  if (fits && (bare || (dest.dtype === dtype && sameShape(dest.shape, shape)))) return;
  const expected = describe(dtype, shape);
  // A misspelt dtype is told the closest, as an input's is (it read "got f3[2] whose data is …").
  if (!bare && !isDType(dest.dtype)) {
    const given = typeof dest.dtype === "string" ? `'${dest.dtype}'` : typeName(dest.dtype);
    throw new ShrewRuntimeError("invalid_argument",
      `output '${name}' of graph '${graph}': expected a destination of ${expected}, got one of dtype ${given}, which is no dtype` +
        (typeof dest.dtype === "string" ? didYouMean(dest.dtype, DTYPES) : ""),
      { output: name, expected, actual: `dtype ${given}` });
  }
  let actual = bare ? `${withArticle(typeName(data))} of ${elements(lengthOf(data))}` : describe(dest.dtype, dest.shape);
  if (!bare && !isDataOf(dest.dtype, data)) actual += ` whose data is ${describeValue(data)}`;
  else if (actual === expected) actual += ` whose data has ${byteLengthOf(data)} bytes`;
  throw new ShrewRuntimeError("invalid_argument",
    `output '${name}' of graph '${graph}': expected a destination of ${expected}, got ${actual}`,
    { output: name, expected, actual });
}

// The Tensor a bare destination array comes back in, kept while the array
// lives: a loop that passes the same arrays allocates no wrappers.
const wrappers = new WeakMap<TensorData, Tensor>();
export function wrapped(dtype: DType, shape: readonly number[], data: TensorData): Tensor {
  const t = wrappers.get(data);
  if (t !== undefined && t.dtype === dtype && sameShape(t.shape, shape) && t.data === data) return t;
  const fresh = new Tensor(dtype, shape, data as never);
  wrappers.set(data, fresh);
  return fresh;
}

/**
 * The value path's outputs as Tensors: into their destinations where `into`
 * names one (all checked first, so that an error writes none), the fresh
 * copies otherwise.
 */
export function deliver(graph: string, outputs: readonly RawTensorOut[], into: Destinations | undefined): Outputs {
  if (into !== undefined) checkNoSharedMemory(into);
  for (const o of outputs) {
    const dest = into?.get(o.name);
    if (dest === undefined) continue;
    checkDestination(graph, o.name, crossingDType(o), o.shape, o.bytes.byteLength, dest);
  }
  const out: Outputs = {};
  for (const o of outputs) {
    const dest = into?.get(o.name);
    if (dest === undefined) {
      setOwn(out, o.name, tensorFromRaw(o));
      continue;
    }
    const data = dest.data;
    bytesView(data).set(o.bytes);
    setOwn(out, o.name, dest.tensor ?? wrapped(o.dtype as DType, o.shape, data));
  }
  return out;
}
