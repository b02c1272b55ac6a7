// Reading and writing NumPy .npy files (format versions 1.0, 2.0, 3.0),
// the format numpy users exchange arrays in. Fortran-order and big-endian
// arrays are read (converted to C order, little-endian), and the integer and
// half-float types without a Tensor dtype widened, exactly, to the one the
// runtime feeds such an input as; writes are C order.
import { Tensor, type AnyTensor, type DType, ARRAY_CTORS, shapeSize, byteSize, allocate, isDataOf } from "./tensor.js";
import { bytesView, describe, elements, lengthOf, plainBytes, typeName, withArticle } from "./plain.js";

const MAGIC = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59]; // \x93NUMPY

const DESCR_TO_DTYPE: Record<string, DType> = {
  "<f4": "f32", "<f8": "f64", "<i4": "i32", "<i8": "i64", "|u1": "u8", "<u1": "u8", "|b1": "bool",
  // numpy writes these from `astype('>f4')` or a big-endian machine: byte-swapped when read.
  ">f4": "f32", ">f8": "f64", ">i4": "i32", ">i8": "i64", ">u1": "u8",
};
/**
 * numpy dtypes read as a wider Tensor dtype, as the runtime takes an input
 * declared with them (int8/int16 as i32, uint16/uint32/uint64 as i64,
 * float16 as f32), each value converted exactly (a uint64 past 2^63 - 1 is refused).
 */
const WIDENED: Record<string, { dtype: DType; width: number; bits?: true; get: (v: DataView, at: number, little: boolean) => number | bigint }> = {
  i1: { dtype: "i32", width: 1, get: (v, at) => v.getInt8(at) },
  i2: { dtype: "i32", width: 2, get: (v, at, le) => v.getInt16(at, le) },
  u2: { dtype: "i64", width: 2, get: (v, at, le) => BigInt(v.getUint16(at, le)) },
  u4: { dtype: "i64", width: 4, get: (v, at, le) => BigInt(v.getUint32(at, le)) },
  u8: { dtype: "i64", width: 8, get: (v, at, le) => v.getBigUint64(at, le) },
  // The f32's bits: a NaN written as a number would lose its sign and payload.
  f2: { dtype: "f32", width: 2, bits: true, get: (v, at, le) => halfToFloatBits(v.getUint16(at, le)) },
};

/**
 * The f32 bits of an IEEE binary16 value from its bits, exactly; a NaN keeps
 * its sign and payload (shifted into the f32's top fraction bits, as numpy
 * widens it).
 */
function halfToFloatBits(h: number): number {
  const sign = (h & 0x8000) << 16, exp = (h >> 10) & 0x1f, frac = h & 0x3ff;
  if (exp === 0x1f) return (sign | 0x7f800000 | (frac << 13)) >>> 0;
  if (exp !== 0) return (sign | ((exp + 112) << 23) | (frac << 13)) >>> 0;
  if (frac === 0) return sign >>> 0;
  // A subnormal half is a normal f32: shift its leading 1 into the implicit bit.
  let e = 113, f = frac;
  while ((f & 0x400) === 0) f <<= 1, e--;
  return (sign | (e << 23) | ((f & 0x3ff) << 13)) >>> 0;
}

/** How to read a descr: the Tensor dtype, the file's bytes per value, big-endian, widened. */
function descrType(descr: string): { dtype: DType; width: number; bigEndian: boolean; widen?: (typeof WIDENED)[string] } | undefined {
  if (Object.hasOwn(DESCR_TO_DTYPE, descr)) {
    const dtype = DESCR_TO_DTYPE[descr];
    return { dtype, width: byteSize(dtype), bigEndian: descr[0] === ">" };
  }
  const order = descr[0], code = descr.slice(1);
  // '|' is numpy's "no byte order", for 1-byte types.
  if (!Object.hasOwn(WIDENED, code) || !(order === "<" || order === ">" || (order === "|" && code === "i1"))) return undefined;
  const widen = WIDENED[code];
  return { dtype: widen.dtype, width: widen.width, bigEndian: order === ">", widen };
}

/** numpy's name of each supported type code (the descr without its byte order). */
const NUMPY_NAME: Record<string, string> = {
  f2: "float16", f4: "float32", f8: "float64", i1: "int8", i2: "int16", i4: "int32", i8: "int64",
  u1: "uint8", u2: "uint16", u4: "uint32", u8: "uint64", b1: "bool",
};

const SUPPORTED = [...Object.keys(DESCR_TO_DTYPE), "|i1", ...Object.keys(WIDENED).filter((c) => c !== "i1").flatMap((c) => [`<${c}`, `>${c}`])];

