// Public entry point of the Shrew npm package.
import { instantiate, instantiateDefault, ModuleState, type LoadOptions } from "./module.js";
import { ShrewCompileError, ShrewRuntimeError, runtimeErrorFrom, type Diagnostic } from "./errors.js";
import { Program } from "./program.js";
import { describe, isArrayBuffer, isDetached, plainBytes, plainView, sourceBytes, typeName, typedArrayName, wellFormed } from "./plain.js";
import { BOOLEAN, COUNT, DIMS, SEED, TENSOR_BYTES, checkOptions, invalid, rule, type Rule } from "./options.js";
import type { CompileOptions, LoadBundleOptions } from "./signature.js";
import { didYouMean } from "./spelling.js";
import type { SourceSpan } from "./tape.js";

export { ShrewRuntimeError, ShrewCompileError, type Diagnostic, type RuntimeErrorDetails } from "./errors.js";
export { Tensor, DTYPES, isDType, shapeSize, type DType, type DataTypeMap, type TensorData, type TensorValues, type ValueTypeMap } from "./tensor.js";
export { readNpy, writeNpy, NpyError } from "./npy.js";
export { Program, type Feeds, type Outputs, type AnyTensor, type TensorLike, type IrDump } from "./program.js";
export type { RunOptions } from "./outputs.js";
export type {
  CompileOptions, CompileStats, Dim, LoadBundleOptions, OptStats, ParamInfo, ProgramMetadata, Signature, TensorSpec,
} from "./signature.js";
export type { LoadOptions } from "./module.js";
export type { SourceSpan, TapeDump, TapeInstruction, TapeNode } from "./tape.js";
export type { Profile, ProfileInstruction, ProfileOp, ProfileOptions } from "./profile.js";
export { Rng } from "./rng.js";

// Each call's options, checked before any call into wasm (the module checks
// compile and loadBundle options again, but its messages cannot show a
// value's type) and made plain data: getters run once, dims and params are
// copied, a filename's lone surrogates become U+FFFD.
const LOAD_OPTIONS: Record<string, Rule> = {
  // Either kind from any realm (a Jest environment's Buffer is a foreign Uint8Array).
  wasmBinary: rule("must be an ArrayBuffer or a Uint8Array", (v) => isArrayBuffer(v) || typedArrayName(v) === "Uint8Array" || v instanceof Uint8Array),
  // "" would be taken as no URL at all.
  wasmUrl: rule("must be a URL or a non-empty string", (v) => (typeof v === "string" && v !== "") || v instanceof URL),
};
const PARAMS: Rule = (value, name) => {
  const bytes = plainBytes(value);  // a Proxy's traps run now, not while wasm copies it
  if (bytes === undefined || isDetached(value)) throw invalid(name, "must be a Uint8Array (a saveParams() blob)", value);
  return bytes;
};
const FLOATS = ["f16", "bf16", "f32", "f64"];
// A misspelt name is told the closest, as an input's dtype is.
const FLOAT_DTYPE: Rule = (value, name) => {
  if (typeof value === "string" && FLOATS.includes(value)) return value;
  const e = invalid(name, 'must be "f16", "bf16", "f32" or "f64"', value);
  throw typeof value === "string" ? new ShrewRuntimeError(e.code, e.message + didYouMean(value, FLOATS)) : e;
};
// In the module's order, which its messages list.
const COMPILE_OPTIONS: Record<string, Rule> = {
  filename: rule("must be a string", (v) => typeof v === "string", wellFormed),
  dims: DIMS, seed: SEED, optimize: BOOLEAN, training: BOOLEAN, maxTensorBytes: TENSOR_BYTES, params: PARAMS,
  maxStepsPerRun: COUNT,
  defaultDtype: FLOAT_DTYPE,
};
const LOAD_BUNDLE_OPTIONS: Record<string, Rule> = { training: BOOLEAN, maxTensorBytes: TENSOR_BYTES, maxStepsPerRun: COUNT };

/** A loaded Shrew runtime (one wasm instance). */
export class Shrew {
  readonly #module: ModuleState;

  private constructor(module: ModuleState) {
    // `private` binds TypeScript only: from JS, `new Shrew()` made an object
    // whose every member failed on an internal undefined.
    if (!(module instanceof ModuleState)) throw new TypeError("Shrew cannot be constructed directly; use await Shrew.load()");
    this.#module = module;
  }

  /**
   * Loads the wasm module. Node: reads shrew.wasm next to the package; browser: fetches it.
   * Without options the wasm instance is created once and shared by every Shrew
   * this returns (each call returns a new Shrew over it; re-created if it aborted).
   */
  static async load(options: LoadOptions = {}): Promise<Shrew> {
    const opts = checkOptions(options, "load", LOAD_OPTIONS) as LoadOptions;
    if (opts.wasmBinary !== undefined || opts.wasmUrl !== undefined) return new Shrew(await instantiate(opts));
    return new Shrew(await instantiateDefault());
  }

  /** True when the module was built with WebAssembly SIMD128. */
  get simd128(): boolean {
    return this.#module.call((raw) => raw.simd128());
  }

  /** Wasm linear memory size and the bytes malloc currently holds (for leak checks). */
  heapStats(): { heapBytes: number; usedBytes: number } {
    return this.#module.call((raw) => raw.heapStats());
  }

