// Plain data from what callers pass in, taken before any call into wasm (a
// getter, Proxy trap or toString then runs while no wasm frame is on the
// stack, so it may even dispose a program), and objects that hold any name
// as an own property.
import { ShrewRuntimeError } from "./errors.js";

/**
 * Whether `v` is an object whose own keys are its names ({name: value}): not
 * null, an array, a typed array, or a Map or Set (their entries are no own
 * keys: read as an object, one holds no names at all).
 */
export function isNamedObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v) && !ArrayBuffer.isView(v) &&
    !(v instanceof Map || v instanceof Set || v instanceof WeakMap || v instanceof WeakSet);
}

// A high surrogate without a low one after it, or a low one without a high one before it.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Refuses a name (graph, input, parameter, dim) with a lone surrogate: no
 * name in a program has one, and the module's UTF-8 conversion took the
 * character after it into a made-up one, so "no graph named 'G\ud800x'"
 * read "no graph named 'G𐁸'".
 */
export function checkWellFormed(name: string, what: string): void {
  const m = LONE_SURROGATE.exec(name);
  if (m === null) return;
  const shown = JSON.stringify(name);
  throw new ShrewRuntimeError("invalid_argument",
    `${what} ${shown} has a lone surrogate (\\u${m[0].charCodeAt(0).toString(16)} at index ${m.index}): it is not well-formed text, and no name has one`);
}

/** `v` with every object in it frozen (plain data from the module: no cycles). */
export function deepFreeze<T>(v: T): T {
  if (v !== null && typeof v === "object" && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const key of Object.keys(v)) deepFreeze((v as Record<string, unknown>)[key]);
  }
  return v;
}

/** obj[key] = value as an own property, "__proto__" included (assigning it would set the prototype). */
export function setOwn<T>(obj: Record<string, T>, key: string, value: T): void {
  if (key === "__proto__") Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  else obj[key] = value;
}

const TYPED_ARRAY = Object.getPrototypeOf(Uint8Array.prototype) as object;
const intrinsic = (key: string) => Object.getOwnPropertyDescriptor(TYPED_ARRAY, key)!.get!;

// A typed array's class as its internal slot names it ("Float32Array"):
// undefined for anything else (a Proxy of one too), and no subclass,
// prototype or constructor property can change it. It also names arrays
// made in another realm (a Jest environment, node:vm, an iframe), which
// `instanceof` refuses: Node's Buffer there is a foreign Uint8Array.
const TYPED_ARRAY_NAME = Object.getOwnPropertyDescriptor(TYPED_ARRAY, Symbol.toStringTag)!.get!;
export const typedArrayName = (v: unknown): string | undefined => TYPED_ARRAY_NAME.call(v) as string | undefined;

const ARRAY_BUFFER_BYTES = Object.getOwnPropertyDescriptor(ArrayBuffer.prototype, "byteLength")!.get!;
/** Whether `v` is an ArrayBuffer (not a shared one), from any realm. */
export function isArrayBuffer(v: unknown): v is ArrayBuffer {
  try {
    ARRAY_BUFFER_BYTES.call(v);
    return true;
  } catch {
    return false;
  }
}
const BUFFER = intrinsic("buffer");
const BYTE_OFFSET = intrinsic("byteOffset");
const BYTE_LENGTH = intrinsic("byteLength");
const LENGTH = intrinsic("length");
const SET = (TYPED_ARRAY as { set: (this: ArrayBufferView, src: ArrayBufferView, offset?: number) => void }).set;

// A caller's typed array may be a subclass, or carry own properties, whose
// length, byteLength, buffer, byteOffset or set() lie or run code (dispose
// the program, run it again, grow wasm memory) in the middle of a run. The
// run path reads and writes caller arrays only through these, the built-in
// getters and method, which see the array's own slots and run no user code.
// Each takes a real typed array (ArrayBuffer.isView), never a Proxy.

/** Elements, through the built-in getter (0 when its buffer is detached). */
export const lengthOf = (v: ArrayBufferView): number => LENGTH.call(v);
/** Bytes, through the built-in getter (0 when its buffer is detached). */
export const byteLengthOf = (v: ArrayBufferView): number => BYTE_LENGTH.call(v);

/** A Uint8Array over the same bytes, made through the built-in getters (empty when detached). */
export function bytesView(v: ArrayBufferView): Uint8Array {
  const n = BYTE_LENGTH.call(v);
  return n === 0 ? new Uint8Array(0) : new Uint8Array(BUFFER.call(v), BYTE_OFFSET.call(v), n);
}

/** The buffer and byte span of a typed array, through the built-in getters. */
export function spanOf(v: ArrayBufferView): { buffer: ArrayBufferLike; start: number; end: number } {
  const start = BYTE_OFFSET.call(v);
  return { buffer: BUFFER.call(v), start, end: start + BYTE_LENGTH.call(v) };
}

/** `dst.set(src, offset)` by the built-in method: a subclass's own set() never gets `src` (a view of wasm memory). */
export function copyInto(dst: ArrayBufferView, src: ArrayBufferView, offset = 0): void {
  SET.call(dst, src, offset);
}

type ViewCtor<T> = { new (buffer: ArrayBufferLike, byteOffset: number, length: number): T; new (length: number): T;
                    from(a: ArrayLike<number>): T; readonly BYTES_PER_ELEMENT: number };

const INDEX_KEY = /^(?:0|[1-9]\d*)$/;

