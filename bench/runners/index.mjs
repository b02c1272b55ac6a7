// Every runtime slot, in report order: peers first, then Shrew.
import { ortRunner } from "./ort.mjs";
import { tfjsRunner } from "./tfjs.mjs";
import { shrewWasmRunner } from "./shrew-wasm.mjs";
import { shrewNativeRunner } from "./shrew-native.mjs";

/** @returns {import("./runner.mjs").Runner[]} */
export function allRunners() {
  return [ortRunner(), tfjsRunner(), shrewWasmRunner("jit"), shrewWasmRunner("interpreter"), shrewNativeRunner()];
}

/** The runner whose output is the reference for the correctness check. */
export const REFERENCE_RUNNER = "ort";
