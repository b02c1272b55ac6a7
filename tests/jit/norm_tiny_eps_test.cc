// layer_norm and batch_norm with an eps too small for f32 (any eps > 0 is
// valid, OPS.md §3.11.3–4): on a constant row or channel x − μ is 0 and the
// result is b (0 without bias), as the interpreter computes in double. The
// f32 kernels rounded 1/sqrt(σ² + eps) to inf (layer_norm) or sqrt(σ² + eps)
// to 0 (batch_norm) and gave 0·inf or 0/0 = NaN.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "jit/jit_test_util.h"

namespace shrew::jit {
namespace {

using runtime::Tensor;
using runtime::TensorMap;
using testing::F32;
using testing::MakeProgram;

void ExpectFiniteAndAgrees(const std::string& src, const TensorMap& feed) {
  SCOPED_TRACE(src);
  for (bool native : {true, false}) {
    SCOPED_TRACE(native ? "native kernels" : "ref fallback");
    ProgramOptions o;
    o.native_kernels = native;
    std::unique_ptr<Program> p = MakeProgram(src, o);
    ASSERT_NE(p, nullptr);
    Result<TensorMap> out = p->Run("G", feed);
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    const Tensor& y = out->at("y");
    for (int64_t i = 0; i < y.num_elements(); ++i) EXPECT_TRUE(std::isfinite(y.GetDouble(i))) << "element " << i;
    testing::RunBoth(*p, "G", feed);
  }
}

TEST(NormTinyEps, LayerNormOfConstantRowIsTheBias) {
  // Row 0 is constant (σ² = 0), row 1 is not; eps 1e-100 is 0 in f32.
  const TensorMap feed = {{"x", F32({2, 3}, {1.5f, 1.5f, 1.5f, 1.0f, 2.0f, 4.0f})}};
  ExpectFiniteAndAgrees(
      "@graph G {\n  input x: Tensor<[2, 3], f32>;\n  node y { op: layer_norm(x, eps: 1e-100); };\n  output y;\n}\n",
      feed);
  // With weight and bias: the broadcast ([1]) and the per-element ([3]) paths.
  ExpectFiniteAndAgrees(
      "@graph G {\n  input x: Tensor<[2, 3], f32>;\n"
      "  param w: Tensor<[1], f32> { init: \"ones\"; };\n  param b: Tensor<[1], f32> { init: \"ones\"; };\n"
      "  node y { op: layer_norm(x, w, b, eps: 1e-300); };\n  output y;\n}\n",
      feed);
  ExpectFiniteAndAgrees(
      "@graph G {\n  input x: Tensor<[2, 3], f32>;\n"
      "  param w: Tensor<[3], f32> { init: \"ones\"; };\n  param b: Tensor<[3], f32> { init: \"zeros\"; };\n"
      "  node y { op: layer_norm(x, w, b, eps: 1e-300); };\n  output y;\n}\n",
      feed);
}

TEST(NormTinyEps, BatchNormOfConstantChannelIsTheBias) {
  // One sample: every channel is constant (σ² = 0); sqrt(1e-300) is 0 in f32.
  const TensorMap feed = {{"x", F32({1, 3, 2}, {1.0f, 1.0f, -2.0f, -2.0f, 0.5f, 0.5f})}};
  ExpectFiniteAndAgrees(
      "@graph G {\n  input x: Tensor<[1, 3, 2], f32>;\n  node y { op: batch_norm(x, eps: 1e-300); };\n"
      "  output y;\n}\n",
      feed);
}

}  // namespace
}  // namespace shrew::jit