const DTYPE_TO_DESCR: Record<DType, string> = {
  f32: "<f4", f64: "<f8", i32: "<i4", i64: "<i8", u8: "|u1", bool: "|b1",
};

export class NpyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "NpyError";
  }
}

/**
 * The header: a Python dict literal, e.g.
 * {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
 * read as src/io/npy.cc reads it: those three keys and no other, the dict
 * closed, nothing after it but padding, as numpy requires; a key twice is
 * refused (numpy keeps the last: regular expressions here took the first).
 */
function parseHeader(text: string): { descr: string; fortran: boolean; shape: number[] } {
  let pos = 0;
  const bad = (what: string): NpyError => new NpyError(`malformed .npy header (${what}): ${JSON.stringify(text.slice(0, 120))}`);
  const space = () => { while (pos < text.length && " \t\n\r".includes(text[pos])) pos++; };
  const eat = (c: string) => text[pos] === c && (pos++, true);
  const quoted = (): string => {
    const q = text[pos];
    if (q !== "'" && q !== '"') throw bad("expected a quoted string");
    const end = text.indexOf(q, pos + 1);
    if (end < 0) throw bad("unterminated string");
    const v = text.slice(pos + 1, end);
    if (v.includes("\\")) throw bad("escapes in header strings are not supported");
    pos = end + 1;
    return v;
  };
  const dim = (): number => {
    const token = /^[^,)\s]*/.exec(text.slice(pos))![0];
    pos += token.length;
    // Plain digits (Python 2 wrote `3L`): Number() would also take "0x10", "1e3" and "".
    const n = /^[0-9]+L?$/.test(token) ? Number(token.replace(/L$/, "")) : NaN;
    if (!Number.isSafeInteger(n)) throw new NpyError(`bad dimension '${token}' in .npy shape`);
    return n;
  };
  const tuple = (): number[] => {
    if (!eat("(")) throw bad("'shape' must be a tuple");
    const dims: number[] = [];
    for (;;) {
      space();
      if (eat(")")) return dims;
      dims.push(dim());
      space();
      if (eat(",")) continue;
      space();
      if (eat(")")) return dims;
      throw bad("expected ',' or ')' in 'shape'");
    }
  };
  let descr: string | undefined, fortran: boolean | undefined, shape: number[] | undefined;
  space();
  if (!eat("{")) throw bad("the header is not a dict");
  for (;;) {
    space();
    if (eat("}")) break;
    const key = quoted();
    space();
    if (!eat(":")) throw bad(`expected ':' after key '${key}'`);
    space();
    if (key === "descr") {
      if (descr !== undefined) throw bad("duplicate key 'descr'");
      if (text[pos] !== "'" && text[pos] !== '"') throw new NpyError("unsupported .npy dtype: structured dtypes are not supported");
      descr = quoted();
    } else if (key === "fortran_order") {
      if (fortran !== undefined) throw bad("duplicate key 'fortran_order'");
      if (text.startsWith("True", pos)) [fortran, pos] = [true, pos + 4];
      else if (text.startsWith("False", pos)) [fortran, pos] = [false, pos + 5];
      else throw bad("'fortran_order' must be True or False");
    } else if (key === "shape") {
      if (shape !== undefined) throw bad("duplicate key 'shape'");
      shape = tuple();
    } else {
      throw bad(`unknown key '${key}'`);
    }
    space();
    if (eat(",")) continue;
    space();
    if (eat("}")) break;
    throw bad("expected ',' or '}'");
  }
  space();
  if (pos !== text.length) throw bad("characters after the dict");
  if (descr === undefined || fortran === undefined || shape === undefined) throw bad("it needs 'descr', 'fortran_order' and 'shape'");
  return { descr, fortran, shape };
}

/** What a .npy file's header says: its array, and where the data starts and ends. */
export interface NpyHeader {
  dtype: DType;
  shape: number[];
  /** Column-major data (numpy's fortran_order), and big-endian values: readNpy converts both. */
  fortran: boolean;
  bigEndian: boolean;
  /** Offset of the first data byte (the header's end). */
  dataStart: number;
  /** Bytes of data the shape and the file's dtype need. */
  dataBytes: number;
  /** numpy's name of the file's dtype ("int8", "float64"): what the file holds, before any widening. */
  numpy: string;
  /** The file's dtype, when read as the wider `dtype`. */
  widen?: { width: number; bits?: true; get: (v: DataView, at: number, little: boolean) => number | bigint };
}

/** The largest header read: version 1.0 headers stop at 64 KiB, a 2.0 header could claim 4 GiB. */
export const NPY_MAX_HEADER = 2 ** 20;

