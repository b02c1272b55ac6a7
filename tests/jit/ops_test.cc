// Every op of the JIT as a tiny graph: tape (native kernels, and the ref
// fallback) == the reference interpreter, on random inputs including
// broadcasting, negative axes, rank 0 and size-1 dims. A few are also
// checked against hand-written loops.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "jit/jit_test_util.h"

namespace shrew::jit {
namespace {

using runtime::Shape;
using runtime::Tensor;
using runtime::TensorMap;
using testing::MakeProgram;
using testing::RandomTensor;

struct In {
  std::string name;
  Shape shape;
  double lo = -2.0;
  double hi = 2.0;
};

std::string TypeOf(const Shape& s) {
  std::string t = "Tensor<[";
  for (size_t i = 0; i < s.size(); ++i) t += (i == 0 ? "" : ", ") + std::to_string(s[i]);
  return t + "], f32>";
}

// Builds `@graph G { inputs; params; node y { op: EXPR; }; output y; }`
// and compares the tape with the interpreter, with and without native kernels.
void CheckOp(const std::string& expr, const std::vector<In>& inputs, const std::vector<In>& params = {},
             uint32_t seed = 1, const std::string& extra_nodes = "") {
  std::string src = "@graph G {\n";
  for (const In& in : inputs) src += "  input " + in.name + ": " + TypeOf(in.shape) + ";\n";
  for (const In& p : params) {
    src += "  param " + p.name + ": " + TypeOf(p.shape) + " { init: \"uniform(-1, 1)\"; };\n";
  }
  src += extra_nodes;
  src += "  node y { op: " + expr + "; };\n  output y;\n}\n";
  SCOPED_TRACE(src);
  TensorMap feed;
  uint32_t s = seed;
  for (const In& in : inputs) feed.emplace(in.name, RandomTensor(ir::DType::kF32, in.shape, s++, in.lo, in.hi));
  for (bool native : {true, false}) {
    SCOPED_TRACE(native ? "native kernels" : "ref fallback");
    ProgramOptions o;
    o.native_kernels = native;
    std::unique_ptr<Program> p = MakeProgram(src, o);
    ASSERT_NE(p, nullptr);
    testing::RunBoth(*p, "G", feed, /*slack=*/4.0);
    // A second run on the same binding gives the same values.
    Result<TensorMap> a = p->Run("G", feed);
    Result<TensorMap> b = p->Run("G", feed);
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_TRUE(runtime::BitwiseEqual(a->at("y"), b->at("y")));
  }
}

TEST(JitOps, Matmul) {
  CheckOp("matmul(a, b)", {{"a", {3, 5}}, {"b", {5, 4}}});
  CheckOp("matmul(a, w)", {{"a", {1, 7}}}, {{"w", {7, 1}}});
  CheckOp("matmul(a, b)", {{"a", {2, 3, 5}}, {"b", {2, 5, 4}}});  // batch matmul
  CheckOp("matmul(a, b)", {{"a", {2, 1, 3, 5}}, {"b", {4, 5, 2}}});  // broadcast batch
  CheckOp("matmul(a, b)", {{"a", {5}}, {"b", {5, 3}}});           // rank-1 left
  CheckOp("matmul(a, b)", {{"a", {4, 5}}, {"b", {5}}});           // rank-1 right
  CheckOp("matmul(a, b)", {{"a", {5}}, {"b", {5}}});              // dot: rank 0
  CheckOp("matmul(a, w)", {{"a", {2, 3, 6}}}, {{"w", {6, 4}}});   // 3-D x constant weight
}

TEST(JitOps, FullyConnectedWithBiasAndActivation) {
  CheckOp("linear(x, w, b)", {{"x", {3, 6}}}, {{"w", {4, 6}}, {"b", {4}}});
  CheckOp("linear(x, w, bias: false)", {{"x", {2, 5, 6}}}, {{"w", {4, 6}}});
  // A [1, out] bias leaves a rank-1 x's result [out] (OPS.md §3.11.2): as a
  // parameter (packed) and as an input (added after the product).
  CheckOp("linear(x, w, b)", {{"x", {6}}}, {{"w", {4, 6}}, {"b", {1, 4}}});
  CheckOp("linear(x, w, b)", {{"x", {6}}, {"b", {1, 4}}}, {{"w", {4, 6}}});
  CheckOp("matmul(x, w) + b", {{"x", {3, 6}}}, {{"w", {6, 4}}, {"b", {4}}});
  CheckOp("relu(matmul(x, w) + b)", {{"x", {3, 6}}}, {{"w", {6, 4}}, {"b", {4}}});
  CheckOp("relu(linear(x, w, b))", {{"x", {3, 6}}}, {{"w", {4, 6}}, {"b", {4}}});
  CheckOp("gelu(linear(x, w, b))", {{"x", {3, 6}}}, {{"w", {4, 6}}, {"b", {4}}});
  CheckOp("tanh(matmul(x, w) + b)", {{"x", {1, 6}}}, {{"w", {6, 4}}, {"b", {1, 4}}});
  CheckOp("relu(matmul(x, w))", {{"x", {3, 6}}}, {{"w", {6, 4}}});
  // Weights of 512 KiB or more run as column panels in alternating order:
  // the two runs after RunBoth take them in opposite orders, bit for bit alike.
  CheckOp("relu(matmul(x, w) + b)", {{"x", {2, 700}}}, {{"w", {700, 200}}, {"b", {200}}});
  CheckOp("linear(x, w, b)", {{"x", {3, 600}}}, {{"w", {300, 600}}, {"b", {300}}});
}

TEST(JitOps, BinaryWithBroadcasting) {
  for (const char* op : {"+", "-", "*", "/"}) {
    SCOPED_TRACE(op);
    CheckOp(std::string("a ") + op + " b", {{"a", {2, 3}}, {"b", {2, 3}, 0.5, 2.0}});
    CheckOp(std::string("a ") + op + " b", {{"a", {3, 1, 4}}, {"b", {2, 4}, 0.5, 2.0}});
    CheckOp(std::string("a ") + op + " b", {{"a", {1}}, {"b", {4, 1}, 0.5, 2.0}});
    CheckOp(std::string("a ") + op + " b", {{"a", {}}, {"b", {3}, 0.5, 2.0}});  // rank 0
    CheckOp(std::string("a ") + op + " 2.5", {{"a", {2, 2}}});                // constant
  }
}

TEST(JitOps, Unary) {
  for (const char* op : {"neg", "relu", "gelu", "silu", "sigmoid", "tanh", "exp"}) {
    SCOPED_TRACE(op);
    CheckOp(std::string(op) + "(x)", {{"x", {3, 7}}});
    CheckOp(std::string(op) + "(x)", {{"x", {}}});
    CheckOp(std::string(op) + "(x)", {{"x", {1, 1, 5}}});
  }
  CheckOp("log(x)", {{"x", {4, 3}, 0.01, 5.0}});
  CheckOp("sqrt(x)", {{"x", {4, 3}, 0.0, 5.0}});
  CheckOp("-x", {{"x", {6}}});
}

TEST(JitOps, SoftmaxAnyAxis) {
  CheckOp("softmax(x)", {{"x", {3, 5}}});
  CheckOp("softmax(x, dim: 0)", {{"x", {3, 5}}});
  CheckOp("softmax(x, dim: 1)", {{"x", {2, 3, 4}}});
  CheckOp("softmax(x, dim: -3)", {{"x", {2, 3, 4}}});
  CheckOp("softmax(x, dim: -1)", {{"x", {2, 1, 4}}});
  CheckOp("softmax(x)", {{"x", {1}}});
}

TEST(JitOps, LayerNorm) {
  CheckOp("layer_norm(x)", {{"x", {3, 8}}});
  CheckOp("layer_norm(x, g)", {{"x", {2, 3, 8}}}, {{"g", {8}}});
  CheckOp("layer_norm(x, g, b, eps: 0.001)", {{"x", {4, 8}}}, {{"g", {8}}, {"b", {8}}});
}

// Without b, y = normalised · w + 0 (OPS.md §3.11.3): rows of signed zeros
// give +0 everywhere on both executors (the interpreter skipped the + 0 and
// kept the −0 of (−0 − mean) / σ). In f64 a row whose squared deviations
// overflow is scaled first: ±1, bit for bit on both (it gave +0).
TEST(JitOps, LayerNormWithoutBiasGivesPositiveZeros) {
  for (const char* dtype : {"f32", "f64"}) {
    SCOPED_TRACE(dtype);
    const std::string src = std::string("@graph G {\n  input x: Tensor<[3, 2], ") + dtype +
                            ">;\n  output y: layer_norm(x);\n}\n";
    std::unique_ptr<Program> p = testing::MakeProgram(src);
    ASSERT_NE(p, nullptr);
    TensorMap feed;
    const std::vector<double> xs = {-0.0, -0.0, 0.0, -0.0, 1e200, -1e200};
    if (std::string(dtype) == "f32") {
      feed.emplace("x", testing::F32({3, 2}, {-0.0f, -0.0f, 0.0f, -0.0f, -0.0f, 0.0f}));
    } else {
      feed.emplace("x", runtime::Tensor::FromVector<double>(ir::DType::kF64, {3, 2}, xs).value());
    }
    const TensorMap out = testing::RunBothBitwise(*p, "G", feed);
    ASSERT_EQ(out.size(), 1u);
    const bool f64 = std::string(dtype) == "f64";
    for (int i = 0; i < (f64 ? 4 : 6); ++i) {
      const double v = out.at("y").GetDouble(i);
      EXPECT_TRUE(v == 0.0 && !std::signbit(v)) << i << ": " << v;
    }
    if (f64) {
      EXPECT_NEAR(out.at("y").GetDouble(4), 1.0, 1e-15);
      EXPECT_NEAR(out.at("y").GetDouble(5), -1.0, 1e-15);
    }
  }
}

TEST(JitOps, ShapeOps) {
  CheckOp("transpose(x)", {{"x", {3, 4}}});
  CheckOp("transpose(x, dim0: 0, dim1: -1)", {{"x", {2, 3, 4}}});
  CheckOp("permute(x, dims: [2, 0, 1])", {{"x", {2, 3, 4}}});
  CheckOp("permute(x, dims: [0, 2, 1, 3])", {{"x", {2, 3, 4, 5}}});
  CheckOp("reshape(x, shape: [4, -1])", {{"x", {2, 3, 4}}});
  CheckOp("view(x, shape: [24])", {{"x", {2, 3, 4}}});
  CheckOp("reshape(x, shape: [3, 2]) * 2", {{"x", {6}}});
  CheckOp("expand(x, shape: [2, 3, 4])", {{"x", {3, 1}}});
  CheckOp("expand(x, shape: [-1, 4])", {{"x", {3, 1}}});
}

TEST(JitOps, FusedOpsWrittenInSource) {
  CheckOp("fused_matmul_add(x, w, b)", {{"x", {3, 6}}}, {{"w", {6, 4}}, {"b", {4}}});
  CheckOp("fused_matmul_relu(x, w)", {{"x", {3, 6}}}, {{"w", {6, 4}}});
  CheckOp("fused_add_relu(a, b)", {{"a", {3, 4}}, {"b", {4}}});
  CheckOp("fused_sub_relu(a, b)", {{"a", {3, 4}}, {"b", {3, 1}}});
}

TEST(JitOps, ConstantsAndDropoutInference) {
  CheckOp("x * 2.5 + 1", {{"x", {2, 3}}});
  CheckOp("dropout(x, p: 0.3) + 1", {{"x", {2, 3}}});
  CheckOp("(x + 1) * (x - 1)", {{"x", {5}}});
}

TEST(JitOps, ChainsReuseMemory) {
  // Element-wise chain: in-place placements keep the arena at two buffers.
  CheckOp("exp(tanh(sigmoid(relu(x * 2))))", {{"x", {64, 64}}});
}

// ---- hand-written loops

TEST(JitOps, MatmulAddMatchesLoop) {
  std::unique_ptr<Program> p = MakeProgram(R"SW(
@graph G {
  input x: Tensor<[2, 3], f32>;
  input w: Tensor<[3, 2], f32>;
  input b: Tensor<[2], f32>;
  output y: relu(matmul(x, w) + b);
}
)SW");
  ASSERT_NE(p, nullptr);
  TensorMap in;
  in.emplace("x", testing::F32({2, 3}, {1, 2, 3, 4, 5, 6}));
  in.emplace("w", testing::F32({3, 2}, {1, -1, 0.5, 2, -2, 0}));
  in.emplace("b", testing::F32({2}, {0.25, -10}));
  Result<TensorMap> out = p->Run("G", in);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  // Row 0: [1 + 1 - 6, -1 + 4 + 0] + b = [-3.75, -7] -> relu [0, 0]
  // Row 1: [4 + 2.5 - 12, -4 + 10] + b = [-5.25, -4] -> [0, 0]; use x2 below.
  std::vector<float> expect(4);
  const float x[6] = {1, 2, 3, 4, 5, 6}, w[6] = {1, -1, 0.5, 2, -2, 0}, b[2] = {0.25, -10};
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 2; ++j) {
      float acc = b[j];
      for (int k = 0; k < 3; ++k) acc += x[i * 3 + k] * w[k * 2 + j];
      expect[static_cast<size_t>(i * 2 + j)] = acc > 0 ? acc : 0;
    }
  }
  std::span<const float> y = out->at("y").values<float>();
  for (size_t i = 0; i < 4; ++i) EXPECT_FLOAT_EQ(y[i], expect[i]);
}

