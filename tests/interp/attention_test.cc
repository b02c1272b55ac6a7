// multi_head_attention and transformer_block (OPS.md §3.12) against
// independent naive loops in double.
#include <cmath>

#include "interp/interp_test_util.h"

namespace shrew::interp {
namespace {

using namespace shrew::interp::testing;  // NOLINT
using ir::AttrValue;
using K = ir::OpKind;
using Vec = std::vector<double>;

Vec Pseudo(int n, int salt) {
  Vec v;
  for (int i = 0; i < n; ++i) v.push_back(std::sin(0.37 * i + salt) * 0.8);
  return v;
}

// y[r, j] = Σ_i x[r, i] · w[i, j] for x: [rows, in], w: [in, out].
Vec MatMul(const Vec& x, const Vec& w, int rows, int in, int out) {
  Vec y(static_cast<size_t>(rows * out), 0.0);
  for (int r = 0; r < rows; ++r)
    for (int j = 0; j < out; ++j)
      for (int i = 0; i < in; ++i) y[r * out + j] += x[r * in + i] * w[i * out + j];
  return y;
}

Vec NaiveMha(const Vec& x, const Vec& wq, const Vec& wk, const Vec& wv, const Vec& wo, int b, int s, int d, int h,
             bool causal) {
  const int dh = d / h;
  const Vec q = MatMul(x, wq, b * s, d, d), k = MatMul(x, wk, b * s, d, d), v = MatMul(x, wv, b * s, d, d);
  Vec o(static_cast<size_t>(b * s * d), 0.0);
  for (int bi = 0; bi < b; ++bi)
    for (int hi = 0; hi < h; ++hi)
      for (int i = 0; i < s; ++i) {
        Vec sc(static_cast<size_t>(s));
        double m = -1e300;
        for (int j = 0; j < s; ++j) {
          double dot = 0;
          for (int c = 0; c < dh; ++c) dot += q[(bi * s + i) * d + hi * dh + c] * k[(bi * s + j) * d + hi * dh + c];
          sc[j] = dot / std::sqrt(static_cast<double>(dh)) + (causal && j > i ? -1e9 : 0.0);
          m = std::max(m, sc[j]);
        }
        double z = 0;
        for (int j = 0; j < s; ++j) z += (sc[j] = std::exp(sc[j] - m));
        for (int c = 0; c < dh; ++c) {
          double acc = 0;
          for (int j = 0; j < s; ++j) acc += sc[j] / z * v[(bi * s + j) * d + hi * dh + c];
          o[(bi * s + i) * d + hi * dh + c] = acc;
        }
      }
  return MatMul(o, wo, b * s, d, d);
}

Vec LayerNorm(const Vec& x, int d, const Vec& w, const Vec& bias) {
  Vec y;
  for (size_t r = 0; r < x.size() / d; ++r) {
    double mean = 0, var = 0;
    for (int i = 0; i < d; ++i) mean += x[r * d + i] / d;
    for (int i = 0; i < d; ++i) var += (x[r * d + i] - mean) * (x[r * d + i] - mean) / d;
    for (int i = 0; i < d; ++i) y.push_back((x[r * d + i] - mean) / std::sqrt(var + 1e-5) * w[i] + bias[i]);
  }
  return y;
}

std::vector<float> ToF32(const Vec& v) { return std::vector<float>(v.begin(), v.end()); }

ir::Attrs Heads(int h, bool causal) { return A({{"n_heads", AttrValue::Int(h)}, {"causal", AttrValue::Bool(causal)}}); }

TEST(RefAttentionTest, MatchesNaiveLoops) {
  const int b = 2, s = 3, d = 4;
  const Vec xv = Pseudo(b * s * d, 1), wq = Pseudo(d * d, 2), wk = Pseudo(d * d, 3), wv = Pseudo(d * d, 4),
            wo = Pseudo(d * d, 5);
  Tensor x = F64({b, s, d}, xv), q = F64({d, d}, wq), k = F64({d, d}, wk), v = F64({d, d}, wv), o = F64({d, d}, wo);
  for (int h : {1, 2, 4}) {
    for (bool causal : {false, true}) {
      EXPECT_TRUE(Close(Eval(K::kMultiHeadAttention, {&x, &q, &k, &v, &o}, Heads(h, causal)),
                        F64({b, s, d}, NaiveMha(xv, wq, wk, wv, wo, b, s, d, h, causal)), 1e-12, 1e-12))
          << "heads " << h << " causal " << causal;
    }
  }
  // f32 stays within the JIT tolerance of the double computation.
  Tensor xf = F32({b, s, d}, ToF32(xv)), qf = F32({d, d}, ToF32(wq)), kf = F32({d, d}, ToF32(wk)),
         vf = F32({d, d}, ToF32(wv)), of = F32({d, d}, ToF32(wo));
  EXPECT_TRUE(Close(Eval(K::kMultiHeadAttention, {&xf, &qf, &kf, &vf, &of}, Heads(2, true)),
                    F32({b, s, d}, ToF32(NaiveMha(xv, wq, wk, wv, wo, b, s, d, 2, true))), 1e-5, 1e-6));
}

TEST(RefAttentionTest, CausalFirstRowSeesOnlyItself) {
  // With identity projections and causal masking, position 0 attends only
  // to itself: the output row equals the input row.
  const int d = 2;
  Tensor x = F64({1, 3, d}, {1, 2, 3, 4, 5, 6});
  Tensor eye = F64({d, d}, {1, 0, 0, 1});
  Result<Tensor> r = Eval(K::kMultiHeadAttention, {&x, &eye, &eye, &eye, &eye}, Heads(1, true));
  ASSERT_TRUE(r.ok());
  EXPECT_NEAR(r->values<double>()[0], 1, 1e-12);
  EXPECT_NEAR(r->values<double>()[1], 2, 1e-12);
}

TEST(RefAttentionTest, Errors) {
  Tensor x = F32({1, 2, 4}, std::vector<float>(8, 0.5f));
  EXPECT_TRUE(FailsWith(Eval(K::kMultiHeadAttention, {&x}), "run materialisation first"));
  Tensor w = F32({4, 4}, std::vector<float>(16, 0.1f));
  EXPECT_TRUE(FailsWith(Eval(K::kMultiHeadAttention, {&x, &w, &w, &w, &w}, Heads(3, false)), "not divisible by n_heads 3"));
  Tensor w3 = F32({4, 3}, std::vector<float>(12, 0.1f));
  EXPECT_TRUE(FailsWith(Eval(K::kMultiHeadAttention, {&x, &w, &w3, &w, &w}), "multi_head_attention w_k has shape [4, 3], expected [4, 4]"));
  Tensor x2 = F32({2, 4}, std::vector<float>(8, 0.5f));
  EXPECT_TRUE(FailsWith(Eval(K::kMultiHeadAttention, {&x2, &w, &w, &w, &w}), "rank 3"));
}

TEST(RefTransformerBlockTest, MatchesComposition) {
  const int b = 1, s = 3, d = 4, f = 4 * d;
  const Vec xv = Pseudo(b * s * d, 10);
  const Vec ln1w = {1, 0.5, 2, -1}, ln1b = {0, 0.1, -0.1, 0.2}, ln2w = {0.5, 1, 1, 1.5}, ln2b = {0.3, 0, 0, -0.3};
  const Vec wq = Pseudo(d * d, 11), wk = Pseudo(d * d, 12), wv = Pseudo(d * d, 13), wo = Pseudo(d * d, 14);
  const Vec ff1w = Pseudo(d * f, 15), ff1b = Pseudo(f, 16), ff2w = Pseudo(f * d, 17), ff2b = Pseudo(d, 18);
  for (bool causal : {true, false}) {
    // Reference: a = x + MHA(LN1(x)); y = a + gelu(LN2(a)·ff1_w + ff1_b)·ff2_w + ff2_b.
    const Vec h1 = LayerNorm(xv, d, ln1w, ln1b);
    const Vec attn = NaiveMha(h1, wq, wk, wv, wo, b, s, d, 2, causal);
    Vec a(xv.size());
    for (size_t i = 0; i < a.size(); ++i) a[i] = xv[i] + attn[i];
    Vec hidden = MatMul(LayerNorm(a, d, ln2w, ln2b), ff1w, b * s, d, f);
    for (size_t i = 0; i < hidden.size(); ++i) {
      const double t = hidden[i] + ff1b[i % f];
      hidden[i] = 0.5 * t * (1 + std::tanh(0.7978845608028654 * (t + 0.044715 * t * t * t)));
    }
    const Vec out = MatMul(hidden, ff2w, b * s, f, d);
    Vec y(a.size());
    for (size_t i = 0; i < y.size(); ++i) y[i] = a[i] + out[i] + ff2b[i % d];

    Tensor tx = F64({b, s, d}, xv), t1w = F64({d}, ln1w), t1b = F64({d}, ln1b), tq = F64({d, d}, wq),
           tk = F64({d, d}, wk), tv = F64({d, d}, wv), to = F64({d, d}, wo), t2w = F64({d}, ln2w), t2b = F64({d}, ln2b),
           tf1w = F64({d, f}, ff1w), tf1b = F64({f}, ff1b), tf2w = F64({f, d}, ff2w), tf2b = F64({d}, ff2b);
    EXPECT_TRUE(Close(Eval(K::kTransformerBlock,
                           {&tx, &t1w, &t1b, &tq, &tk, &tv, &to, &t2w, &t2b, &tf1w, &tf1b, &tf2w, &tf2b},
                           Heads(2, causal)),
                      F64({b, s, d}, y), 1e-12, 1e-12))
        << "causal " << causal;
  }
}

TEST(RefTransformerBlockTest, Errors) {
  Tensor x = F32({1, 2, 4}, std::vector<float>(8, 0.5f));
  EXPECT_TRUE(FailsWith(Eval(K::kTransformerBlock, {&x}), "expects 13): run materialisation first"));
  Tensor v = F32({4}, std::vector<float>(4, 1));
  Tensor w = F32({4, 4}, std::vector<float>(16, 0.1f));
  Tensor bad = F32({3, 16}, std::vector<float>(48, 0.1f));
  Tensor f1b = F32({16}, std::vector<float>(16, 0));
  Tensor f2w = F32({16, 4}, std::vector<float>(64, 0.1f));
  EXPECT_TRUE(FailsWith(Eval(K::kTransformerBlock, {&x, &v, &v, &w, &w, &w, &w, &v, &v, &bad, &f1b, &f2w, &v}),
                        "transformer_block ff1_w has shape [3, 16], expected [4, 16]"));
  // Shapes the products and layer norms would take (a hidden width of 8, a
  // one-element weight broadcast) are refused as the tape's types refuse them.
  Tensor f1w8 = F32({4, 8}, std::vector<float>(32, 0.1f)), f1b8 = F32({8}, std::vector<float>(8, 0));
  Tensor f2w8 = F32({8, 4}, std::vector<float>(32, 0.1f)), one = F32({1}, {1});
  Tensor f1w = F32({4, 16}, std::vector<float>(64, 0.1f));
  EXPECT_TRUE(FailsWith(Eval(K::kTransformerBlock, {&x, &v, &v, &w, &w, &w, &w, &v, &v, &f1w8, &f1b8, &f2w8, &v}),
                        "transformer_block ff1_w has shape [4, 8], expected [4, 16]"));
  EXPECT_TRUE(FailsWith(Eval(K::kTransformerBlock, {&x, &one, &v, &w, &w, &w, &w, &v, &v, &f1w, &f1b, &f2w, &v}),
                        "transformer_block ln1_w has shape [1], expected [4]"));
  EXPECT_TRUE(FailsWith(Eval(K::kTransformerBlock, {&x, &v, &v, &w, &w, &w, &w, &v, &v, &f1w, &f1b, &f2w, &one}),
                        "transformer_block ff2_b has shape [1], expected [4]"));
  EXPECT_TRUE(Eval(K::kTransformerBlock, {&x, &v, &v, &w, &w, &w, &w, &v, &v, &f1w, &f1b, &f2w, &v}).ok());
}

}  // namespace
}  // namespace shrew::interp
