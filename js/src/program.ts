// A compiled, runnable Shrew program: one wasm ProgramHandle.
//
// `run` takes the lean path for the input types of a graph's last few
// bindings (MAX_PREPARED, most recently used first; a server alternating
// batch sizes keeps them all): the graph is prepared once per binding
// (checked and planned in C++, input
// buffers at fixed addresses), then each call writes the input bytes straight
// into those buffers through a HEAPU8 view, makes one call of a plain wasm
// export with two integers, and copies each output once out of the heap into a fresh
// typed array the caller owns (an i32, i64 inside, through a 32-bit copy the
// module widens and narrows). `interpret`, and graphs whose output shapes
// depend on values, go through the value path (one byte view per input
// copied into a host tensor, outputs as fresh copies).
// `[Symbol.dispose]` (for `using`) needs the Disposable types. The reference
// is kept in program.d.ts (preserve), so that a consumer whose lib is ES2022 (this
// package's own target) type-checks without adding esnext.disposable itself.
/// <reference lib="esnext.disposable" preserve="true" />
import type { RawProgramHandle, RawTensorIn, RawTensorOut, ErrorValue, PreparedValue, RawGraphValue, RawSignature } from "./wasm/shrew.mjs";
import type { ModuleState } from "./module.js";
import { ShrewRuntimeError, runtimeErrorFrom } from "./errors.js";
import { ARRAY_CTORS as CTORS, ARRAY_FOR_DECLARED, type AnyTensor, Tensor, TRUSTED, type DType, type TensorData, dtypeOfArray, isDataOf, isDType, madeShape, shapeSize, unproxied } from "./tensor.js";
import { type Destinations, type RunOptions, checkDestination, checkNoSharedMemory, deliver, destinations, tensorFromRaw, wrapped } from "./outputs.js";
import type {
  CompileStats, Dim, OptStats, ParamInfo, ProgramMetadata, Signature, TensorSpec,
} from "./signature.js";
import type { TapeDump } from "./tape.js";
import { byteLengthOf, bytesView, checkWellFormed, copyInto, deepFreeze, describe, elements, isDetached, isNamedObject, joinNames, lengthOf, plainBytes, setOwn, typeName, withArticle } from "./plain.js";
import { BOOLEAN, DIMS, checkOptions, rule, type Rule } from "./options.js";
import { type Profile, type ProfileOptions, profileFrom } from "./profile.js";
import { didYouMean } from "./spelling.js";

/** An input: a Tensor, a {dtype, shape, data} object, or a bare typed array when the input's shape is fully known. */
export type TensorLike = Tensor | { dtype: DType; shape: readonly number[]; data: TensorData } | TensorData;
/** Inputs by name; an input given as undefined is left out. */
export type Feeds = Record<string, TensorLike | undefined>;
export type { AnyTensor };
export type Outputs = Record<string, AnyTensor>;

export interface IrDump {
  /** The §7.7 text dump. */
  text: string;
  /** The JSON form (parsed). */
  json: unknown;
}

const INTERNAL = Symbol("shrew.internal");

const IR_OPTIONS: Record<string, Rule> = { optimized: BOOLEAN };
/** The most timed runs one profile takes (jit::kMaxProfileRuns; a long tape allows fewer: 2^22 kernel times). */
export const MAX_PROFILE_RUNS = 10000;
const PROFILE_OPTIONS: Record<string, Rule> = {
  runs: rule(`must be an integer from 1 to ${MAX_PROFILE_RUNS}`, (v) => Number.isInteger(v) && (v as number) >= 1 && (v as number) <= MAX_PROFILE_RUNS),
  warmup: rule("must be an integer from 0 to 1000000", (v) => Number.isInteger(v) && (v as number) >= 0 && (v as number) <= 1e6),
};

/** The most runs one benchRun call makes (its count crosses into wasm as an int32). */
const MAX_BENCH_RUNS = 2 ** 31 - 1;
/** `run`'s options when none are given: one shared object, not a fresh one per call. */
const NO_OPTIONS: RunOptions = Object.freeze({});

function isError(v: { ok: boolean }): v is ErrorValue {
  return v.ok === false;
}

function unwrap<T extends { ok: boolean }>(v: T | ErrorValue): Exclude<T, ErrorValue> {
  if (isError(v)) throw runtimeErrorFrom(v);
  return v as Exclude<T, ErrorValue>;
}

/**
 * A Tensor as it crosses, its fields read once, when they are still what its
 * constructor checked: its own frozen shape, and data of the dtype's typed
 * array. Undefined otherwise (a field reassigned, Object.create(Tensor.prototype),
 * a Proxy): the caller checks it like a {dtype, shape, data} object.
 */
function rawTensor(name: string, t: Tensor): Feed | undefined {
  const { dtype, shape, data } = t;
  return shape === madeShape(t) && isDataOf(dtype, data) ? { name, dtype, shape, data } : undefined;
}

/**
 * A checked input: its data is the caller's typed array, viewed as bytes only
 * on the value path (the lean path copies it through a heap view of its type,
 * with no view object per call).
 */
interface Feed {
  name: string;
  dtype: string;
  shape: readonly number[];
  data: ArrayBufferView;
}

