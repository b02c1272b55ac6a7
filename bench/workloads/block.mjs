// block: x[B,64,256] → one pre-LayerNorm transformer encoder block from primitives:
//   h = x + Attn(LN1(x)),   Attn: Q,K,V 256×256, 4 heads of 64, softmax(QKᵀ/8)·V, ·Wo
//   y = h + W2·gelu(W1·LN2(h) + b1) + b2,   FFN 256→1024→256
// GELU is the tanh approximation (Shrew's gelu, OPS.md §3.3) in every runtime.
import { OnnxGraph, attr } from "../onnx/builder.mjs";
import { uniform } from "../lib/rng.mjs";
import { param, once } from "./workload.mjs";

const S = 64, D = 256, H = 4, DH = 64, FF = 1024, EPS = 1e-5;
const SCALE = 1 / Math.sqrt(DH); // 0.125
const GELU_C = 0.7978845608028654; // √(2/π)
const NAME = "block";

const sw = `// Benchmark workload "block" (bench/workloads/block.mjs). Weights are set by name.
@model { name: "BenchBlock"; version: "1.0"; }

@config {
    Seq: 64;
    Model: 256;
    Heads: 4;
    HeadDim: Model / Heads;     // 64
    Ff: Model * 4;              // 1024
    ln_eps: 1e-5;
    scale: HeadDim ** -0.5;     // 1/8
}

@graph Block {
    input x: Tensor<[Batch, Seq, Model], f32>;

    param ln1_g: Tensor<[Model], f32>        { init: "ones"; };
    param ln1_b: Tensor<[Model], f32>        { init: "zeros"; };
    param wq:    Tensor<[Model, Model], f32> { init: "xavier_uniform"; };
    param wk:    Tensor<[Model, Model], f32> { init: "xavier_uniform"; };
    param wv:    Tensor<[Model, Model], f32> { init: "xavier_uniform"; };
    param wo:    Tensor<[Model, Model], f32> { init: "xavier_uniform"; };
    param ln2_g: Tensor<[Model], f32>        { init: "ones"; };
    param ln2_b: Tensor<[Model], f32>        { init: "zeros"; };
    param w1:    Tensor<[Model, Ff], f32>    { init: "kaiming_uniform"; };
    param b1:    Tensor<[Ff], f32>           { init: "zeros"; };
    param w2:    Tensor<[Ff, Model], f32>    { init: "xavier_uniform"; };
    param b2:    Tensor<[Model], f32>        { init: "zeros"; };

    // ---- attention sub-layer ----
    node a_in { op: layer_norm(x, ln1_g, ln1_b, eps: ln_eps); };

    // [B, S, D] -> [B, S, H, Dh] -> [B, H, S, Dh]
    node q { op: permute(reshape(matmul(a_in, wq), shape: [Batch, Seq, Heads, HeadDim]), dims: [0, 2, 1, 3]); };
    node k { op: permute(reshape(matmul(a_in, wk), shape: [Batch, Seq, Heads, HeadDim]), dims: [0, 2, 1, 3]); };
    node v { op: permute(reshape(matmul(a_in, wv), shape: [Batch, Seq, Heads, HeadDim]), dims: [0, 2, 1, 3]); };

    node scores { op: matmul(q, transpose(k)) * scale; };   // [B, H, S, S]
    node attn   { op: softmax(scores, dim: -1); };

    // [B, H, S, Dh] -> [B, S, H, Dh] -> [B, S, D]
    node ctx { op: reshape(permute(matmul(attn, v), dims: [0, 2, 1, 3]), shape: [Batch, Seq, Model]); };
    node h   { op: x + matmul(ctx, wo); };

    // ---- feed-forward sub-layer ----
    node f_in { op: layer_norm(h, ln2_g, ln2_b, eps: ln_eps); };
    node ff   { op: matmul(gelu(matmul(f_in, w1) + b1), w2) + b2; };

    output y: h + ff;        // [Batch, 64, 256]
}
`;

const weights = once(() => [
  param(NAME, "ln1_g", [D], 0.1, 1),
  param(NAME, "ln1_b", [D], 0.1),
  param(NAME, "wq", [D, D], 1 / Math.sqrt(D)),
  param(NAME, "wk", [D, D], 1 / Math.sqrt(D)),
  param(NAME, "wv", [D, D], 1 / Math.sqrt(D)),
  param(NAME, "wo", [D, D], 1 / Math.sqrt(D)),
  param(NAME, "ln2_g", [D], 0.1, 1),
  param(NAME, "ln2_b", [D], 0.1),
  param(NAME, "w1", [D, FF], 1 / Math.sqrt(D)),
  param(NAME, "b1", [FF], 1 / Math.sqrt(D)),
  param(NAME, "w2", [FF, D], 1 / Math.sqrt(FF)),
  param(NAME, "b2", [D], 1 / Math.sqrt(FF)),
]);

