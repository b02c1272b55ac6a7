// A graph's run time per tape instruction (Program.profile): the kernels'
// times from wasm (jit/profile.h) joined with the bound tape's instructions.
import type { SourceSpan, TapeDump } from "./tape.js";

/** Program.profile's options. */
export interface ProfileOptions {
  /** Timed runs, 1 to 10,000 (default 50). */
  runs?: number | undefined;
  /** Untimed runs before them (default 10). */
  warmup?: number | undefined;
}

/** One instruction with a kernel (a compute or a call), in tape order. */
export interface ProfileInstruction {
  /** Its index in `tape(graph).instructions`. */
  index: number;
  /** The operation (`fused_matmul_add+relu` for a JIT-fused pair). */
  op: string;
  /** The kernel implementation: `xnn_fully_connected`, `ref` for Shrew's own C++ kernels, `interp` for the interpreter fallback (the tape's `ref: true`). */
  kernel: string | null;
  /** The IR node's name. */
  node: string;
  shape: (number | string)[] | null;
  dtype: string;
  /** Where the node is in the source (line 0: none). */
  span: SourceSpan;
  /** Mean nanoseconds per run. */
  ns: number;
  /** Its part of `kernelsNs`, 0 to 1. */
  share: number;
}

/** The instructions of one operation taken together. */
export interface ProfileOp {
  op: string;
  count: number;
  ns: number;
  share: number;
}

export interface Profile {
  graph: string;
  /** Timed runs (each one interleaved with an untimed run). */
  runs: number;
  /** Median ns of an untimed run of the tape: the run without the profiler. */
  runNs: number;
  /** The instructions' ns summed: what the kernels take of runNs (the rest: loads, frees, the loop). */
  kernelsNs: number;
  /** One clock read's cost, taken off every kernel's time. */
  clockNs: number;
  /**
   * The least change seen between two clock reads: in Node about a read's
   * cost (0.2-0.3 µs), in a browser worker 5,000-100,000 (each kernel's time
   * is then a mean of steps).
   */
  clockStepNs: number;
  instructions: ProfileInstruction[];
  /** Per operation, the most expensive first. */
  ops: ProfileOp[];
}

export interface RawProfile {
  runs: number;
  instructionNs: number[];
  kernelsNs: number;
  runNs: number;
  clockNs: number;
  clockStepNs: number;
}

export function profileFrom(raw: RawProfile, tape: TapeDump): Profile {
  const share = (ns: number): number => (raw.kernelsNs > 0 ? ns / raw.kernelsNs : 0);
  const instructions: ProfileInstruction[] = [];
  const ops = new Map<string, ProfileOp>();
  for (const ins of tape.instructions) {
    if (ins.kernel === null) continue;  // loads, copies, frees: not timed
    const ns = raw.instructionNs[ins.index] ?? 0;
    instructions.push({ index: ins.index, op: ins.op, kernel: ins.kernel, node: ins.node.name, shape: ins.shape,
                        dtype: ins.dtype, span: ins.node.span, ns, share: share(ns) });
    const o = ops.get(ins.op) ?? { op: ins.op, count: 0, ns: 0, share: 0 };
    o.count += 1;
    o.ns += ns;
    o.share = share(o.ns);
    ops.set(ins.op, o);
  }
  return {
    graph: tape.graph, runs: raw.runs, runNs: raw.runNs, kernelsNs: raw.kernelsNs, clockNs: raw.clockNs,
    clockStepNs: raw.clockStepNs, instructions,
    ops: [...ops.values()].sort((a, b) => b.ns - a.ns || (a.op < b.op ? -1 : 1)),
  };
}
