// Typed errors thrown by the wrapper.

/** A run-time failure: bad input, a failed kernel, an unusable module. */
export class ShrewRuntimeError extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.name = "ShrewRuntimeError";
    this.code = code;
  }
}