TEST(JitOps, SoftmaxAndLayerNormMatchLoops) {
  std::unique_ptr<Program> p = MakeProgram(R"SW(
@graph G {
  input x: Tensor<[2, 4], f32>;
  output s: softmax(x, dim: 0);
  output n: layer_norm(x);
}
)SW");
  ASSERT_NE(p, nullptr);
  TensorMap in;
  const std::vector<float> xv = {1, 2, 3, 4, -1, 0, 5, 2};
  in.emplace("x", testing::F32({2, 4}, xv));
  Result<TensorMap> out = p->Run("G", in);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  std::span<const float> s = out->at("s").values<float>();
  for (int j = 0; j < 4; ++j) {
    const double a = xv[static_cast<size_t>(j)], b = xv[static_cast<size_t>(4 + j)];
    const double m = std::max(a, b);
    const double ea = std::exp(a - m), eb = std::exp(b - m);
    EXPECT_NEAR(s[static_cast<size_t>(j)], ea / (ea + eb), 1e-6);
    EXPECT_NEAR(s[static_cast<size_t>(4 + j)], eb / (ea + eb), 1e-6);
  }
  std::span<const float> n = out->at("n").values<float>();
  for (int r = 0; r < 2; ++r) {
    double mu = 0, var = 0;
    for (int j = 0; j < 4; ++j) mu += xv[static_cast<size_t>(r * 4 + j)];
    mu /= 4;
    for (int j = 0; j < 4; ++j) var += std::pow(xv[static_cast<size_t>(r * 4 + j)] - mu, 2);
    var /= 4;
    for (int j = 0; j < 4; ++j) {
      EXPECT_NEAR(n[static_cast<size_t>(r * 4 + j)], (xv[static_cast<size_t>(r * 4 + j)] - mu) / std::sqrt(var + 1e-5),
                  1e-5);
    }
  }
}

}  // namespace
}  // namespace shrew::jit