/** ONNX: opset-17 LayerNormalization, opset-20 Gelu(approximate="tanh"); ORT fuses the rest. */
function buildOnnx() {
  const g = new OnnxGraph("BenchBlock");
  for (const w of weights()) g.weight(w.name, w.shape, w.data);
  const x = g.input("x", ["batch", S, D]);
  const ln = (/** @type {string} */ t, /** @type {string} */ gamma, /** @type {string} */ beta) =>
    g.op("LayerNormalization", [t, gamma, beta], { attrs: { axis: attr.int(-1), epsilon: attr.float(EPS) } });
  const splitHeads = g.int64s([0, 0, H, DH]); // 0 = copy that input dim (batch, seq)
  const mergeHeads = g.int64s([0, 0, D]);
  const heads = (/** @type {string} */ t, /** @type {number[]} */ perm) =>
    g.op("Transpose", [g.op("Reshape", [t, splitHeads])], { attrs: { perm: attr.ints(perm) } });

  const aIn = ln(x, "ln1_g", "ln1_b");
  const q = heads(g.op("MatMul", [aIn, "wq"]), [0, 2, 1, 3]); // [B,H,S,Dh]
  const kT = heads(g.op("MatMul", [aIn, "wk"]), [0, 2, 3, 1]); // [B,H,Dh,S]
  const v = heads(g.op("MatMul", [aIn, "wv"]), [0, 2, 1, 3]); // [B,H,S,Dh]
  const scores = g.op("Mul", [g.op("MatMul", [q, kT]), g.scalar(SCALE)]);
  const attn = g.op("Softmax", [scores], { attrs: { axis: attr.int(-1) } });
  const ctx = g.op("Reshape", [
    g.op("Transpose", [g.op("MatMul", [attn, v])], { attrs: { perm: attr.ints([0, 2, 1, 3]) } }),
    mergeHeads,
  ]);
  const h = g.op("Add", [x, g.op("MatMul", [ctx, "wo"])]);
  const fIn = ln(h, "ln2_g", "ln2_b");
  const pre = g.op("Add", [g.op("MatMul", [fIn, "w1"]), "b1"]);
  const act = g.op("Gelu", [pre], { attrs: { approximate: attr.str("tanh") } });
  const ff = g.op("Add", [g.op("MatMul", [act, "w2"]), "b2"]);
  g.op("Add", [h, ff], { outputs: ["y"] });
  g.output("y", ["batch", S, D]);
  return g.toBytes();
}

/** @type {import("./workload.mjs").Workload} */
export default {
  name: NAME,
  title: "pre-LN transformer block, seq 64, d 256, 4 heads, FFN 1024",
  batches: [1, 8],
  graph: "Block",
  inputName: "x",
  outputName: "y",
  inputShape: (b) => [b, S, D],
  outputShape: (b) => [b, S, D],
  weights,
  input: (b) => uniform(`${NAME}/x/${b}`, b * S * D, -1, 1),
  sw,
  onnx: once(buildOnnx),
  // Functional tfjs-core ops (no chained-op registration needed); dense layers on 2-D rows.
  tfjs: (tf, p) => (x) => {
    const B = x.shape[0];
    const ln = (/** @type {any} */ t, /** @type {any} */ gamma, /** @type {any} */ beta) => {
      const { mean, variance } = tf.moments(t, -1, true);
      const norm = tf.mul(tf.sub(t, mean), tf.rsqrt(tf.add(variance, EPS)));
      return tf.add(tf.mul(norm, gamma), beta);
    };
    const gelu = (/** @type {any} */ t) => {
      const cube = tf.mul(tf.mul(tf.mul(t, t), t), 0.044715);
      const inner = tf.mul(tf.add(t, cube), GELU_C);
      return tf.mul(tf.mul(t, 0.5), tf.add(tf.tanh(inner), 1));
    };
    const heads = (/** @type {any} */ t) => tf.transpose(tf.reshape(t, [B, S, H, DH]), [0, 2, 1, 3]);
    const x2 = tf.reshape(x, [B * S, D]);
    const aIn = ln(x2, p.ln1_g, p.ln1_b);
    const q = heads(tf.matMul(aIn, p.wq));
    const k = heads(tf.matMul(aIn, p.wk));
    const v = heads(tf.matMul(aIn, p.wv));
    const attn = tf.softmax(tf.mul(tf.matMul(q, k, false, true), SCALE), -1);
    const ctx = tf.reshape(tf.transpose(tf.matMul(attn, v), [0, 2, 1, 3]), [B * S, D]);
    const h = tf.add(x2, tf.matMul(ctx, p.wo));
    const fIn = ln(h, p.ln2_g, p.ln2_b);
    const up = gelu(tf.fused.matMul({ a: fIn, b: p.w1, bias: p.b1 }));
    const y = tf.add(h, tf.fused.matMul({ a: up, b: p.w2, bias: p.b2 }));
    return tf.reshape(y, [B, S, D]);
  },
};
