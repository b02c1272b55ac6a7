// Public entry point of the Shrew npm package.
import { instantiate, type LoadOptions } from "./module.js";
import { ShrewRuntimeError } from "./errors.js";
import type { RawModule } from "./wasm/shrew.mjs";

export { ShrewRuntimeError } from "./errors.js";
export { Tensor, DTYPES, isDType, shapeSize, type DType, type DataTypeMap, type TensorData } from "./tensor.js";
export { readNpy, writeNpy, NpyError } from "./npy.js";
export type { LoadOptions } from "./module.js";

/** A loaded Shrew runtime (one wasm instance). */
export class Shrew {
  readonly #module: RawModule;

  private constructor(module: RawModule) {
    this.#module = module;
  }

  /** Loads the wasm module. Node: reads shrew.wasm next to the package; browser: fetches it. */
  static async load(opts: LoadOptions = {}): Promise<Shrew> {
    return new Shrew(await instantiate(opts));
  }

  /** True when the module was built with WebAssembly SIMD128. */
  get simd128(): boolean {
    return this.#module.simd128();
  }

  /**
   * y = x · wᵀ + bias with XNNPACK's fully-connected operator.
   * x: [batch, in], w: [out, in], bias: [out] or empty. Returns a fresh [batch, out] array.
   */
  dense(batch: number, inFeatures: number, outFeatures: number, x: Float32Array, w: Float32Array,
        bias: Float32Array = new Float32Array(0)): Float32Array {
    const r = this.#module.denseXnn(batch, inFeatures, outFeatures, x, w, bias);
    if (!r.ok) throw new ShrewRuntimeError(r.code, r.message);
    return r.data;
  }
}
