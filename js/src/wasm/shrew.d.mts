// Types of the Emscripten module factory (build/wasm/shrew.mjs, copied to
// dist/wasm/ by scripts/build-wasm.sh). Only what the wrapper calls.
export interface ErrorValue {
  ok: false;
  code: string;
  message: string;
}
export interface DenseValue {
  ok: true;
  data: Float32Array;
}
export interface RawModule {
  denseXnn(batch: number, inFeatures: number, outFeatures: number, x: Float32Array, w: Float32Array,
           bias: Float32Array): DenseValue | ErrorValue;
  simd128(): boolean;
  HEAPU8: Uint8Array;
}
export interface FactoryOptions {
  wasmBinary?: ArrayBuffer | Uint8Array;
  locateFile?: (path: string, prefix: string) => string;
  onAbort?: (what: unknown) => void;
}
declare const createShrewModule: (options?: FactoryOptions) => Promise<RawModule>;
export default createShrewModule;
