// The tape of a compiled graph as data (jit::DumpTapeJson), for tools such
// as the web playground's Tape view.

/** A source position; line 0 means none. Line and column are 1-based (column counts bytes). */
export interface SourceSpan {
  line: number;
  column: number;
  length: number;
  offset: number;
}

/** An IR node an instruction came from. */
export interface TapeNode {
  id: number;
  name: string;
  op: string;
  span: SourceSpan;
}

export interface TapeInstruction {
  index: number;
  /** Position in the free-less tape (the liveness time line). */
  time: number;
  /** load_input, load_param, constant, copy, compute, call or free. */
  opcode: string;
  /** The operation (`fused_matmul_add+relu` for a JIT-fused pair). */
  op: string;
  /** The §7.7 text of the instruction. */
  text: string;
  node: TapeNode;
  operands: number[];
  results: number[];
  /** Bound sizes; before a binding the IR type's dims (symbolic ones as names). */
  shape: (number | string)[] | null;
  dtype: string;
  /**
   * Arena placement of the result; null before a binding or outside the arena.
   * A `free` has no result: its offset, size and in_place_of are the freed
   * value's (count in-place results over the other instructions, as stats do).
   */
  offset: number | null;
  size: number | null;
  in_place_of: number | null;
  alias_of: number | null;
  workspace: { offset: number; size: number } | null;
  fused: boolean;
  /** Nodes folded into this instruction by JIT-level fusion. */
  fused_nodes: TapeNode[];
  /** Kernel implementation name, null for instructions without a kernel. */
  kernel: string | null;
  /** Runs the reference-interpreter fallback. */
  ref: boolean;
  /** Source spans of the node and of any fused node. */
  spans: SourceSpan[];
}

export interface TapeDump {
  graph: string;
  bound: boolean;
  num_slots: number;
  outputs: { name: string; slot: number }[];
  instructions: TapeInstruction[];
}
