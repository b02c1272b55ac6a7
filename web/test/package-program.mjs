// The program the package tests run in a page (plain-module, vite-app) and
// what the package computes for it in Node: the page's outputs must equal it
// bit for bit (same wasm, same seed).
import { Shrew, Tensor } from "../../js/dist/index.js";

export const SOURCE = `@graph Net {
  input x: Tensor<[2, 3], f32>;
  param w: Tensor<[3, 4], f32> { init: "xavier_uniform"; };
  output y: softmax(relu(matmul(x, w)), dim: -1);
}`;
export const X = [0.5, -1, 2, 0.25, 3, -0.75];
export const SEED = 5;

/** y of Net for X, computed by the package in Node: { shape, data }. */
export async function expectedInNode() {
  const shrew = await Shrew.load();
  const program = shrew.compile(SOURCE, { seed: SEED });
  const y = program.run("Net", { x: new Tensor("f32", [2, 3], new Float32Array(X)) }).y;
  program.dispose();
  return { shape: y.shape, data: Array.from(y.data) };
}