/**
 * The length of a .npy file's header up to and including its data's start,
 * from its first 12 bytes (10 for version 1.0; fewer: what is missing is
 * reported as truncated). Lets a reader stop after the header.
 */
export function npyHeaderEnd(bytes: Uint8Array): number {
  if (bytes.length < 6 || !MAGIC.every((b, i) => bytes[i] === b)) {
    const got = Array.from(bytes.subarray(0, 6), (b) => b.toString(16).padStart(2, "0")).join(" ");
    throw new NpyError(`not a .npy file (bad magic: expected the bytes 93 4e 55 4d 50 59, "\\x93NUMPY", got ${got || "an empty file"})`);
  }
  const major = bytes[6];
  if (major !== undefined && major !== 1 && major !== 2 && major !== 3) throw new NpyError(`unsupported .npy version ${major}`);
  const prefix = major === 1 ? 10 : 12;
  if (bytes.length < prefix) throw new NpyError(`truncated .npy header: the file ends after ${bytes.length} bytes`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const headerLen = major === 1 ? view.getUint16(8, true) : view.getUint32(8, true);
  if (headerLen > NPY_MAX_HEADER) throw new NpyError(`.npy header of ${headerLen} bytes is over the 1 MiB this reader takes`);
  return prefix + headerLen;
}

/** Parses the header of .npy bytes (which hold at least npyHeaderEnd of them). */
export function readNpyHeader(bytes: Uint8Array): NpyHeader {
  const dataStart = npyHeaderEnd(bytes);
  if (dataStart > bytes.length) {
    throw new NpyError(`truncated .npy header: it ends at byte ${dataStart}, the file after ${bytes.length}`);
  }
  const offset = bytes[6] === 1 ? 10 : 12;
  // A copy: browsers' TextDecoder refuses a view of a SharedArrayBuffer.
  const header = new TextDecoder(bytes[6] === 3 ? "utf-8" : "latin1").decode(bytes.slice(offset, dataStart));
  const { descr, fortran, shape } = parseHeader(header);
  const type = descrType(descr);
  if (!type) throw new NpyError(`unsupported .npy dtype '${descr}' (supported: ${SUPPORTED.join(", ")})`);
  const { dtype, width, bigEndian, widen } = type;
  let size: number;
  try {
    size = shapeSize(shape);
  } catch (e) {
    // More than 2^53 - 1 elements: a bad file like any other, not a RangeError a caller catching NpyError misses.
    throw new NpyError((e as Error).message);
  }
  return { dtype, shape, fortran, bigEndian, dataStart, dataBytes: size * width, numpy: NUMPY_NAME[descr.slice(1)] ?? descr,
           ...(widen ? { widen } : {}) };
}

/** Parses .npy bytes into a Tensor (copying the data). */
export function readNpy(bytes: Uint8Array): AnyTensor {
  // An ArrayBuffer (fetch's arrayBuffer()) or a DataView failed deep inside with "bytes.subarray is not a function".
  const plain = plainBytes(bytes);
  if (plain === undefined) throw new TypeError(`readNpy expects the file's bytes as a Uint8Array, got ${typeName(bytes)}`);
  bytes = plain;
  const { dtype, shape, fortran, bigEndian, dataStart, dataBytes: need, widen } = readNpyHeader(bytes);
  const size = shapeSize(shape);
  if (bytes.length - dataStart < need) {
    throw new NpyError(`.npy data is truncated: shape [${shape.join(", ")}] needs ${need} bytes, file has ${bytes.length - dataStart}`);
  }
  const data = allocate(dtype, size);
  if (widen) {
    const view = new DataView(bytes.buffer, bytes.byteOffset + dataStart, need);
    const into = widen.bits ? new Uint32Array(data.buffer, data.byteOffset, size) : data;
    for (let i = 0; i < size; i++) {
      const v = widen.get(view, i * widen.width, !bigEndian);
      if (typeof v === "bigint" && v > 0x7fffffffffffffffn) {
        throw new NpyError(`uint64 value ${v} (at ${i}) does not fit i64, which the runtime reads uint64 inputs as`);
      }
      (into as Float32Array)[i] = v as number;
    }
  } else {
    const raw = new Uint8Array(data.buffer, data.byteOffset, need);
    raw.set(bytes.subarray(dataStart, dataStart + need));
    const width = byteSize(dtype);
    if (bigEndian && width > 1) for (let i = 0; i < need; i += width) raw.subarray(i, i + width).reverse();
  }
  if (fortran && shape.length > 1) fromFortranOrder(data, shape);
  if (dtype === "bool") for (let i = 0; i < size; i++) data[i] = data[i] ? 1 : 0;
  return new Tensor(dtype, shape, data) as AnyTensor;
}

/** Reorders column-major `data` of `shape` (rank 2 or more) to row-major, in place (through a copy). */
function fromFortranOrder(data: Tensor["data"], shape: readonly number[]): void {
  // Moved as integers of the element's width: a float read into a JS number
  // quiets a signalling NaN (an f16's 0x7c01 came out 0x7fc02000).
  const view = data instanceof Float32Array ? new Uint32Array(data.buffer, data.byteOffset, data.length)
    : data instanceof Float64Array ? new BigUint64Array(data.buffer, data.byteOffset, data.length) : data;
  permuteFromFortran(view, shape);
}

function permuteFromFortran(data: { length: number; [i: number]: number | bigint; slice(): typeof data }, shape: readonly number[]): void {
  const src = data.slice();
  const rank = shape.length;
  // The column-major stride of each axis, and an odometer over the row-major index.
  const stride = new Array<number>(rank);
  for (let k = 0, s = 1; k < rank; s *= shape[k], k++) stride[k] = s;
  const index = new Array<number>(rank).fill(0);
  let from = 0;
  for (let i = 0; i < data.length; i++) {
    data[i] = src[from];
    for (let k = rank - 1; k >= 0; k--) {
      if (++index[k] < shape[k]) {
        from += stride[k];
        break;
      }
      from -= (shape[k] - 1) * stride[k];
      index[k] = 0;
    }
  }
}

/**
 * Serialises a tensor as a .npy file: version 1.0, or 2.0 (4-byte header
 * length) when the header is longer than 65535 bytes, as NumPy does.
 */
export function writeNpy(t: Tensor): Uint8Array<ArrayBuffer> {
  if (t === null || typeof t !== "object") throw new TypeError(`writeNpy expects a Tensor, got ${describe(t)}`);
  // Read once, then checked as the Tensor constructor checks them: its
  // fields are readonly in TypeScript only, and a look-alike has no checks.
  // The header must describe the bytes written after it (a Float64Array
  // under '<f4', 2 values under shape (3,) or a shape of (1.5,) made files
  // that numpy misreads or refuses).
  const { dtype, data } = t;
  const descr = Object.hasOwn(DTYPE_TO_DESCR, dtype) ? DTYPE_TO_DESCR[dtype] : undefined;
  if (descr === undefined) {
    throw new NpyError(`cannot write dtype '${String(dtype)}' as .npy (supported: ${Object.keys(DTYPE_TO_DESCR).join(", ")})`);
  }
  if (!isDataOf(dtype, data)) throw new TypeError(`writeNpy: ${dtype} tensor data must be ${withArticle(ARRAY_CTORS[dtype].name)}, got ${describe(data)}`);
  const dims = Array.isArray(t.shape) ? [...t.shape] : t.shape;
  const size = shapeSize(dims);
  // Sizes through the built-in getters (plain.ts): a subclass's length may lie.
  const n = lengthOf(data);
  if (n !== size) throw new RangeError(`writeNpy: shape [${dims.join(", ")}] needs ${elements(size)}, data has ${n}`);
  const shape = dims.length === 1 ? `(${dims[0]},)` : `(${dims.join(", ")})`;
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': ${shape}, }`;
  // magic + version + length field + header + '\n' is a multiple of 64.
  const padded = (prefix: number) => Math.ceil((prefix + header.length + 1) / 64) * 64;
  const v1 = padded(10) - 10 <= 0xffff;
  const prefix = v1 ? 10 : 12;
  const total = padded(prefix);
  header = header.padEnd(total - prefix - 1, " ") + "\n";
  const dataBytes = bytesView(data);
  const out = new Uint8Array(total + dataBytes.length);
  out.set(MAGIC, 0);
  out[6] = v1 ? 1 : 2;
  out[7] = 0;
  const view = new DataView(out.buffer);
  if (v1) view.setUint16(8, header.length, true);
  else view.setUint32(8, header.length, true);
  for (let i = 0; i < header.length; i++) out[prefix + i] = header.charCodeAt(i);
  out.set(dataBytes, total);
  // numpy writes bools as the bytes 0 and 1 only, and readers that take a
  // byte as it is (numpy's own cast to float16 among them, numpy#19514) saw
  // 2 or 255: any non-zero byte is written as 1, as the runtime reads a bool input.
  if (dtype === "bool") for (let i = total; i < out.length; i++) out[i] = out[i] !== 0 ? 1 : 0;
  return out;
}