/**
 * A feed whose data no longer fills its shape: a Tensor's buffer detached or
 * resized since it was checked (the lean path leaves such a feed to the
 * value path). Named like a bare array of the wrong length.
 */
function checkFedLength(f: Feed, what = "input"): void {
  const size = shapeSize(f.shape);
  const n = byteLengthOf(f.data) / CTORS[f.dtype as DType].BYTES_PER_ELEMENT;
  if (n === size) return;
  const expected = `[${f.shape.join(", ")}]`;
  throw new ShrewRuntimeError("invalid_argument",
    `${what} '${f.name}': expected ${expected} (${elements(size)}), got ${withArticle(typeName(f.data))} of ${elements(n)} (its buffer was detached or resized)`,
    { input: f.name, expected, actual: `[${n}]` });
}

// Where the two executors' generators stand (Program#generators).
interface GeneratorStates {
  tape: string;
  interpreter: string;
}

/** A feed as the module's run/interpret take it. */
function wire(f: Feed): RawTensorIn {
  // A detached buffer reads as empty, and the size check then names the input.
  return { name: f.name, dtype: f.dtype, shape: f.shape, bytes: bytesView(f.data) };
}

/** Embind would throw its own BindingError, naming neither the argument nor the method. */
export function checkString(value: unknown, what: string): void {
  if (typeof value !== "string") throw new TypeError(`${what} must be a string, got ${value === null ? "null" : typeof value}`);
  checkWellFormed(value, what);
}

/** A graph prepared for one set of input types (names in feed order, dtypes, shapes). */
interface Prepared {
  readonly key: readonly { name: string; dtype: string; shape: readonly number[] }[];
  readonly lean: boolean;
  readonly id: number;
  readonly inPtrs: readonly number[];
  readonly inBytes: readonly number[];
  readonly outputs: readonly { name: string; dtype: DType; shape: readonly number[]; bytes: number }[];
  readonly outPtrs: number;
  readonly handle: number;
}

function preparedFrom(key: Prepared["key"], v: PreparedValue): Prepared {
  return {
    key, lean: v.lean, id: v.id ?? -1,
    inPtrs: v.inputs?.map((i) => i.ptr) ?? [], inBytes: v.inputs?.map((i) => i.bytes) ?? [],
    outputs: v.outputs?.map((o) => ({ ...o, dtype: o.dtype as DType, shape: Object.freeze([...o.shape]) })) ?? [],
    outPtrs: v.outPtrs ?? 0, handle: v.handle ?? 0,
  };
}

function signatureFrom(raw: RawSignature): Signature {
  const spec = (t: TensorSpec): TensorSpec => Object.freeze({ ...t, shape: t.shape && Object.freeze([...t.shape]) });
  return Object.freeze({ name: raw.name, inputs: Object.freeze(raw.inputs.map(spec)), outputs: Object.freeze(raw.outputs.map(spec)) });
}

// Each signature's inputs by name, built on first use: looking an input up
// by scanning the list made a call with n inputs cost O(n²).
const inputsByName = new WeakMap<Signature, ReadonlyMap<string, TensorSpec>>();
function inputSpec(sig: Signature, name: string): TensorSpec | undefined {
  let m = inputsByName.get(sig);
  if (m === undefined) {
    m = new Map(sig.inputs.map((i) => [i.name, i]));
    inputsByName.set(sig, m);
  }
  return m.get(name);
}

/** The error for a feed name that is no input of the graph (as the module words it). */
function noSuchInput(sig: Signature, name: string): ShrewRuntimeError {
  const names = sig.inputs.map((i) => i.name);
  return new ShrewRuntimeError("invalid_argument",
    `graph '${sig.name}' has no input named '${name}'${didYouMean(name, names) || ";"} its inputs are: ${joinNames(names)}`, { input: name });
}

// Prepared bindings kept per graph. Each holds input buffers the size of
// its inputs; preparing again costs 20-30 µs in wasm (Embind marshalling of
// the specs and the result), a prepared run of a small graph ~8 µs.
const MAX_PREPARED = 8;

function sameKey(key: Prepared["key"], raw: readonly Feed[]): boolean {
  if (key.length !== raw.length) return false;
  for (let k = 0; k < raw.length; k++) {
    const a = key[k], b = raw[k];
    if (a.name !== b.name || a.dtype !== b.dtype || a.shape.length !== b.shape.length) return false;
    for (let d = 0; d < a.shape.length; d++) if (a.shape[d] !== b.shape[d]) return false;
  }
  return true;
}

const registry = new FinalizationRegistry<RawProgramHandle>((handle) => {
  try {
    handle.delete();
  } catch {
    // The module may be dead; nothing left to free.
  }
});

/**
 * A Tensor (by its prototype) with no dtype: made by Object.create, or its
 * field cleared. "must be a Tensor …, got a Tensor" contradicted itself.
 */
function hollow(value: unknown): string | undefined {
  return value instanceof Tensor && (value as { dtype?: unknown }).dtype === undefined ? "a Tensor without a dtype" : undefined;
}

