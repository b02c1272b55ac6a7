// mlp: x[B,784] → Linear 784→512 + ReLU → Linear 512→512 + ReLU → Linear 512→10 → softmax.
import { OnnxGraph, attr } from "../onnx/builder.mjs";
import { uniform } from "../lib/rng.mjs";
import { param, once } from "./workload.mjs";

const IN = 784, HID = 512, OUT = 10;
const NAME = "mlp";

const sw = `// Benchmark workload "mlp" (bench/workloads/mlp.mjs). Weights are set by name.
@model { name: "BenchMLP"; version: "1.0"; }

@config {
    Pixels: 784;
    Hidden: 512;
    Classes: 10;
}

@graph Mlp {
    input x: Tensor<[Batch, Pixels], f32>;

    param w1: Tensor<[Pixels, Hidden], f32>  { init: "kaiming_uniform"; };
    param b1: Tensor<[Hidden], f32>          { init: "zeros"; };
    param w2: Tensor<[Hidden, Hidden], f32>  { init: "kaiming_uniform"; };
    param b2: Tensor<[Hidden], f32>          { init: "zeros"; };
    param w3: Tensor<[Hidden, Classes], f32> { init: "kaiming_uniform"; };
    param b3: Tensor<[Classes], f32>         { init: "zeros"; };

    node h1     { op: relu(matmul(x, w1) + b1); };    // [Batch, 512]
    node h2     { op: relu(matmul(h1, w2) + b2); };   // [Batch, 512]
    node logits { op: matmul(h2, w3) + b3; };         // [Batch, 10]

    output probs: softmax(logits, dim: -1);
}
`;

/** Linear-layer init as PyTorch does it: U[-1/√fan_in, 1/√fan_in). */
const weights = once(() => [
  param(NAME, "w1", [IN, HID], 1 / Math.sqrt(IN)),
  param(NAME, "b1", [HID], 1 / Math.sqrt(IN)),
  param(NAME, "w2", [HID, HID], 1 / Math.sqrt(HID)),
  param(NAME, "b2", [HID], 1 / Math.sqrt(HID)),
  param(NAME, "w3", [HID, OUT], 1 / Math.sqrt(HID)),
  param(NAME, "b3", [OUT], 1 / Math.sqrt(HID)),
]);

/** @type {import("./workload.mjs").Workload} */
export default {
  name: NAME,
  title: "MLP 784→512→512→10 + softmax",
  batches: [1, 64],
  graph: "Mlp",
  inputName: "x",
  outputName: "probs",
  inputShape: (b) => [b, IN],
  outputShape: (b) => [b, OUT],
  weights,
  input: (b) => uniform(`${NAME}/x/${b}`, b * IN, 0, 1), // pixel-like values
  sw,
  onnx: once(() => {
    const g = new OnnxGraph("BenchMLP");
    for (const w of weights()) g.weight(w.name, w.shape, w.data);
    const x = g.input("x", ["batch", IN]);
    const h1 = g.op("Relu", [g.op("Add", [g.op("MatMul", [x, "w1"]), "b1"])]);
    const h2 = g.op("Relu", [g.op("Add", [g.op("MatMul", [h1, "w2"]), "b2"])]);
    const logits = g.op("Add", [g.op("MatMul", [h2, "w3"]), "b3"]);
    g.op("Softmax", [logits], { attrs: { axis: attr.int(-1) }, outputs: ["probs"] });
    g.output("probs", ["batch", OUT]);
    return g.toBytes();
  }),
  // tf.fused.matMul (matmul + bias + activation in one kernel) is what a
  // performance-minded TF.js user writes; ORT fuses the same pattern itself.
  tfjs: (tf, p) => (x) => {
    const h1 = tf.fused.matMul({ a: x, b: p.w1, bias: p.b1, activation: "relu" });
    const h2 = tf.fused.matMul({ a: h1, b: p.w2, bias: p.b2, activation: "relu" });
    const logits = tf.fused.matMul({ a: h2, b: p.w3, bias: p.b3 });
    return tf.softmax(logits, -1);
  },
};