  /**
   * The line of `source` (text, or its UTF-8 bytes) that `span` starts on, a
   * run error's or a tape node's, with a caret line under the span, as a
   * compile diagnostic's `rendered` shows them: `"  TEXT\n  ^~~\n"`. The caret
   * counts terminal cells (a wide character two, a combining mark none;
   * control and invisible characters are shown as spaces); a line of over
   * 400 bytes is shown as a window around the span. Undefined when the line
   * is not in the source. `program.source()` gives the text a program's spans
   * point into.
   */
  excerpt(source: string | Uint8Array, span: SourceSpan): string | undefined {
    this.#module.checkLive();
    const text = sourceBytes(source);
    const whole = (v: unknown) => Number.isSafeInteger(v) && (v as number) >= 0 && (v as number) <= 0x7fffffff;
    if (span === null || typeof span !== "object" || !whole(span.line) || !whole(span.column) || !whole(span.length)) {
      throw new TypeError(`excerpt expects a span {line, column, length}, got ${describe(span)}`);
    }
    const shown = this.#module.call((raw) => raw.excerpt(text, span.line, span.column, span.length));
    return shown === "" ? undefined : shown;
  }

  /** Set once a wasm abort made this instance unusable. */
  get aborted(): boolean {
    return this.#module.dead !== undefined;
  }

  /**
   * Compiles `.sw` source (text, or its UTF-8 bytes as they are) into a
   * runnable program. Throws ShrewCompileError with every diagnostic when the
   * source has errors.
   */
  compile(source: string | Uint8Array, options: CompileOptions = {}): Program {
    this.#module.checkLive();  // an unusable module says so whatever the arguments
    const text = sourceBytes(source);
    const opts = checkOptions(options, "compile", COMPILE_OPTIONS);
    return this.#module.call((raw) => {
      const handle = new raw.ProgramHandle();
      let owned = true;
      try {
        const r = handle.compile(text, opts);
        if (r.ok === false && "code" in r) throw runtimeErrorFrom(r);
        const diagnostics = (r.diagnostics ?? []) as unknown as Diagnostic[];
        if (!r.ok) throw new ShrewCompileError(r.stage, diagnostics, r.rendered);
        owned = false;
        return new Program(Program.internal, this.#module, handle, (opts.dims ?? {}) as Record<string, number>, {
          optStats: r.optStats!, seed: BigInt(r.seed!), warnings: diagnostics.filter((d) => d.severity !== "error"),
          graphs: r.graphs!,
        });
      } finally {
        if (owned && this.#module.dead === undefined) handle.delete();
      }
    });
  }

  /**
   * A runnable program from a bundle (`Program.saveBundle()`, or
   * `shrew build` on the command line): the optimised program, its dims,
   * seed and parameter values, loaded without compiling any source. The
   * bundle is checked through (lengths, indices, then the same validation and
   * shape inference as a compile, every stored type against its operands);
   * a corrupt or foreign one throws ShrewRuntimeError ("invalid_argument")
   * saying what and where. The bytes are read, not kept.
   */
  loadBundle(bundle: Uint8Array, options: LoadBundleOptions = {}): Program {
    this.#module.checkLive();
    const bytes = plainBytes(bundle);  // a Proxy's traps run now, not while wasm copies it
    if (bytes === undefined || isDetached(bundle)) {
      throw new ShrewRuntimeError("invalid_argument", `a bundle must be a Uint8Array (a saveBundle() result), got ${describe(bundle)}`);
    }
    const opts = checkOptions(options, "loadBundle", LOAD_BUNDLE_OPTIONS);
    return this.#module.call((raw) => {
      const handle = new raw.ProgramHandle();
      let owned = true;
      try {
        const r = handle.loadBundle(bytes, opts);
        if (r.ok === false) throw runtimeErrorFrom(r);
        owned = false;
        return new Program(Program.internal, this.#module, handle, r.dims, {
          optStats: r.optStats, seed: BigInt(r.seed), warnings: [], graphs: r.graphs, bundled: true,
        });
      } finally {
        if (owned && this.#module.dead === undefined) handle.delete();
      }
    });
  }

  /**
   * y = x · wᵀ + bias with XNNPACK's fully-connected operator.
   * x: [batch, in], w: [out, in], bias: [out] or empty. Returns a fresh [batch, out] array.
   */
  dense(batch: number, inFeatures: number, outFeatures: number, x: Float32Array, w: Float32Array,
        bias: Float32Array = new Float32Array(0)): Float32Array {
    this.#module.checkLive();
    for (const n of [batch, inFeatures, outFeatures]) {
      if (typeof n !== "number") throw new ShrewRuntimeError("invalid_argument", `dense: sizes must be non-negative integers, got ${typeName(n)}`);
    }
    const xs = denseArray(x, "x"), ws = denseArray(w, "w"), bs = denseArray(bias, "bias");
    const r = this.#module.call((raw) => raw.denseXnn(batch, inFeatures, outFeatures, xs, ws, bs));
    if (!r.ok) throw new ShrewRuntimeError(r.code, r.message);
    return r.data;
  }
}

/** A dense() operand as plain data: a Float32Array, or an array of numbers. */
function denseArray(v: unknown, what: string): Float32Array | number[] {
  const view = plainView(v, Float32Array);
  if (view !== undefined) return view;
  if (Array.isArray(v)) {
    // Indexed, not every(): every() skips a hole, which then went in as NaN.
    const out = new Array<number>(v.length);
    for (let i = 0; i < v.length; i++) {
      const e: unknown = v[i];
      if (typeof e !== "number") {
        throw new ShrewRuntimeError("invalid_argument",
          `dense: ${what} must be a Float32Array or an array of numbers; element ${i} is ${i in v ? describe(e) : "a hole"}`);
      }
      out[i] = e;
    }
    return out;
  }
  throw new ShrewRuntimeError("invalid_argument", `dense: ${what} must be a Float32Array, got ${typeName(v)}`);
}