export class Program {
  readonly #module: ModuleState;
  #handle: RawProgramHandle | undefined;
  #graphs: readonly string[];
  readonly #signatures = new Map<string, Signature>();
  readonly #concreteShapes = new WeakMap<TensorSpec, readonly number[] | null>();
  // Per graph, most recently used first (at most MAX_PREPARED).
  readonly #prepared = new Map<string, Prepared[]>();
  // Views of the whole wasm memory by typed-array class: inputs copied in,
  // outputs sliced out, output addresses read (Uint32). Made again when
  // memory grows and detaches the old buffer.
  readonly #heapViews = new Map<unknown, ArrayBufferView>();
  #dims: Readonly<Record<string, number>>;
  #metadata: ProgramMetadata;
  #optStats: OptStats;
  #warnings: readonly import("./errors.js").Diagnostic[];
  readonly #seed: bigint;
  readonly #bundled: boolean;

  /** @internal Use `Shrew.compile`. */
  constructor(token: symbol, module: ModuleState, handle: RawProgramHandle, dims: Record<string, number>,
              info: { optStats: OptStats; seed: bigint; warnings: import("./errors.js").Diagnostic[]; graphs: RawGraphValue[];
                      bundled?: boolean }) {
    if (token !== INTERNAL) throw new TypeError("Program cannot be constructed directly; use Shrew.compile()");
    this.#bundled = info.bundled ?? false;
    this.#module = module;
    this.#handle = handle;
    this.#dims = Object.freeze({ ...dims });
    // What the program reports is frozen, as its dims and signatures are: a
    // caller's change to one would show in every later read (each getter returns the same object).
    this.#optStats = deepFreeze(info.optStats);
    this.#seed = info.seed;
    this.#warnings = deepFreeze(info.warnings);
    this.#graphs = this.#adopt(info.graphs);
    this.#metadata = deepFreeze(module.call(() => handle.metadata()) as unknown as ProgramMetadata);
    registry.register(this, handle, this);
  }

