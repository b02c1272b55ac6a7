// tiny: x[1,16] → 20 chained small ops (matmul 16×16, add, sub, mul, relu, tanh, sigmoid).
// Each op does almost no arithmetic, so per-op dispatch and per-call overhead dominate.
import { OnnxGraph } from "../onnx/builder.mjs";
import { uniform } from "../lib/rng.mjs";
import { param, once } from "./workload.mjs";

const W = 16;
const NAME = "tiny";

const sw = `// Benchmark workload "tiny" (bench/workloads/tiny.mjs). Weights are set by name.
// Twenty chained operations on a [Batch, 16] row (the benchmark runs Batch = 1).
@model { name: "BenchTiny"; version: "1.0"; }

@config { Width: 16; }

@graph Tiny {
    input x: Tensor<[Batch, Width], f32>;

    param w1: Tensor<[Width, Width], f32> { init: "xavier_uniform"; };
    param w2: Tensor<[Width, Width], f32> { init: "xavier_uniform"; };
    param w3: Tensor<[Width, Width], f32> { init: "xavier_uniform"; };
    param w4: Tensor<[Width, Width], f32> { init: "xavier_uniform"; };
    param b1: Tensor<[Width], f32>        { init: "zeros"; };
    param b2: Tensor<[Width], f32>        { init: "zeros"; };
    param b3: Tensor<[Width], f32>        { init: "zeros"; };
    param b4: Tensor<[Width], f32>        { init: "zeros"; };
    param b5: Tensor<[Width], f32>        { init: "zeros"; };
    param s1: Tensor<[Width], f32>        { init: "ones"; };
    param s2: Tensor<[Width], f32>        { init: "ones"; };

    node t1  { op: matmul(x, w1); };     //  1
    node t2  { op: t1 + b1; };           //  2
    node t3  { op: relu(t2); };          //  3
    node t4  { op: t3 * s1; };           //  4
    node t5  { op: tanh(t4); };          //  5
    node t6  { op: matmul(t5, w2); };    //  6
    node t7  { op: t6 + b2; };           //  7
    node t8  { op: sigmoid(t7); };       //  8
    node t9  { op: t8 * t5; };           //  9
    node t10 { op: t9 - b3; };           // 10
    node t11 { op: relu(t10); };         // 11
    node t12 { op: t11 + x; };           // 12
    node t13 { op: matmul(t12, w3); };   // 13
    node t14 { op: t13 + b4; };          // 14
    node t15 { op: tanh(t14); };         // 15
    node t16 { op: t15 * s2; };          // 16
    node t17 { op: t16 + t12; };         // 17
    node t18 { op: sigmoid(t17); };      // 18
    node t19 { op: matmul(t18, w4); };   // 19

    output y: t19 + b5;                  // 20, [Batch, 16]
}
`;

const weights = once(() => [
  param(NAME, "w1", [W, W], 0.25),
  param(NAME, "w2", [W, W], 0.25),
  param(NAME, "w3", [W, W], 0.25),
  param(NAME, "w4", [W, W], 0.25),
  param(NAME, "b1", [W], 0.25),
  param(NAME, "b2", [W], 0.25),
  param(NAME, "b3", [W], 0.25),
  param(NAME, "b4", [W], 0.25),
  param(NAME, "b5", [W], 0.25),
  param(NAME, "s1", [W], 0.5, 1),
  param(NAME, "s2", [W], 0.5, 1),
]);

function buildOnnx() {
  const g = new OnnxGraph("BenchTiny");
  for (const w of weights()) g.weight(w.name, w.shape, w.data);
  const x = g.input("x", ["batch", W]);
  const t1 = g.op("MatMul", [x, "w1"]);
  const t2 = g.op("Add", [t1, "b1"]);
  const t3 = g.op("Relu", [t2]);
  const t4 = g.op("Mul", [t3, "s1"]);
  const t5 = g.op("Tanh", [t4]);
  const t6 = g.op("MatMul", [t5, "w2"]);
  const t7 = g.op("Add", [t6, "b2"]);
  const t8 = g.op("Sigmoid", [t7]);
  const t9 = g.op("Mul", [t8, t5]);
  const t10 = g.op("Sub", [t9, "b3"]);
  const t11 = g.op("Relu", [t10]);
  const t12 = g.op("Add", [t11, x]);
  const t13 = g.op("MatMul", [t12, "w3"]);
  const t14 = g.op("Add", [t13, "b4"]);
  const t15 = g.op("Tanh", [t14]);
  const t16 = g.op("Mul", [t15, "s2"]);
  const t17 = g.op("Add", [t16, t12]);
  const t18 = g.op("Sigmoid", [t17]);
  const t19 = g.op("MatMul", [t18, "w4"]);
  g.op("Add", [t19, "b5"], { outputs: ["y"] });
  g.output("y", ["batch", W]);
  return g.toBytes();
}

/** @type {import("./workload.mjs").Workload} */
export default {
  name: NAME,
  title: "20 chained small ops on [1,16] (dispatch-bound)",
  batches: [1],
  graph: "Tiny",
  inputName: "x",
  outputName: "y",
  inputShape: (b) => [b, W],
  outputShape: (b) => [b, W],
  weights,
  input: (b) => uniform(`${NAME}/x/${b}`, b * W, -1, 1),
  sw,
  onnx: once(buildOnnx),
  // Same 20 ops; matmul + bias (+ activation) pairs use tf.fused.matMul, TF.js's own fast path.
  tfjs: (tf, p) => (x) => {
    const t3 = tf.fused.matMul({ a: x, b: p.w1, bias: p.b1, activation: "relu" }); // 1-3
    const t5 = tf.tanh(tf.mul(t3, p.s1)); // 4-5
    const t8 = tf.fused.matMul({ a: t5, b: p.w2, bias: p.b2, activation: "sigmoid" }); // 6-8
    const t12 = tf.add(tf.relu(tf.sub(tf.mul(t8, t5), p.b3)), x); // 9-12
    const t15 = tf.tanh(tf.fused.matMul({ a: t12, b: p.w3, bias: p.b4 })); // 13-15
    const t18 = tf.sigmoid(tf.add(tf.mul(t15, p.s2), t12)); // 16-18
    return tf.fused.matMul({ a: t18, b: p.w4, bias: p.b5 }); // 19-20
  },
};
