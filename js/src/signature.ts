// The typed view of a graph's inputs and outputs, and compile options.

/** A dimension: a fixed size, a symbolic name (`Batch`) or null (dynamic, `?`). */
export type Dim = number | string | null;

export interface TensorSpec {
  readonly name: string;
  /** The declared dtype (`f32`, `i64`, `f16`…), null when unknown. */
  readonly dtype: string | null;
  readonly shape: readonly Dim[] | null;
  /** The declared type as text, e.g. `Tensor<[Batch, 784], f32>`. */
  readonly type: string;
  readonly optional?: boolean;
}

export interface Signature {
  readonly name: string;
  readonly inputs: readonly TensorSpec[];
  readonly outputs: readonly TensorSpec[];
}

export interface CompileOptions {
  /** Shown in diagnostics (`<input>` when absent). */
  filename?: string | undefined;
  /** Symbolic dimension values, e.g. `{ Batch: 8 }`. */
  dims?: Record<string, number> | undefined;
  /**
   * Parameter-initialisation seed, a u64 (default: @config `seed`, else 0):
   * a number up to 2^53 - 1, or a bigint up to 2^64 - 1 (any seed exactly;
   * `@config { seed: -1; }` is 2n ** 64n - 1n).
   */
  seed?: number | bigint | undefined;
  /** Run the optimiser (default true). */
  optimize?: boolean | undefined;
  /** Training mode (dropout active). */
  training?: boolean | undefined;
  /**
   * Largest tensor (input, parameter or intermediate value) in bytes; bigger
   * ones are a `resource_exhausted` error before anything is allocated.
   * Default 1 GiB; at most 2^50 (1125899906842624, the JIT executor's own
   * cap): a larger value is an `invalid_argument` error.
   */
  maxTensorBytes?: number | undefined;
  /**
   * Parameter values, as `saveParams()` returns them, used instead of the
   * initialisers: checked like `loadParams` (the same errors), and each weight
   * is packed once. The generator (dropout) continues as after initialising.
   */
  params?: Uint8Array | undefined;
  /**
   * Most operations one run may perform once the graph's calls and repeats
   * are unrolled (each graph calling the next twice is 2^n runs of the last
   * from a few lines); a run over it is a `resource_exhausted` error before
   * it starts, naming the heaviest calls (`run`, `interpret`, `benchRun`).
   * Default 2^26 (67108864): seconds of small operations, about a minute of
   * calls.
   */
  maxStepsPerRun?: number | undefined;
  /**
   * The dtype of a float literal no operation adopts (OPS.md §1.3):
   * `cast(0.1, dtype: "f64")` casts an f32 0.1 (0.10000000149011612) unless
   * this is "f64". Default "f32"; a bundle keeps it.
   */
  defaultDtype?: "f16" | "bf16" | "f32" | "f64" | undefined;
}

/** Options of `Shrew.loadBundle`: what the loader chooses (the rest comes from the bundle). */
export interface LoadBundleOptions {
  /** Training mode (dropout active). */
  training?: boolean | undefined;
  /** Largest tensor in bytes, as for `compile`. Default 1 GiB, at most 2^50. */
  maxTensorBytes?: number | undefined;
  /** Most operations per run, as for `compile`. Default 2^26. */
  maxStepsPerRun?: number | undefined;
}

/** JIT statistics of one graph (PIPELINE.md §7.6). */
export interface CompileStats {
  numInstructions: number;
  numSourceNodes: number;
  numSlots: number;
  numReused: number;
  numFrees: number;
  numFused: number;
  compileTimeUs: number;
  arenaBytes: number;
  arenaLowerBound: number;
  arenaNaive: number;
  numInPlace: number;
  numAliases: number;
  numRefKernels: number;
}

/** Optimiser counters of the whole program. */
export interface OptStats {
  readonly deadCodeRemoved: number;
  readonly identitiesRemoved: number;
  readonly constantsFolded: number;
  readonly cseEliminated: number;
  readonly opsFused: number;
  readonly rounds: number;
  /** `OptStats { dce: 0, identity: 1, … }`. */
  readonly text: string;
}

/** A parameter as listed by `params()`. */
export interface ParamInfo {
  /** `GRAPH/PARAM`. */
  readonly name: string;
  /** The dtype `getParam` returns it in: "i32" for i8, i16 and i32; "i64" for the other integers but u8; "f32" for f16 and bf16. */
  readonly dtype: string;
  /** The dtype the source declares. */
  readonly declaredDtype: string;
  readonly shape: readonly number[];
  /** Elements. */
  readonly size: number;
  /** Bytes the module holds it in, as `maxTensorBytes` counts them: integers but u8 are held as i64, f16 and bf16 as f32 (OPS.md §1.3). */
  readonly bytes: number;
}

/**
 * The metadata blocks of the program (@model, @config, @types, @training, @inference, @custom_op).
 * An integer of the source beyond ±(2^53 − 1) is a bigint, exact, wherever it appears.
 */
export interface ProgramMetadata {
  readonly model: Readonly<Record<string, string>>;
  readonly config: Readonly<Record<string, unknown>>;
  readonly types: Readonly<Record<string, string>>;
  readonly customOps: readonly string[];
  readonly training: Readonly<Record<string, unknown>> | null;
  readonly inference: Readonly<Record<string, unknown>> | null;
}