  /**
   * Takes the graphs of a compile or setDims result: their signatures, and
   * the runs the module prepared for graphs whose input types the
   * configuration fixes (a first run with those types then only copies and
   * runs). Returns the graph names.
   */
  #adopt(graphs: readonly RawGraphValue[]): readonly string[] {
    for (const g of graphs) {
      this.#signatures.set(g.name, signatureFrom(g.signature));
      if (g.key !== undefined && g.prepared !== undefined) this.#prepared.set(g.name, [preparedFrom(g.key, g.prepared)]);
    }
    return Object.freeze(graphs.map((g) => g.name));
  }

  /** @internal */
  static get internal(): symbol {
    return INTERNAL;
  }

  // Every public member starts here, before it reads its arguments: a
  // disposed program throws `disposed` (and one whose module aborted,
  // `aborted`) whatever it is passed.
  #live(): RawProgramHandle {
    if (this.#handle === undefined) throw new ShrewRuntimeError("disposed", "this Program has been disposed");
    this.#module.checkLive();
    return this.#handle;
  }

  #call<T>(fn: (h: RawProgramHandle) => T): T {
    const h = this.#live();
    return this.#module.call(() => fn(h));
  }

  /** Graph names in source order. */
  get graphs(): readonly string[] {
    this.#live();
    return this.#graphs;
  }

  /** Optimiser counters of the whole program. */
  get optStats(): OptStats {
    this.#live();
    return this.#optStats;
  }

  /** Warnings reported while compiling (the last setDims included). */
  get warnings(): readonly import("./errors.js").Diagnostic[] {
    this.#live();
    return this.#warnings;
  }

  /** The configured dims (compile option, changed by setDims). */
  get dims(): Readonly<Record<string, number>> {
    this.#live();
    return this.#dims;
  }

  /**
   * The effective parameter seed as a number: the `seed` compile option,
   * else `@config { seed: N; }` (a negative N taken modulo 2^64), else 0; a
   * bundle's, the one it was built with. A seed past 2^53 - 1 has no exact
   * number: reading it here throws a RangeError (`seedBigInt` holds every
   * seed exactly).
   */
  get seed(): number {
    this.#live();
    if (this.#seed > BigInt(Number.MAX_SAFE_INTEGER)) {
      throw new RangeError(`this program's seed ${this.#seed} is past 2^53 - 1, where a number would round it: read seedBigInt`);
    }
    return Number(this.#seed);
  }

  /** The effective parameter seed, exact: a bigint from 0 to 2^64 - 1 (what `seed` gives as a number, when it can). */
  get seedBigInt(): bigint {
    this.#live();
    return this.#seed;
  }

  /** The @model / @config / @types / @training / @inference blocks. */
  get metadata(): ProgramMetadata {
    this.#live();
    return this.#metadata;
  }

  /** True for a program loaded from a bundle (it has no source to compile again: no setDims, only the optimised IR). */
  get fromBundle(): boolean {
    this.#live();
    return this.#bundled;
  }

  get disposed(): boolean {
    return this.#handle === undefined;
  }

  signature(graph: string): Signature {
    this.#live();
    checkString(graph, "graph");
    let s = this.#signatures.get(graph);
    if (!s) {
      s = signatureFrom(unwrap(this.#call((h) => h.signature(graph))));
      this.#signatures.set(graph, s);
    }
    return s;
  }

  /** Runs a graph on the JIT tape executor; outputs by name in declaration order. */
  run(graph: string, inputs: Feeds = {}, options: RunOptions = NO_OPTIONS): Outputs {
    return this.#execute(graph, inputs, false, options);
  }

  /** Runs a graph on the reference interpreter (same parameters). */
  interpret(graph: string, inputs: Feeds = {}, options: RunOptions = NO_OPTIONS): Outputs {
    return this.#execute(graph, inputs, true, options);
  }

  #execute(graph: string, inputs: Feeds, interpret: boolean, options: RunOptions): Outputs {
    this.#live();
    // `run({ x })`: the inputs passed where the graph's name goes.
    if (typeof graph === "object" && graph !== null) {
      const verb = interpret ? "interpret" : "run";
      throw new TypeError(`graph must be a string, got an object: ${verb}() takes the graph's name first, as in ` +
                          `${verb}(${JSON.stringify(this.#graphs[0] ?? "G")}, inputs)`);
    }
    checkString(graph, "graph");
    // A Map's entries are no own keys: it fed no inputs at all.
    if (!isNamedObject(inputs)) throw new TypeError(`inputs must be an object {name: tensor}, got ${describe(inputs)}`);
    const sig = this.signature(graph);
    const into = options === NO_OPTIONS ? undefined : destinations(options, sig, interpret ? "interpret" : "run");
    // At most one per input of the graph (names are unique): sized once, not
    // grown by push (an empty array's first push allocates 17 slots).
    const raw: Feed[] = new Array(sig.inputs.length);
    let fed = 0;
    // An input given as undefined is left out, as options are: `{ x, mask: maybeMask }`
    // runs without an optional mask, and a required one is reported missing with its type.
    // for-in over own keys: Object.entries' arrays per call would be garbage
    // (fresh nursery lines, each a cache miss once weights stream through).
    for (const name in inputs) {
      if (!Object.hasOwn(inputs, name)) continue;
      const value = inputs[name];
      checkWellFormed(name, "input name");
      // A misspelt name is reported as such, whatever its value is.
      const spec = inputSpec(sig, name);
      if (!spec) throw noSuchInput(sig, name);
      if (value !== undefined) raw[fed++] = this.#toRaw(name, value, spec);
    }
    raw.length = fed;
    if (!interpret) {
      const out = this.#runLean(graph, raw, into);
      if (out !== undefined) return out;
    }
    for (const f of raw) checkFedLength(f);
    // Destinations are checked here once the run has shaped the outputs; one
    // that refuses them fails the call, which then draws nothing (its dropout
    // masks are put back, as for any failed run).
    const before = into === undefined ? undefined : this.#generators();
    const wired = raw.map(wire);
    const r = unwrap(this.#call((h) => (interpret ? h.interpret(graph, wired) : h.run(graph, wired))));
    if (before === undefined) return deliver(graph, r.outputs, into);
    try {
      return deliver(graph, r.outputs, into);
    } catch (e) {
      this.#setGenerators(before);
      throw e;
    }
  }

  // Both executors' generators as they stand (64-bit states as decimal text).
  #generators(): GeneratorStates {
    const g = unwrap(this.#call((h) => h.generators()));
    return { tape: g.tape, interpreter: g.interpreter };
  }

  #setGenerators(g: GeneratorStates): void {
    unwrap(this.#call((h) => h.setGenerators(g.tape, g.interpreter)));
  }

  /** The lean path; undefined when this binding must take the value path. */
  #runLean(graph: string, raw: readonly Feed[], into: Destinations | undefined): Outputs | undefined {
    const h = this.#live();
    let list = this.#prepared.get(graph);
    if (list === undefined) this.#prepared.set(graph, list = []);
    let p: Prepared;
    if (list.length > 0 && sameKey(list[0].key, raw)) {
      p = list[0];
    } else {
      let at = 1;
      while (at < list.length && !sameKey(list[at].key, raw)) at++;
      if (at < list.length) {
        p = list[at];
        list.splice(at, 1);
      } else {
        const specs = raw.map((r) => ({ name: r.name!, dtype: r.dtype, shape: [...r.shape] }));
        p = preparedFrom(specs, unwrap<PreparedValue>(this.#call((hh) => hh.prepare(graph, specs))));
        if (list.length >= MAX_PREPARED) {
          const old = list.pop()!;
          if (old.lean) this.#module.call(() => h.release(old.id));
        }
      }
      list.unshift(p);
    }
    if (!p.lean) return undefined;
    // From here until the outputs are copied out no code of the caller's
    // runs (plain.ts: caller arrays only through the built-in getters and
    // set): it could dispose the program, run it or grow wasm memory while
    // inputs or outputs wait in it.
    // A data length that does not match its shape: the value path reports it.
    for (let k = 0; k < raw.length; k++) if (byteLengthOf(raw[k].data) !== p.inBytes[k]) return undefined;
    if (into !== undefined) {
      // Destinations are checked before the run, so before any is written
      // (the lean path's output types are fixed).
      checkNoSharedMemory(into);
      for (const spec of p.outputs) {
        const dest = into.get(spec.name);
        if (dest !== undefined) checkDestination(graph, spec.name, spec.dtype, spec.shape, spec.bytes, dest);
      }
    }
    const m = this.#module.raw;
    let heap = m.HEAPU8;  // no allocation since the last call: this view is current
    for (let k = 0; k < raw.length; k++) {
      const { dtype, data } = raw[k];
      const ctor = CTORS[dtype as DType];
      const ptr = p.inPtrs[k];
      // Same element type: a plain copy of the bytes.
      if (ptr % ctor.BYTES_PER_ELEMENT === 0) copyInto(this.#heapView(ctor, heap.buffer), data, ptr / ctor.BYTES_PER_ELEMENT);
      else heap.set(bytesView(data), ptr);
    }
    if (this.#module.runPrepared(p.handle, p.id) !== 0) throw runtimeErrorFrom(this.#module.call(() => h.lastError()));
    heap = m.HEAPU8;  // the run may have grown memory (re-planning): a fresh view
    const buffer = heap.buffer as ArrayBuffer;
    const ptrs = this.#heapView(Uint32Array, buffer) as Uint32Array;
    const out: Outputs = {};
    for (let o = 0; o < p.outputs.length; o++) {
      const spec = p.outputs[o];
      const ptr = ptrs[(p.outPtrs >>> 2) + o];
      const ctor = CTORS[spec.dtype];
      const n = spec.bytes / ctor.BYTES_PER_ELEMENT;
      const dest = into?.get(spec.name);
      const aligned = ptr % ctor.BYTES_PER_ELEMENT === 0;
      let data: TensorData;
      if (dest === undefined && aligned && (ctor as { [Symbol.species]?: unknown })[Symbol.species] === ctor) {
        // A slice of the heap view of its type: one new array, no view object
        // per call (small ones stay on V8's heap, no ArrayBuffer materialised).
        const at = ptr / ctor.BYTES_PER_ELEMENT;
        data = (this.#heapView(ctor, buffer) as Float32Array).slice(at, at + n) as TensorData;
      } else {
        data = dest === undefined ? new ctor(n) as TensorData : dest.data;
        if (aligned) copyInto(data, new ctor(buffer, ptr, n));
        else bytesView(data).set(heap.subarray(ptr, ptr + spec.bytes));
      }
      setOwn(out, spec.name, dest === undefined ? new Tensor(spec.dtype, spec.shape, data as never, TRUSTED)
        : dest.tensor ?? wrapped(spec.dtype, spec.shape, data));
    }
    return out;
  }

  #heapView(ctor: (typeof CTORS)[DType] | Uint32ArrayConstructor, buffer: ArrayBufferLike): ArrayBufferView {
    let v = this.#heapViews.get(ctor);
    if (v === undefined || v.buffer !== buffer) {
      v = new ctor(buffer as ArrayBuffer);
      this.#heapViews.set(ctor, v);
    }
    return v;
  }

  /**
   * Mean nanoseconds per run of the graph's tape inside wasm (Executor::Run
   * looped `n` times; no input/output copies, no JS), on the input shapes of
   * the graph's last `run`. For benchmarks: ns per instruction is this
   * divided by `stats(graph).numInstructions`. `n` is at most
   * MAX_BENCH_RUNS (2^31 - 1: it crosses as a 32-bit integer). Training-mode
   * dropout masks of later runs are as if it had not run (as for profile).
   */
  benchRun(graph: string, n: number): number {
    this.#live();
    checkString(graph, "graph");
    if (!Number.isSafeInteger(n) || n < 1) throw new RangeError(`benchRun: n must be a positive integer, got ${describe(n)}`);
    if (n > MAX_BENCH_RUNS) throw new RangeError(`benchRun: n must be at most 2^31 - 1, got ${n}`);
    if (!this.graphs.includes(graph)) {
      throw new ShrewRuntimeError("not_found", `no graph named '${graph}'${didYouMean(graph, this.#graphs) || ";"} graphs: ${joinNames(this.#graphs)}`);
    }
    unwrap(this.#call((h) => h.checkSteps(graph)));  // over the step limit: run's error, not "has not run yet"
    // Its runs draw dropout masks: put back (they moved the tape's generator
    // only, so run and interpret then drew apart).
    const before = this.#generators();
    let ns: number;
    try {
      ns = this.#call((h) => h.benchRun(graph, n));
    } finally {
      // After an abort in this call, its own error is the one to see.
      if (!this.disposed && this.#module.dead === undefined) this.#setGenerators(before);
    }
    if (ns < 0) throw new ShrewRuntimeError("failed_precondition", `graph '${graph}' has not run since it was compiled (or its last run failed): run it once before benchRun`);
    return ns;
  }

  /**
   * Where a run's time goes, per tape instruction: runs the graph once on
   * `inputs` (binding its shapes, as `run` does), then `warmup` more times
   * untimed (default 10: V8 optimises wasm as it runs), then `runs` times
   * (default 50, at most 10,000) with each kernel timed, each timed run
   * followed by an untimed one. A kernel's `ns` is its mean over the timed
   * runs, less those whose kernels took over twice the median and a clock
   * step (the core was taken), with the cost of reading the clock taken off.
   * Browsers step performance.now by 5-100 µs (`clockStepNs`): there a
   * kernel's mean needs many runs to settle.
   */
  profile(graph: string, inputs: Feeds = {}, options: ProfileOptions = {}): Profile {
    this.#live();
    checkString(graph, "graph");
    const opts = checkOptions(options, "profile", PROFILE_OPTIONS) as { runs?: number; warmup?: number };
    const runs = opts.runs ?? 50;
    const warmup = opts.warmup ?? 10;
    // The warm-up runs draw dropout masks: put back, so that a profile
    // changes no later run's masks (the timed runs restore them themselves).
    const before = this.#generators();
    let raw;
    try {
      this.run(graph, inputs);
      for (let i = 0; i < warmup; i++) this.run(graph, inputs);
      raw = unwrap(this.#call((h) => h.profile(graph, runs)));
    } finally {
      // After an abort in this call, its own error is the one to see.
      if (!this.disposed && this.#module.dead === undefined) this.#setGenerators(before);
    }
    return profileFrom(raw, this.tape(graph));
  }

  #toRaw(name: string, value: TensorLike, spec: TensorSpec): Feed {
    if (value instanceof Tensor) {
      // Anything but a Tensor as its constructor left it is checked below,
      // like {dtype, shape, data}.
      const raw = rawTensor(name, value);
      if (raw !== undefined) return raw;
    }
    value = unproxied(value) as TensorLike;
    if (ArrayBuffer.isView(value)) {
      const shape = this.#concreteShape(spec);
      if (!shape) {
        // A `?` input has no dims to bind: only the value can say its shape.
        const fix = spec.shape === null ? ": a typed array alone does not say its dtype and shape"
          : spec.shape.includes(null) ? ": a typed array alone does not say its shape" : ", or bind its dims when compiling";
        throw new ShrewRuntimeError("invalid_argument",
          `input '${name}' has type ${spec.type}: pass a Tensor or {dtype, shape, data}${fix}`,
          { input: name, expected: spec.type });
      }
      let dtype = dtypeOfArray(value);
      if (dtype === "u8" && spec.dtype === "bool") dtype = "bool";
      if (!dtype) {
        // An Int8Array for an i8 input, a Uint16Array for a u16 one: say which array the input takes.
        const takes = spec.dtype !== null && Object.hasOwn(ARRAY_FOR_DECLARED, spec.dtype)
          ? `; its dtype ${spec.dtype} takes ${withArticle(ARRAY_FOR_DECLARED[spec.dtype])}` : "";
        const what = value instanceof DataView ? "a DataView is no tensor data" : `unsupported typed array ${typeName(value)}`;
        throw new TypeError(`input '${name}': ${what}${takes} ` +
                            "(a tensor's data is a Float32Array, Float64Array, Int32Array, BigInt64Array or Uint8Array)");
      }
      const size = shapeSize(shape);
      const n = lengthOf(value);
      if (n !== size) {
        const expected = `[${shape.join(", ")}]`;
        throw new ShrewRuntimeError("invalid_argument",
          `input '${name}': expected ${expected} (${elements(size)}), got ${withArticle(typeName(value))} of ${elements(n)}`,
          { input: name, expected, actual: `[${n}]` });
      }
      return { name, dtype, shape, data: value };
    }
    const v = value as { dtype?: unknown; shape?: unknown; data?: unknown } | null;
    if (v === null || typeof v !== "object" || v.dtype === undefined) {
      // A plain (nested) array: numbers would have to be narrowed to the
      // input's dtype, so it is not taken; show the exact way to pass it.
      const ctor = Array.isArray(value) && spec.dtype != null && Object.hasOwn(CTORS, spec.dtype)
        ? CTORS[spec.dtype as DType].name : undefined;
      const shape = ctor === undefined ? undefined : this.#concreteShape(spec);
      const hint = ctor === undefined ? ""
        : `; make one from the values: new Tensor("${spec.dtype}", ${shape ? `[${shape.join(", ")}]` : "shape"}, ` +
          `${ctor}.from(values.flat(Infinity)${spec.dtype === "i64" ? ", BigInt" : ""}))`;
      throw new TypeError(`input '${name}' must be a Tensor, a {dtype, shape, data} object or a typed array, got ${hollow(value) ?? describe(value)}${hint}`);
    }
    // A {dtype, shape, data} object: its fields read once and checked like
    // the Tensor constructor's, each error naming the input and the field
    // (a dtype "float32" or a shape that is no array only said "must be a
    // Tensor, a {dtype, shape, data} object or a typed array").
    const { dtype, shape } = v;
    const data = unproxied(v.data);
    let t: Tensor;
    try {
      // The data is a typed array, taken as is (a list of values is not converted here).
      if (isDType(dtype) && !ArrayBuffer.isView(data)) throw new TypeError(`${dtype} tensor data must be ${withArticle(CTORS[dtype].name)}, got ${describe(data)}`);
      t = new Tensor(dtype as DType, shape as readonly number[], data as never);
    } catch (e) {
      if (e instanceof RangeError) throw new RangeError(`input '${name}': ${e.message}`);
      if (e instanceof TypeError) throw new TypeError(`input '${name}': ${e.message}`);
      throw e;
    }
    return { name, dtype: t.dtype, shape: t.shape, data: t.data };
  }

  /**
   * An input's shape with the bound dims filled in; undefined while one is
   * unbound. Kept per spec, so a run does not build it again: setDims, the
   * one change of #dims, replaces the signatures and so their specs.
   */
  #concreteShape(spec: TensorSpec): readonly number[] | undefined {
    let shape = this.#concreteShapes.get(spec);
    if (shape === undefined) {
      shape = null;
      if (spec.shape) {
        const out: number[] = [];
        for (const d of spec.shape as Dim[]) {
          if (typeof d === "number") out.push(d);
          else if (typeof d === "string" && Object.hasOwn(this.#dims, d)) out.push(this.#dims[d]);
          else break;
        }
        if (out.length === spec.shape.length) shape = Object.freeze(out);
      }
      this.#concreteShapes.set(spec, shape);
    }
    return shape ?? undefined;
  }

  /** The JIT dump of a graph: tape, values and memory plan (text). */
  dump(graph: string): string {
    this.#live();
    checkString(graph, "graph");
    return unwrap(this.#call((h) => h.dump(graph))).text;
  }

  /** JIT statistics of a graph (arena fields 0 before the first run of a symbolic graph). */
  stats(graph: string): CompileStats {
    this.#live();
    checkString(graph, "graph");
    const { ok: _ok, ...s } = unwrap(this.#call((h) => h.stats(graph)));
    return s;
  }

  /** The memory plan as a JSON string. */
  plan(graph: string): string {
    this.#live();
    checkString(graph, "graph");
    return unwrap(this.#call((h) => h.plan(graph))).text;
  }

  /** The compiled tape, one entry per instruction (arena fields null before the first run of a symbolic graph). */
  tape(graph: string): TapeDump {
    this.#live();
    checkString(graph, "graph");
    return JSON.parse(unwrap(this.#call((h) => h.tape(graph))).text) as TapeDump;
  }

  /** The IR of a graph, optimised (default) or as materialised. */
  ir(graph: string, options: { optimized?: boolean | undefined } = {}): IrDump {
    this.#live();
    checkString(graph, "graph");
    const opts = checkOptions(options, "ir", IR_OPTIONS) as { optimized?: boolean };
    const r = unwrap(this.#call((h) => h.ir(graph, opts.optimized ?? true)));
    return { text: r.text, json: JSON.parse(r.json) };
  }

  /** Parameters (`GRAPH/PARAM`, sorted by key). */
  params(): ParamInfo[] {
    return this.#call((h) => h.params());
  }

  getParam(name: string): AnyTensor {
    this.#live();
    checkString(name, "parameter name");
    const r = this.#call((h) => h.getParam(name));
    // Named in the error's fields too, as setParam's are.
    if (isError(r)) throw runtimeErrorFrom({ ...r, input: r.input ?? name });
    return tensorFromRaw(r) as AnyTensor;
  }

  /**
   * Overwrites a parameter. Shape must match; the dtype is the one getParam
   * returns (f32 for f16/bf16, i32 for i8/i16/i32, i64 for u16/u32/u64/i64) —
   * or, for any integer dtype but u8, the other of i32 and i64 — and every
   * value must fit the declared dtype (an i8 parameter refuses 300), as an
   * input's.
   */
  setParam(name: string, value: Tensor | { dtype: DType; shape: readonly number[]; data: TensorData }): void {
    this.#live();
    checkString(name, "parameter name");
    const raw = this.#paramValue(name, value);
    const r = this.#call((h) => h.setParam(name, raw));
    if (isError(r)) throw runtimeErrorFrom({ ...r, input: r.input ?? name });
  }

  /** setParam's value as plain data; a value that is no tensor at all is an error naming the parameter. */
  #paramValue(name: string, value: unknown): RawTensorIn {
    const v = value as { dtype?: unknown; shape?: unknown; data?: unknown } | null;
    if (v === null || typeof v !== "object" || ArrayBuffer.isView(v) || v.dtype === undefined) {
      const info = this.params().find((p) => p.name === name);
      const expected = info && `${info.declaredDtype}[${info.shape.join(", ")}]`;
      const got = hollow(value) ?? typeName(value);
      throw new ShrewRuntimeError("invalid_argument",
        `parameter '${name}': expected a Tensor or {dtype, shape, data}${expected ? ` of ${expected}` : ""}, got ${got}`,
        { input: name, ...(expected ? { expected } : {}), actual: got });
    }
    const raw = v instanceof Tensor ? rawTensor(name, v) : undefined;
    if (raw !== undefined) {
      checkFedLength(raw, "parameter");  // a Tensor whose buffer was detached since
      return wire(raw);
    }
    let t: Tensor;
    try {
      t = new Tensor(v.dtype as DType, v.shape as number[], v.data as never);
    } catch (e) {
      // Named like an input's: "unknown dtype 'float'" alone did not say which value had it.
      if (e instanceof RangeError) throw new RangeError(`parameter '${name}': ${e.message}`);
      if (e instanceof TypeError) throw new TypeError(`parameter '${name}': ${e.message}`);
      throw e;
    }
    return { name, dtype: t.dtype, shape: t.shape, bytes: bytesView(t.data) };
  }

  /**
   * Every parameter in one versioned binary blob (format documented in
   * src/api/param_blob.h: magic "SHRWPRM1", version, then per parameter its
   * key, dtype, shape and little-endian values).
   */
  saveParams(): Uint8Array<ArrayBuffer> {
    return unwrap(this.#call((h) => h.saveParams())).bytes;
  }

  /**
   * This program as a bundle, for `Shrew.loadBundle` (format documented in
   * src/api/bundle.h: magic "SHRWBND1", version, the optimised program with
   * its dims, seed, optimiser passes and source, then the parameters as saveParams() writes
   * them, current values included).
   */
  saveBundle(): Uint8Array<ArrayBuffer> {
    return unwrap(this.#call((h) => h.saveBundle())).bytes;
  }

  /**
   * The source text this program's spans point into (an error's `span`, the
   * tape's `spans`), with its file name (the `filename` compile option,
   * "<input>" without one): the source as compiled (by setDims last), or,
   * for a program from a bundle, the one the bundle carries; undefined for a
   * bundle that carries none. `bytes` is a fresh copy of the text's UTF-8
   * bytes, which span offsets, columns and lengths count.
   */
  source(): { filename: string; bytes: Uint8Array<ArrayBuffer> } | undefined {
    const r = unwrap(this.#call((h) => h.source()));
    return r.bytes === undefined ? undefined : { filename: r.filename ?? "", bytes: r.bytes };
  }

  /**
   * Loads a blob from saveParams(). All or nothing: a blob that is corrupt or
   * does not hold exactly this program's parameters (names, dtypes, shapes)
   * throws a ShrewRuntimeError ("invalid_argument") and changes nothing.
   */
  loadParams(bytes: Uint8Array): void {
    this.#live();
    const blob = plainBytes(bytes);  // a Proxy's traps run now, not while wasm copies it
    if (blob === undefined || isDetached(bytes)) {
      throw new ShrewRuntimeError("invalid_argument", `loadParams takes a Uint8Array (a saveParams() blob), got ${describe(bytes)}`);
    }
    unwrap(this.#call((h) => h.loadParams(blob)));
  }

  /** FNV-1a 64 of saveParams(), as 16 hex digits (same seed ⇒ same value natively and in wasm). */
  paramsChecksum(): string {
    return unwrap(this.#call((h) => h.paramsChecksum())).checksum;
  }

  /**
   * Rebuilds one graph's tape, kernels and memory plans (same parameters). The last run's
   * shapes are planned again, so stats, dumps and benchRun still describe that run; a graph
   * whose shapes depend on computed values (`range(n)` of an input) is planned by its next run.
   */
  recompile(graph: string): void {
    this.#live();
    checkString(graph, "graph");
    unwrap(this.#call((h) => h.recompile(graph)));
  }

  /**
   * Changes configured dims (e.g. `{ D: 512 }`; the others keep their
   * values) and rebuilds every graph: the source is compiled again, since
   * these dims fix parameter shapes. Parameters whose name, dtype and shape
   * are unchanged keep their values (set or loaded ones included); new or
   * reshaped ones get the values a fresh compile with these dims and the
   * same seed gives them — then `loadParams` can fill them. Training-mode
   * dropout masks go on from where they were (they do not start over). On error (a
   * size that is not a non-negative integer, a dim that `@config` fixes, a
   * name the program does not use, a source that does not compile with the
   * new sizes) throws
   * ShrewRuntimeError ("invalid_argument" / "resource_exhausted") and the
   * program is unchanged.
   */
  setDims(dims: Record<string, number>): { carried: string[]; initialized: string[] } {
    this.#live();
    // compile's rule for its dims option; getters run before the call (they may dispose this program).
    const change = DIMS(dims, "dims");
    const r = unwrap(this.#call((h) => h.setDims(change)));
    // The C++ side dropped its prepared runs with the old program.
    this.#prepared.clear();
    this.#signatures.clear();
    this.#graphs = this.#adopt(r.graphs);
    this.#dims = Object.freeze({ ...r.dims });
    this.#optStats = deepFreeze(r.optStats);
    this.#warnings = deepFreeze((r.diagnostics as unknown as import("./errors.js").Diagnostic[]).filter((d) => d.severity !== "error"));
    this.#metadata = deepFreeze(this.#module.call(() => this.#live().metadata()) as unknown as ProgramMetadata);
    return { carried: r.carried, initialized: r.initialised };
  }

  /** Frees the wasm program (kernels, arenas, parameters). Idempotent. */
  dispose(): void {
    const h = this.#handle;
    if (h === undefined) return;
    this.#handle = undefined;
    registry.unregister(this);
    if (this.#module.dead === undefined) h.delete();
  }

  /** Disposes the program (`using`), where the engine has `Symbol.dispose`. */
  declare [Symbol.dispose]: () => void;
}
// Defined only where the engine has the symbol: a class method keyed by an
// undefined Symbol.dispose was a method named "undefined".
if (typeof Symbol.dispose === "symbol") {
  Object.defineProperty(Program.prototype, Symbol.dispose, {
    value: function (this: Program): void {
      this.dispose();
    },
    writable: true, configurable: true,
  });
}
