// Tensors as they cross the JS boundary: a dtype, a shape and a typed array.
import { copyOfProxy, describe, elements, lengthOf, typeName, typedArrayName, withArticle } from "./plain.js";
import { didYouMean } from "./spelling.js";

/** Element types that cross the boundary. */
export type DType = "f32" | "f64" | "i32" | "i64" | "u8" | "bool";

/** The typed array that holds each dtype (bool: one byte, 0 or 1). */
export interface DataTypeMap {
  f32: Float32Array;
  f64: Float64Array;
  i32: Int32Array;
  i64: BigInt64Array;
  u8: Uint8Array;
  bool: Uint8Array;
}
export type TensorData = DataTypeMap[DType];

/** Frozen: isDType and the Tensor constructor read it. */
export const DTYPES: readonly DType[] = Object.freeze(["f32", "f64", "i32", "i64", "u8", "bool"] as const);

/** The plain values each dtype takes in `new Tensor` (each checked to be held exactly). */
export interface ValueTypeMap {
  f32: number;
  f64: number;
  i32: number;
  i64: number | bigint;
  u8: number;
  bool: number | boolean;
}
/**
 * An array (or array-like) of plain values. Typed arrays are left out
 * (they have BYTES_PER_ELEMENT): another dtype's typed array is a TypeError
 * at run time, never converted, so the types say so too.
 */
export type TensorValues<D extends DType> = ArrayLike<ValueTypeMap[D]> & { readonly BYTES_PER_ELEMENT?: never };

/**
 * A Tensor of one of the dtypes: checking `t.dtype === "f32"` narrows `t.data`
 * to a Float32Array (a plain `Tensor`'s data is the union of all of them).
 */
export type AnyTensor = { [D in DType]: Tensor<D> }[DType];

/**
 * The typed array an input or output of each declared dtype takes: its storage type
 * (OPS.md §1.3; i8 and i16 are held as Int32Array, as setParam takes them).
 */
export const ARRAY_FOR_DECLARED: Record<string, string> = {
  f32: "Float32Array", f16: "Float32Array", bf16: "Float32Array", f64: "Float64Array",
  i8: "Int32Array", i16: "Int32Array", i32: "Int32Array", i64: "BigInt64Array",
  u16: "BigInt64Array", u32: "BigInt64Array", u64: "BigInt64Array", u8: "Uint8Array", bool: "Uint8Array",
};

/** The typed array constructor of each dtype. */
export const ARRAY_CTORS = {
  f32: Float32Array,
  f64: Float64Array,
  i32: Int32Array,
  i64: BigInt64Array,
  u8: Uint8Array,
  bool: Uint8Array,
} as const;

export function isDType(x: unknown): x is DType {
  return typeof x === "string" && (DTYPES as readonly string[]).includes(x);
}

/** Bytes per element of a dtype. */
export function byteSize(dtype: DType): number {
  return ARRAY_CTORS[dtype].BYTES_PER_ELEMENT;
}

/** A shape for messages, its dimensions as written in JS (`["2", 3]` and `[2n, 3]` are not `[2, 3]`). */
function shapeText(shape: readonly unknown[]): string {
  const dim = (d: unknown) => typeof d === "string" ? JSON.stringify(d) : typeof d === "bigint" ? `${d}n`
    : typeof d === "number" ? String(d) : describe(d);
  return `[${Array.from(shape, dim).join(", ")}]`;
}

/** Number of elements of a shape (1 for rank 0). Throws on a bad shape. */
export function shapeSize(shape: readonly number[]): number {
  if (!Array.isArray(shape)) throw new TypeError(`a shape must be an array of non-negative integers, got ${describe(shape)}`);
  let n = 1;
  // Indexed: a for-of over a frozen array allocates an iterator per call.
  for (let i = 0; i < shape.length; i++) {
    const d = shape[i];
    if (!Number.isSafeInteger(d) || d < 0) {
      throw new RangeError(`invalid dimension ${describe(d)} in shape ${shapeText(shape)}: dimensions are non-negative integers`);
    }
    n *= d;
  }
  if (!Number.isSafeInteger(n)) throw new RangeError(`shape ${shapeText(shape)} has too many elements`);
  return n;
}

/**
 * The values each dtype holds exactly, and the JS types they come as. A typed
 * array's own conversion would wrap 300 to 44 in a u8, keep 2 in a bool,
 * truncate 1.5 and make NaN 0: such values are refused instead.
 */
