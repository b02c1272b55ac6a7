// Messages between the page and the compile/run worker. Everything that
// crosses is plain data (structured clone); tensor values are Float64Arrays,
// transferred, not copied (a 2048 x 2048 output as a number[] took the
// page seconds to receive).
import type { CompileStats, DType, Diagnostic, OptStats, Signature, TapeDump } from "../../js/dist/shrew.min.js";

/** The dtypes an input of unknown type (`?`) can be run with: the JS tensor dtypes. */
export const RUN_DTYPES: readonly DType[] = ["f32", "f64", "i32", "i64", "u8", "bool"];
/** What an input of unknown type runs with until the user picks: the Run tab shows these. */
export const UNKNOWN_DEFAULT = { dtype: "f32" as DType, shape: "2,3" };

export interface IrNode {
  id: number;
  name: string;
  op: string;
  label: string;
  role: "compute" | "input" | "param";
  operands: number[];
  type: { text: string; dims: (number | string)[]; dtype: string } | null;
  span: { offset: number; length: number; line: number; column: number };
}

export interface IrGraph {
  name: string;
  nodes: IrNode[];
  edges: [number, number][];
  outputs: { name: string; node: number }[];
}

export interface PlanBuffer {
  id: number;
  kind: "value" | "input" | "workspace";
  slot: number;
  slots: number[];
  first: number;
  last: number;
  offset: number;
  size: number;
}

export interface PlanValue {
  slot: number;
  name: string;
  op: string;
  shape: number[];
  dtype: string;
  buffer: number;
  offset: number | null;
  size: number;
}

export interface PlanDump {
  graph: string;
  bound: boolean;
  arena_bytes?: number;
  lower_bound?: number;
  naive?: number;
  reused?: number;
  buffers: PlanBuffer[];
  values: PlanValue[];
}

/** What the JIT compiled for a graph: it changes with the types a graph of `?` inputs runs with. */
export interface CompiledViews {
  tape: TapeDump;
  stats: CompileStats;
  plan: PlanDump;
  /**
   * For a graph compiled per input types: what it was compiled for, "the inputs of the last
   * successful run (x: f32[2, 3])", or before any run of its own "a call from another graph
   * (x: f32[3, 4])"; the same for one planned per run (shapes computed from values, or dims
   * its runs bind).
   */
  compiledFor?: string;
}

/**
 * Everything the views show about one graph. A graph with inputs of unknown
 * type (`input x: ?`) is compiled for the tensors it first runs with: until
 * then it has no tape, plan or stats, and `pending` says why.
 */
export interface GraphReport extends Partial<CompiledViews> {
  name: string;
  signature: Signature;
  irBefore: IrGraph;
  irAfter: IrGraph;
  /** Why the warm-up run that binds the memory plan failed, if it did. */
  bindError?: string;
  /** That failure as a diagnostic, when it points into the source: the editor marks it as a Run's failure. */
  bindDiagnostic?: Diagnostic;
  /** Why there is no tape, plan or stats yet (they appear after a run). */
  pending?: string;
}

export interface CompileRequest {
  type: "compile";
  id: number;
  source: string;
  dims: Record<string, number>;
  /** null: none is passed, so the program's own seed (`@config`, else 0) applies. Any u64. */
  seed: bigint | null;
  /**
   * Run each graph once with random inputs after compiling (binds the memory
   * plan, so the tape, plan and stats show real sizes). Off after Stop ended
   * a warm-up that ran too long.
   */
  warmUp: boolean;
}

/**
 * How to make one input: seeded random (ints in [lo, hi)) or pasted numbers;
 * `sizes` are the sizes of its `?` dims in order; for an input of unknown
 * type (`?`), `dtype` and `shape` (text such as "2,3") are the ones it runs with.
 * `omit`: an optional input (`input m: T?;`) is left out of the run.
 */
export type InputSource = ({ mode: "random"; lo?: number; hi?: number } | { mode: "paste"; text: string }) &
  { sizes?: number[]; dtype?: string; shape?: string; omit?: boolean };

export interface RunRequest {
  type: "run";
  id: number;
  graph: string;
  /** The random inputs' seed: any u64, exactly. */
  seed: bigint;
  runs: number;
  inputs: Record<string, InputSource>;
}

/** The compiled program as a bundle (`Program.saveBundle`), for the page to download. */
export interface BundleRequest {
  type: "bundle";
  id: number;
}

