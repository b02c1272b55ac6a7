import type { CompileStats } from "../signature.js";
// Types of the Emscripten module factory (build/wasm/shrew.mjs, copied to
// dist/wasm/ by scripts/build-wasm.sh). Only what the wrapper calls.
export interface ErrorValue {
  ok: false;
  code: string;
  message: string;
  /** The input (or parameter) the error is about, and its expected/actual type, when there is one. */
  input?: string;
  expected?: string;
  actual?: string;
  /** Where in the source the failure is, when it is about a place there (C++ Status::span). */
  span?: { line: number; column: number; length: number; offset: number };
}
export interface DenseValue {
  ok: true;
  data: Float32Array;
}
export interface RawDiagnostic {
  code: string;
  severity: string;
  message: string;
  line: number;
  column: number;
  length: number;
  offset: number;
  rendered: string;
}
export interface RawOptStats {
  deadCodeRemoved: number;
  identitiesRemoved: number;
  constantsFolded: number;
  cseEliminated: number;
  opsFused: number;
  rounds: number;
  text: string;
}
export interface CompileValue {
  ok: boolean;
  stage: string;
  diagnostics: RawDiagnostic[];
  rendered: string;
  /** The effective seed, a u64 as decimal digits. */
  seed?: string;
  optStats?: RawOptStats;
  /** When the program was built. */
  graphs?: RawGraphValue[];
}
/** One graph of a compile or setDims result, in source order. */
export interface RawGraphValue {
  name: string;
  signature: RawSignature;
  /** Set together when the graph was prepared for its declared input types (declaration order). */
  key?: RawInputSpec[];
  prepared?: PreparedValue;
}
export interface RawTypeInfo {
  name: string;
  dtype: string | null;
  shape: (number | string | null)[] | null;
  type: string;
  optional?: boolean;
}
export interface RawSignature {
  ok: true;
  name: string;
  inputs: RawTypeInfo[];
  outputs: RawTypeInfo[];
}
export interface RawTensorInfo {
  name: string;
  dtype: string;
  declaredDtype: string;
  shape: number[];
  size: number;
  bytes: number;
}
export interface RawTensorOut extends Omit<RawTensorInfo, "bytes"> {
  bytes: Uint8Array;
}
export interface RawTensorIn {
  name?: string;
  dtype: string;
  shape: readonly number[];
  bytes: Uint8Array;
}
// The public CompileStats (signature.ts) plus the binding's ok flag.
export interface RawCompileStats extends CompileStats {
  ok: true;
}
export interface TextValue {
  ok: true;
  text: string;
}
export interface IrValue {
  ok: true;
  text: string;
  json: string;
}
export interface RunValue {
  ok: true;
  outputs: RawTensorOut[];
}
export interface RawInputSpec {
  name: string;
  dtype: string;
  shape: readonly number[];
}
export interface PreparedValue {
  ok: true;
  /** false: some dtype does not cross byte for byte (i32); use run(). */
  lean: boolean;
  id?: number;
  /** Per spec (same order): where to write its bytes. */
  inputs?: { ptr: number; bytes: number }[];
  outputs?: { name: string; dtype: string; shape: number[]; bytes: number }[];
  /** Address of a Uint32 array: output o's address after a successful _shrew_run_prepared. */
  outPtrs?: number;
  /** The program handle's address: _shrew_run_prepared's first argument. */
  handle?: number;
}
export interface SetDimsValue {
  ok: true;
  dims: Record<string, number>;
  carried: string[];
  initialised: string[];
  seed: string;
  optStats: RawOptStats;
  diagnostics: RawDiagnostic[];
  graphs: RawGraphValue[];
}
/** A program loaded from a bundle. */
export interface LoadBundleValue {
  ok: true;
  seed: string;
  dims: Record<string, number>;
  optStats: RawOptStats;
  graphs: RawGraphValue[];
}
export interface RawProgramHandle {
  /** source: UTF-8 bytes (Embind copies a Uint8Array into the std::string as is). */
  compile(source: string | Uint8Array, options: object): CompileValue | ErrorValue;
  loadBundle(bytes: Uint8Array, options: object): LoadBundleValue | ErrorValue;
  saveBundle(): { ok: true; bytes: Uint8Array<ArrayBuffer> } | ErrorValue;
  /** The text the program's spans refer to (a fresh copy); neither field for a bundle that carries none. */
  source(): { ok: true; filename?: string; bytes?: Uint8Array<ArrayBuffer> } | ErrorValue;
  graphs(): string[];
  signature(graph: string): RawSignature | ErrorValue;
  run(graph: string, inputs: RawTensorIn[]): RunValue | ErrorValue;
  interpret(graph: string, inputs: RawTensorIn[]): RunValue | ErrorValue;
  prepare(graph: string, specs: RawInputSpec[]): PreparedValue | ErrorValue;
  lastError(): ErrorValue;
  release(id: number): void;
  /** Mean ns per Executor::Run over n runs inside wasm (last binding); -1 if not bound. */
  benchRun(graph: string, n: number): number;
  /** Kernel times per tape instruction on the last binding (jit/profile.h). */
  profile(graph: string, runs: number): ({ ok: true } & import("../profile.js").RawProfile) | ErrorValue;
  /** The error a run over the step limit (maxStepsPerRun) gets, else ok. */
  checkSteps(graph: string): { ok: true } | ErrorValue;
  dump(graph: string): TextValue | ErrorValue;
  plan(graph: string): TextValue | ErrorValue;
  stats(graph: string): RawCompileStats | ErrorValue;
  ir(graph: string, optimized: boolean): IrValue | ErrorValue;
  params(): RawTensorInfo[];
  getParam(key: string): (RawTensorOut & { ok: true }) | ErrorValue;
  setParam(key: string, tensor: RawTensorIn): { ok: true } | ErrorValue;
  metadata(): Record<string, unknown> | null;
  tape(graph: string): TextValue | ErrorValue;
  saveParams(): { ok: true; bytes: Uint8Array<ArrayBuffer> } | ErrorValue;
  loadParams(bytes: Uint8Array): { ok: true } | ErrorValue;
  paramsChecksum(): { ok: true; checksum: string } | ErrorValue;
  generators(): { ok: true; tape: string; interpreter: string } | ErrorValue;
  setGenerators(tape: string, interpreter: string): { ok: true } | ErrorValue;
  recompile(graph: string): { ok: true } | ErrorValue;
  setDims(dims: unknown): SetDimsValue | ErrorValue;
  delete(): void;
}
export interface RawModule {
  denseXnn(batch: number, inFeatures: number, outFeatures: number, x: Float32Array | number[], w: Float32Array | number[],
           bias: Float32Array | number[]): DenseValue | ErrorValue;
  simd128(): boolean;
  heapStats(): { heapBytes: number; usedBytes: number };
  excerpt(source: Uint8Array | string, line: number, column: number, length: number): string;
  ProgramHandle: new () => RawProgramHandle;
  /** Runs prepared run `id` of the handle at address `handle` (PreparedValue.handle): 0 = ok, otherwise its lastError() describes the failure. */
  _shrew_run_prepared(handle: number, id: number): number;
  /** Address of a NUL-terminated UTF-8 reason the C++ side wrote before aborting ("" if none): a failed allocation. */
  _shrew_abort_reason(): number;
  HEAPU8: Uint8Array;
}
export interface FactoryOptions {
  wasmBinary?: ArrayBuffer | Uint8Array;
  locateFile?: (path: string, prefix: string) => string;
  onAbort?: (what: unknown) => void;
  printErr?: (text: string) => void;
  /**
   * Instantiates the module itself: calls `receive` with the instance later and returns {} now.
   * (Not WebAssembly.Imports and Instance: lib.dom's, which a Node project's types may not have.)
   */
  instantiateWasm?: (imports: Record<string, Record<string, unknown>>,
                     receive: (instance: object, module?: object) => void) => object;
}
declare const createShrewModule: (options?: FactoryOptions) => Promise<RawModule>;
export default createShrewModule;