const ELEMENTS: Record<DType, { readonly types: readonly string[]; readonly holds: string; exact(v: never): boolean }> = {
  f32: { types: ["number"], holds: "numbers", exact: () => true },
  f64: { types: ["number"], holds: "numbers", exact: () => true },
  i32: { types: ["number"], holds: "integers from -2147483648 to 2147483647",
         exact: (v: number) => Number.isInteger(v) && v >= -(2 ** 31) && v < 2 ** 31 },
  u8: { types: ["number"], holds: "integers from 0 to 255", exact: (v: number) => Number.isInteger(v) && v >= 0 && v <= 255 },
  bool: { types: ["number", "boolean"], holds: "0, 1, true or false", exact: (v: number | boolean) => typeof v === "boolean" || v === 0 || v === 1 },
  // A number past 2^53 may already have been rounded: only safe integers say what was meant.
  i64: { types: ["number", "bigint"], holds: "bigints from -2^63 to 2^63 - 1, or integers of at most 2^53 - 1 in magnitude",
         exact: (v: number | bigint) => typeof v === "bigint" ? BigInt.asIntN(64, v) === v : Number.isSafeInteger(v) },
};

/** The dtype's typed array of plain values (an array or array-like), each checked to be held exactly. */
function fromValues<D extends DType>(dtype: D, values: unknown, shape: readonly number[], size: number): DataTypeMap[D] {
  // An ArrayBuffer or a plain object is neither iterable nor array-like:
  // Array.from made it [] and the error said "data has 0".
  if (values === null || typeof values !== "object" ||
      (!(Symbol.iterator in values) && typeof (values as { length?: unknown }).length !== "number")) {
    throw new TypeError(`${dtype} tensor data must be ${withArticle(ARRAY_CTORS[dtype].name)} or an array, got ${describe(values)}`);
  }
  const list = Array.from(values as ArrayLike<unknown>);  // a getter or Proxy trap runs once per element
  if (list.length !== size) throw new RangeError(`shape ${shapeText(shape)} needs ${elements(size)}, data has ${list.length}`);
  const { types, holds, exact } = ELEMENTS[dtype];
  const out = allocate(dtype, size);
  for (let i = 0; i < size; i++) {
    const v = list[i];
    const typed = types.includes(typeof v);
    if (!typed || !exact(v as never)) {
      // A value of the right type out of range is a RangeError; a string, a bigint for i32, … a TypeError.
      throw new (typed ? RangeError : TypeError)(`${dtype} tensor: element ${i} is ${describe(v)}, which ${dtype} cannot hold (${holds})`);
    }
    (out as unknown as unknown[])[i] = dtype === "i64" ? BigInt(v as number | bigint) : Number(v);
  }
  return out;
}

function arrayName(dtype: string): string | undefined {
  switch (dtype) {
    case "f32": return "Float32Array";
    case "f64": return "Float64Array";
    case "i32": return "Int32Array";
    case "i64": return "BigInt64Array";
    case "u8": case "bool": return "Uint8Array";
  }
  return undefined;
}

/**
 * Whether `data` is the typed array `dtype` takes (Uint8Array for u8 and
 * bool): what a Tensor's fields must still say where they are used, since
 * they are readonly in TypeScript only. O(1).
 */
export function isDataOf(dtype: unknown, data: unknown): boolean {
  if (typeof dtype !== "string") return false;
  const name = arrayName(dtype);
  return name !== undefined && typedArrayName(data) === name;
}

/**
 * The dtype a typed array holds by default (Uint8Array -> u8), from its
 * internal slot: an Int32Array given Float32Array.prototype is still i32.
 */
export function dtypeOfArray(data: ArrayBufferView): DType | undefined {
  switch (typedArrayName(data)) {
    case "Float32Array": return "f32";
    case "Float64Array": return "f64";
    case "Int32Array": return "i32";
    case "BigInt64Array": return "i64";
    case "Uint8Array": return "u8";
  }
  return undefined;
}

export function allocate<D extends DType>(dtype: D, length: number): DataTypeMap[D] {
  return new ARRAY_CTORS[dtype](length) as DataTypeMap[D];
}

/** %TypedArray%, the constructor every typed array class extends. */
const TypedArray = Object.getPrototypeOf(Uint8Array) as abstract new () => ArrayBufferView;

/** Whether `v` is a Proxy of a typed array (or another object whose prototype chain has one). */
export function isTypedArrayProxy(v: unknown): v is object {
  return !ArrayBuffer.isView(v) && v instanceof TypedArray;
}

/**
 * `v` as it is, or, for a Proxy of a tensor data array (a Float32Array,
 * Float64Array, Int32Array, BigInt64Array or Uint8Array: instanceof sees
 * through the Proxy), a copy of that array, since a Proxy has no memory to
 * view. Where a typed array is taken as a tensor's data, so is a Proxy of one.
 */
