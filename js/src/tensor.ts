// Tensors as they cross the JS boundary: a dtype, a shape and a typed array.

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

export const DTYPES: readonly DType[] = ["f32", "f64", "i32", "i64", "u8", "bool"];

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

/** Number of elements of a shape (1 for rank 0). Throws on a bad shape. */
export function shapeSize(shape: readonly number[]): number {
  let n = 1;
  for (const d of shape) {
    if (!Number.isSafeInteger(d) || d < 0) throw new RangeError(`invalid dimension ${d} in shape [${shape.join(", ")}]`);
    n *= d;
  }
  if (!Number.isSafeInteger(n)) throw new RangeError(`shape [${shape.join(", ")}] has too many elements`);
  return n;
}

/** The dtype a typed array holds by default (Uint8Array -> u8). */
export function dtypeOfArray(data: ArrayBufferView): DType | undefined {
  if (data instanceof Float32Array) return "f32";
  if (data instanceof Float64Array) return "f64";
  if (data instanceof Int32Array) return "i32";
  if (data instanceof BigInt64Array) return "i64";
  if (data instanceof Uint8Array) return "u8";
  return undefined;
}

export function allocate<D extends DType>(dtype: D, length: number): DataTypeMap[D] {
  return new ARRAY_CTORS[dtype](length) as DataTypeMap[D];
}

/** Internal (not exported by the package): see the Tensor constructor. */
export const TRUSTED: unique symbol = Symbol("shrew.trustedTensor");

/**
 * A tensor: dtype, shape (row-major) and data. The data array is the caller's:
 * Shrew copies it into wasm memory on run and never keeps or modifies it.
 */
export class Tensor<D extends DType = DType> {
  readonly dtype: D;
  readonly shape: readonly number[];
  readonly data: DataTypeMap[D];

  /**
   * Checks the dtype, copies and freezes the shape, and takes `data` when it
   * is the dtype's typed array of the shape's size (else copies plain
   * numbers; undefined: zeros). `trusted` is the package's own, not exported.
   */
  constructor(dtype: D, shape: readonly number[], data?: DataTypeMap[D] | ArrayLike<number> | ArrayLike<bigint>,
              trusted?: typeof TRUSTED) {
    if (trusted === TRUSTED) {
      // The package's own outputs: a frozen shape and a matching array of the
      // dtype, made by the run path (per call, so no checks or shape copy).
      this.dtype = dtype;
      this.shape = shape;
      this.data = data as DataTypeMap[D];
      return;
    }
    if (!isDType(dtype)) throw new TypeError(`unknown dtype '${String(dtype)}' (expected one of ${DTYPES.join(", ")})`);
    const size = shapeSize(shape);
    this.dtype = dtype;
    this.shape = Object.freeze([...shape]);
    if (data === undefined) {
      this.data = allocate(dtype, size);
    } else if (ArrayBuffer.isView(data)) {
      const ctor = ARRAY_CTORS[dtype];
      if (!(data instanceof ctor)) {
        throw new TypeError(`${dtype} tensor needs a ${ctor.name}, got ${(data as object).constructor.name}`);
      }
      this.data = data as DataTypeMap[D];
    } else {
      this.data = (dtype === "i64"
        ? BigInt64Array.from(data as ArrayLike<bigint>, (v) => BigInt(v))
        : (ARRAY_CTORS[dtype] as Float64ArrayConstructor).from(data as ArrayLike<number>)) as DataTypeMap[D];
    }
    if (this.data.length !== size) {
      throw new RangeError(`shape [${shape.join(", ")}] needs ${size} elements, data has ${this.data.length}`);
    }
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