/**
 * A copy, as a `ctor` array, of `v`: a Proxy of one (instanceof sees through
 * it, but it has no typed-array slots, so no buffer to view). Through
 * `ctor.from` when the handler lets the built-in methods run (one that binds
 * them to its target); those refuse a Proxy as `this` otherwise (an empty
 * handler: even `length` throws), so then element by element over its own
 * index keys, which a Proxy passes on to its target.
 */
export function copyOfProxy<T>(v: object, ctor: ViewCtor<T>): T {
  try {
    return ctor.from(v as ArrayLike<number>);
  } catch {
    const n = Reflect.ownKeys(v).filter((k) => typeof k === "string" && INDEX_KEY.test(k)).length;
    const out = new ctor(n);
    for (let i = 0; i < n; i++) (out as unknown as unknown[])[i] = (v as unknown as unknown[])[i];
    return out;
  }
}

/**
 * A `ctor` typed array as a plain view of the same memory (no copy), read
 * through the built-in getters (a subclass's overrides do not count), from
 * any realm; a Proxy of one is copied. Undefined when `v` is not a `ctor` array.
 */
export function plainView<T>(v: unknown, ctor: ViewCtor<T> & { readonly name: string }): T | undefined {
  if (!ArrayBuffer.isView(v)) {
    // A Proxy: no typed-array slots to read, but instanceof sees through it.
    return v instanceof (ctor as unknown as typeof Uint8Array) ? copyOfProxy(v as object, ctor) : undefined;
  }
  if (typedArrayName(v) !== ctor.name) return undefined;
  const buffer: ArrayBufferLike = BUFFER.call(v);
  const length = BYTE_LENGTH.call(v) / ctor.BYTES_PER_ELEMENT;
  // A detached buffer reads as empty (a view of it cannot be made).
  return length === 0 ? ctor.from([]) : new ctor(buffer, BYTE_OFFSET.call(v), length);
}

export const plainBytes = (v: unknown): Uint8Array | undefined => plainView(v, Uint8Array);

/**
 * Whether `v` is a typed array whose buffer was detached (transferred): it
 * reads as empty, which a blob's decoder would call "bad magic; 0 bytes".
 * (ArrayBuffer.prototype.detached is newer than Node 20: a view of 0 bytes
 * of a detached buffer cannot be made, of an empty one it can.)
 */
export function isDetached(v: unknown): boolean {
  // Typed arrays only (a DataView has none of their getters).
  if (typedArrayName(v) === undefined || BYTE_LENGTH.call(v) !== 0) return false;
  try {
    new Uint8Array(BUFFER.call(v) as ArrayBuffer, 0, 0);
    return false;
  } catch {
    return true;
  }
}

/**
 * A value for an error message, its type shown wherever the text alone would
 * hide it: 1.5, NaN, `"2" (a string)`, `2n (a bigint)`, `true (a boolean)`,
 * null, undefined, an array, a Float32Array, an object.
 */
export function describe(v: unknown): string {
  switch (typeof v) {
    case "number": return String(v);
    case "string": return `${JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v)} (a string)`;
    case "bigint": return `${v}n (a bigint)`;
    case "boolean": return `${v} (a boolean)`;
    case "undefined": return "undefined";
    case "symbol": return "a symbol";
    case "function": return "a function";
  }
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  const name = typeName(v);
  if (isDetached(v)) return `${withArticle(name)} whose buffer was detached (transferred)`;
  return name === "object" ? "an object" : withArticle(name);
}

/**
 * `word` after the indefinite article its first sound takes: "an
 * Int32Array", "an ArrayBuffer", "a Float32Array", and "a Uint8Array", "a
 * URL" (a U said "you"). For type names in messages.
 */
export function withArticle(word: string): string {
  return `${/^(?:[aeio]|u(?!int|ni|s[eu]|r[li]))/i.test(word) ? "an" : "a"} ${word}`;
}

/** "1 element", "3 elements": a count for messages. */
export function elements(n: number): string {
  return `${n} element${n === 1 ? "" : "s"}`;
}

/** "null", "string", "Float32Array", …: what a value is, for messages. */
export function typeName(v: unknown): string {
  if (v === null) return "null";
  if (typeof v !== "object") return typeof v;
  const ctor = (v as { constructor?: { name?: unknown } }).constructor;
  return typeof ctor?.name === "string" && ctor.name !== "" ? ctor.name : "object";
}

const ENCODER = new TextEncoder();

/** UTF-8 bytes of source text (a lone surrogate becomes U+FFFD); bytes as given. */
export function sourceBytes(source: unknown): Uint8Array {
  if (typeof source === "string") return ENCODER.encode(source);
  const bytes = plainBytes(source);
  if (bytes === undefined) throw new TypeError(`source must be a string or a Uint8Array, got ${typeName(source)}`);
  // Read as empty, it compiled as a program of no graphs.
  if (isDetached(source)) throw new TypeError(`source must be a string or a Uint8Array, got ${describe(source)}`);
  // A copy: an option's getter, read after this, may detach or shrink the caller's buffer.
  return bytes.slice();
}

/** A string with each lone surrogate replaced by U+FFFD (Emscripten's UTF-8 encoder would swallow the next character). */
export function wellFormed(s: string): string {
  return s.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, "\uFFFD");
}

// "a, b, c"; past 20 names "a, b, …, t, … (N in all)", as the C++ messages
// list them.
export function joinNames(names: readonly string[]): string {
  const shown = names.slice(0, 20).join(", ");
  return names.length > 20 ? `${shown}, … (${names.length} in all)` : shown;
}
