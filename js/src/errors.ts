// Typed errors thrown by the wrapper. The C++ side returns errors as values
// ({ok:false, code, message}); the wrapper turns them into these.
import type { SourceSpan } from "./tape.js";
import type { ErrorValue } from "./wasm/shrew.mjs";

/** One compile diagnostic (LANGUAGE.md §10), positions 1-based (0: none). */
export interface Diagnostic {
  readonly code: string;
  readonly severity: "error" | "warning" | "note";
  readonly message: string;
  readonly line: number;
  readonly column: number;
  readonly length: number;
  /** Byte offset of the span's start in the source, 0-based (column and length count UTF-8 bytes too). */
  readonly offset: number;
  /** `FILE:LINE:COL: error[CODE]: MESSAGE` with the source line and a caret. */
  readonly rendered: string;
}

/** Source that does not compile: every diagnostic of the failing stage. */
export class ShrewCompileError extends Error {
  readonly code = "compile_error";
  readonly diagnostics: readonly Diagnostic[];
  readonly stage: string;
  constructor(stage: string, diagnostics: readonly Diagnostic[], rendered: string) {
    // The first line is the first error's own header, FILE:LINE:COL:
    // error[CODE]: MESSAGE, as printed in stack traces; the rendered text
    // (every diagnostic with its source line and caret) follows, its copy of
    // that header not repeated: the first error's own lines come first, then
    // the others in order (a warning before it repeated its header).
    const first = diagnostics.find((d) => d.severity === "error") ?? diagnostics[0];
    const own = first?.rendered ?? "";
    const head = first ? own.split("\n")[0] || `${first.line}:${first.column}: ${first.message}` : "compile failed";
    const rest = !rendered ? ""
      : rendered.startsWith(head + "\n") ? rendered.slice(head.length)
      : own.startsWith(head + "\n") && rendered.includes(own) ? own.slice(head.length) + rendered.replace(own, "")
      : `\n${rendered}`;
    super((head + rest).trimEnd());
    this.name = "ShrewCompileError";
    this.stage = stage;
    this.diagnostics = diagnostics;
  }
}

export interface RuntimeErrorDetails {
  /** The input (or parameter) the error is about, when there is one. */
  input?: string;
  /** The output whose destination array (run option `outputs`) the error is about. */
  output?: string;
  /** What was expected (a type such as `f32[Batch, 784]`), when known. */
  expected?: string;
  /** What was given, when known. */
  actual?: string;
  /**
   * Where in the .sw source the failure is (a node, a parameter, an
   * `@assert`), when it is about a place there; positions 1-based, column
   * and length in UTF-8 bytes, as a Diagnostic's.
   */
  span?: SourceSpan;
}

/**
 * A run-time failure: bad input, unknown graph, a failed kernel, a disposed
 * program or an unusable module. `code` is the C++ status code name
 * (invalid_argument, not_found, …) or `disposed` / `aborted`.
 */
export class ShrewRuntimeError extends Error {
  readonly code: string;
  // Declared, not defined: a detail is an own property only when known, so
  // Node's inspect of the error does not list `output: undefined` and the like.
  declare readonly input?: string;
  declare readonly output?: string;
  declare readonly expected?: string;
  declare readonly actual?: string;
  declare readonly span?: SourceSpan;
  constructor(code: string, message: string, details: RuntimeErrorDetails = {}) {
    super(message);
    this.name = "ShrewRuntimeError";
    this.code = code;
    if (details.input !== undefined) this.input = details.input;
    if (details.output !== undefined) this.output = details.output;
    if (details.expected !== undefined) this.expected = details.expected;
    if (details.actual !== undefined) this.actual = details.actual;
    if (details.span !== undefined) this.span = details.span;
  }
}

/** Builds a ShrewRuntimeError from a C++ error value (its input/expected/actual and span fields come from C++). */
export function runtimeErrorFrom(e: ErrorValue): ShrewRuntimeError {
  const details: RuntimeErrorDetails = {};
  if (e.input !== undefined) details.input = e.input;
  if (e.expected !== undefined) details.expected = e.expected;
  if (e.actual !== undefined) details.actual = e.actual;
  if (e.span !== undefined) details.span = e.span;
  return new ShrewRuntimeError(e.code, e.message, details);
}