export function unproxied(v: unknown): unknown {
  if (!isTypedArrayProxy(v)) return v;
  for (const ctor of new Set(Object.values(ARRAY_CTORS))) {
    if (v instanceof ctor) return copyOfProxy(v, ctor as Uint8ArrayConstructor);
  }
  return v;
}

/** Internal (not exported by the package): see the Tensor constructor. */
export const TRUSTED: unique symbol = Symbol("shrew.trustedTensor");

/**
 * Internal (not exported by the package): the frozen shape a Tensor's
 * constructor made, plain numbers; undefined for an object that only
 * inherits from Tensor.prototype (Object.create, a Proxy of a Tensor).
 * While `t.shape` is still this one it can cross into wasm as is: no getter
 * or Proxy trap can run during the call.
 */
export let madeShape: (t: Tensor) => readonly number[] | undefined;

/**
 * A tensor: dtype, shape (row-major) and data. The data array is the caller's:
 * Shrew copies it into wasm memory on run and never keeps or modifies it.
 */
export class Tensor<D extends DType = DType> {
  // Readonly in TypeScript only (freezing every tensor made each run
  // measurably slower): where Shrew uses a Tensor it reads each field once,
  // checks the data's class against the dtype (isDataOf) and the shape
  // against madeShape, and checks anything else like {dtype, shape, data}.
  readonly dtype: D;
  readonly shape: readonly number[];
  readonly data: DataTypeMap[D];
  readonly #shape: readonly number[];

  static {
    madeShape = (t) => (#shape in t ? t.#shape : undefined);
  }

  /**
   * Checks the dtype, copies and freezes the shape, and takes `data` when it
   * is the dtype's typed array of the shape's size (another typed array is a
   * TypeError); plain values are copied, each one the dtype must hold
   * exactly (ELEMENTS); undefined: zeros. `trusted` is the package's own,
   * not exported.
   */
  constructor(dtype: D, shape: readonly number[], data?: DataTypeMap[D] | TensorValues<D>,
              trusted?: typeof TRUSTED) {
    if (trusted === TRUSTED) {
      // The package's own outputs: a frozen shape and a matching array of the
      // dtype, made by the run path (per call, so no checks or shape copy).
      this.dtype = dtype;
      this.shape = this.#shape = shape;
      this.data = data as DataTypeMap[D];
      return;
    }
    // A non-string shown with its type: String(new String("f32")) made "unknown dtype 'f32'".
    if (!isDType(dtype)) {
      const shown = typeof dtype === "string" ? `'${dtype}'${didYouMean(dtype, DTYPES)}` : describe(dtype);
      throw new TypeError(`unknown dtype ${shown} (expected one of ${DTYPES.join(", ")})`);
    }
    // Copied first, by index, then checked: what is checked is what is kept
    // (an Array subclass's iterator could make [...shape] another shape).
    const own = Array.isArray(shape) ? Array.from({ length: shape.length }, (_, i) => shape[i]) : shape;
    const size = shapeSize(own);
    this.dtype = dtype;
    this.shape = this.#shape = Object.freeze(own);
    const ctor = ARRAY_CTORS[dtype];
    if (data === undefined) {
      this.data = allocate(dtype, size);
    } else if (ArrayBuffer.isView(data) || data instanceof TypedArray) {
      // Another typed array is refused, not converted: its values may not fit
      // (a Float64Array's in f32, an Int32Array's in u8). instanceof also
      // sees through a Proxy of a typed array, which has no buffer to view
      // and is copied (same type: exact); a view's class is its internal
      // slot's, whatever its prototype says.
      const view = ArrayBuffer.isView(data);
      if (view ? !isDataOf(dtype, data) : !((data as object) instanceof ctor)) {
        throw new TypeError(`${dtype} tensor needs ${withArticle(ctor.name)}, got ${(view && typedArrayName(data)) || typeName(data)}`);
      }
      this.data = (view ? data : copyOfProxy(data as object, ctor as Uint8ArrayConstructor)) as DataTypeMap[D];
    } else {
      this.data = fromValues(dtype, data, own, size);
    }
    // The built-in length (plain.ts): a subclass's may lie.
    const n = lengthOf(this.data);
    if (n !== size) throw new RangeError(`shape ${shapeText(own)} needs ${elements(size)}, data has ${n}`);
  }

  /** Number of elements. */
  get size(): number {
    return this.data.length;
  }

  /** The data as plain numbers (i64 converted with Number()). */
  toArray(): number[] {
    return Array.from(this.data as ArrayLike<number | bigint>, (v) => Number(v));
  }
}