export type Request = CompileRequest | RunRequest | BundleRequest;

export interface CompileOk {
  type: "compiled";
  id: number;
  ok: true;
  compileMs: number;
  /** The warm-up runs, all graphs together; undefined when none ran. */
  warmUpMs?: number;
  /** The step of the worker's clock (performance.now()), which both times above are multiples of. */
  clockMs: number;
  graphs: GraphReport[];
  optStats: OptStats;
  warnings: Diagnostic[];
  /** Symbolic dims used by some input, with the value each was compiled with (or, see runDims, runs with). */
  dims: Record<string, number>;
  /**
   * Dims left symbolic because binding them for the whole program makes it
   * invalid (a graph calls one with such a dim at a size of its own): each
   * run binds them from its inputs, made at their sizes in `dims`; `reason`
   * is the error binding them gave.
   */
  runDims?: { names: string[]; reason: string };
  /** The seed the parameters were made with (the request's, else the program's own), exact; random inputs take it too. */
  seed: bigint;
  /** Wasm memory after this compile (the previous program already freed). */
  heap: { heapBytes: number; usedBytes: number };
  /** The program's `@model { name: "…"; }`, if it has one. */
  model?: string;
}

export interface CompileFailed {
  type: "compiled";
  id: number;
  ok: false;
  compileMs: number;
  stage: string;
  diagnostics: Diagnostic[];
  message: string;
}

export interface OutputTensor {
  name: string;
  dtype: string;
  shape: number[];
  /** The values as doubles, for the heatmap and comparisons (i64 rounded beyond 2^53). */
  data: Float64Array;
  /** i64 only: the exact values, which the table shows. */
  exact?: BigInt64Array;
}

export interface RunOk {
  type: "ran";
  id: number;
  ok: true;
  inputs: OutputTensor[];
  jit: OutputTensor[];
  /** Wall time of one run, milliseconds: the median over rounds of batched runs. */
  jitMs: number;
  interpMs: number;
  /** Timed runs asked for, and made on each executor (more for a fast graph, to span 20 clock steps; fewer when the time budget ran out). */
  runs: number;
  jitRuns: number;
  interpRuns: number;
  maxAbsDiff: number;
  /** A timed JIT batch took under 20 steps of the clock (2 ms at 0.1 ms; cut short by the time budget): the times are rough. */
  coarse: boolean;
  /** The step of the worker's clock (performance.now()). */
  clockMs: number;
  /**
   * By graph: the tape, plan and stats of each graph compiled per input types
   * (`?` inputs) that this run compiled: the one run, and those its calls compiled anew.
   */
  views: Record<string, CompiledViews>;
  /** Where the JIT's time goes (Program.profile), made in what the timing left of its budget; absent when too little was left. */
  profile?: RunProfile;
}

/** Program.profile's result, trimmed for the page: per operation, and the dearest instructions. */
export interface RunProfile {
  /** Timed runs (each kernel timed); the browser's clock steps by clockMs, so a kernel's time is a mean over them. */
  runs: number;
  /** The kernels' times summed, ms per run. */
  kernelsMs: number;
  ops: { op: string; count: number; ms: number; share: number }[];
  /** The dearest instructions (tape index, as the Tape tab numbers them), at most PROFILE_TOP. */
  top: { index: number; op: string; node: string; shape: string; ms: number; share: number; line: number }[];
}

/** How many instructions the Run tab's profile lists. */
export const PROFILE_TOP = 8;

export interface RunFailed {
  type: "ran";
  id: number;
  ok: false;
  message: string;
  /** The failure as a diagnostic, when it points into the source (a node, an `@assert`): the editor marks it. */
  diagnostic?: Diagnostic;
  /** Stop ended the run (the worker was restarted): no result of the program, so the recompile after it keeps the message. */
  stopped?: true;
}

export type BundleResponse = { type: "bundled"; id: number; ok: true; bytes: Uint8Array } |
  { type: "bundled"; id: number; ok: false; message: string };

/** The compile `id` is done compiling and starts its warm-up runs (they can be long: Stop then says which was stopped). */
export interface Warming {
  type: "warming";
  id: number;
}

export type Response = CompileOk | CompileFailed | RunOk | RunFailed | BundleResponse | Warming | { type: "ready" } |
  { type: "fatal"; message: string };
