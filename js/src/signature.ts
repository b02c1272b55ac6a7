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
  filename?: string;
  /** Symbolic dimension values, e.g. `{ Batch: 8 }`. */
  dims?: Record<string, number>;
  /**
   * Parameter-initialisation seed, a u64 (default: @config `seed`, else 0):
   * a number up to 2^53 - 1, or a bigint up to 2^64 - 1 (any seed exactly;
   * `@config { seed: -1; }` is 2n ** 64n - 1n).
   */
  seed?: number | bigint;
  /** Run the optimiser (default true). */
  optimize?: boolean;
  /** Training mode (dropout active). */
  training?: boolean;
  /**
   * Largest tensor (input, parameter or intermediate value) in bytes; bigger
   * ones are a `resource_exhausted` error before anything is allocated.
   * Default 1 GiB; at most 2^50 (1125899906842624, the JIT executor's own
   * cap): a larger value is an `invalid_argument` error.
   */
  maxTensorBytes?: number;
  /**
   * Parameter values, as `saveParams()` returns them, used instead of the
   * initialisers: checked like `loadParams` (the same errors), and each weight
   * is packed once. The generator (dropout) continues as after initialising.
   */
  params?: Uint8Array;
}

/** Options of `Shrew.loadBundle`: what the loader chooses (the rest comes from the bundle). */
export interface LoadBundleOptions {
  /** Training mode (dropout active). */
  training?: boolean;
  /** Largest tensor in bytes, as for `compile`. Default 1 GiB, at most 2^50. */
  maxTensorBytes?: number;
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
  deadCodeRemoved: number;
  identitiesRemoved: number;
  constantsFolded: number;
  cseEliminated: number;
  opsFused: number;
  rounds: number;
  /** `OptStats { dce: 0, identity: 1, … }`. */
  text: string;
}

/** A parameter as listed by `params()`. */
export interface ParamInfo {
  /** `GRAPH/PARAM`. */
  readonly name: string;
  readonly dtype: string;
  readonly declaredDtype: string;
  readonly shape: readonly number[];
  readonly size: number;
  readonly bytes: number;
}

/** The metadata blocks of the program (@model, @config, @types, @training, @inference, @custom_op). */
export interface ProgramMetadata {
  model: Record<string, string>;
  config: Record<string, unknown>;
  types: Record<string, string>;
  customOps: string[];
  training: Record<string, unknown> | null;
  inference: Record<string, unknown> | null;
}
