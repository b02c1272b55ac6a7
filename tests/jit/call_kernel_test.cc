// call[G] on the tape (jit/call_kernel.cc): the callee's own executor runs,
// resolved by graph index; operands bind by position and by input name; the
// result is the callee's first declared output; interleaved direct runs of
// the callee at other shapes, a recompile of the callee, a SetParam of a
// callee parameter and run-time errors inside the callee all behave.
#include <gtest/gtest.h>

#include <string>

#include "jit/jit_test_util.h"

namespace shrew::jit {
namespace {

using runtime::Tensor;
using runtime::TensorMap;
using testing::MakeProgram;
using testing::RandomTensor;

constexpr const char* kTwoOutputs = R"SW(
@graph Pair {
  input a: Tensor<[N, 3], f32>;
  input b: Tensor<[3], f32>;
  output first: a * b;
  output second: a + b;
}
@graph Caller {
  input x: Tensor<[N, 3], f32>;
  input s: Tensor<[3], f32>;
  node p { op: Pair(x, s); };
  node q { op: Pair(b: s, a: p); };
  output y: q - 1.0;
}
)SW";

TEST(CallKernel, FirstOutputByPositionAndByNameOnNativeKernels) {
  std::unique_ptr<Program> p = MakeProgram(kTwoOutputs);
  ASSERT_NE(p, nullptr);
  TensorMap in;
  in.emplace("x", testing::F32({2, 3}, {1, 2, 3, 4, 5, 6}));
  in.emplace("s", testing::F32({3}, {2, -1, 0.5}));
  Result<TensorMap> out = p->Run("Caller", in);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  // y = x·s·s − 1 (the first output, a * b, twice).
  const float x[6] = {1, 2, 3, 4, 5, 6}, s[3] = {2, -1, 0.5};
  std::span<const float> y = out->at("y").values<float>();
  for (int i = 0; i < 6; ++i) EXPECT_FLOAT_EQ(y[static_cast<size_t>(i)], x[i] * s[i % 3] * s[i % 3] - 1.0f);
  EXPECT_EQ(p->Stats("Caller")->num_ref_kernels, 0);
  const CompiledGraph* cg = p->compiled("Caller");
  int calls = 0;
  for (const CompiledKernel& k : cg->kernels) calls += std::string(k.kernel->impl_name()) == "call";
  EXPECT_EQ(calls, 2);
  testing::RunBoth(*p, "Caller", in);
}

TEST(CallKernel, SurvivesDirectRunsRecompileAndSetParam) {
  std::unique_ptr<Program> p = MakeProgram(testing::ReadTestdata("examples/graph_calls.sw"));
  ASSERT_NE(p, nullptr);
  TensorMap in;
  in.emplace("features", RandomTensor(ir::DType::kF32, {3, 16}, 1));
  Result<TensorMap> before = p->Run("Model", in);
  ASSERT_TRUE(before.ok()) << before.status().ToString();
  // The callee run directly at another binding, then the caller again.
  TensorMap dense_in;
  dense_in.emplace("v", RandomTensor(ir::DType::kF32, {7, 16}, 2));
  ASSERT_TRUE(p->Run("Dense", dense_in).ok());
  Result<TensorMap> again = p->Run("Model", in);
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(runtime::BitwiseEqual(before->at("logits"), again->at("logits")));
  // Recompiling the callee replaces its executor; calls find the new one.
  ASSERT_TRUE(p->Recompile("Dense").ok());
  again = p->Run("Model", in);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_TRUE(runtime::BitwiseEqual(before->at("logits"), again->at("logits")));
  // A callee parameter change is seen through the call (shared parameters).
  Tensor w = RandomTensor(ir::DType::kF32, {16, 16}, 3);
  ASSERT_TRUE(p->SetParam("Dense/w", w).ok());
  again = p->Run("Model", in);
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(runtime::BitwiseEqual(before->at("logits"), again->at("logits")));
  testing::RunBoth(*p, "Model", in, 4.0);
}

TEST(CallKernel, ErrorsInsideTheCalleeReachTheCaller) {
  std::unique_ptr<Program> p = MakeProgram(R"SW(
@graph Lookup {
  input ids: Tensor<[K], i64>;
  param table: Tensor<[4, 2], f32> { init: "ones"; };
  output rows: embedding(ids, table);
}
@graph Caller {
  input tokens: Tensor<[K], i64>;
  output y: Lookup(tokens) * 2.0;
}
)SW");
  ASSERT_NE(p, nullptr);
  TensorMap in;
  in.emplace("tokens", Tensor::FromVector<int64_t>(ir::DType::kI64, {3}, {0, 9, 1}).value());
  Result<TensorMap> out = p->Run("Caller", in);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("embedding index 9 out of range for a table of 4 rows"), std::string::npos)
      << out.status().ToString();
  // Still usable.
  in.insert_or_assign("tokens", Tensor::FromVector<int64_t>(ir::DType::kI64, {2}, {3, 1}).value());
  out = p->Run("Caller", in);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->at("y").shape(), (runtime::Shape{2, 2}));
  EXPECT_FLOAT_EQ(out->at("y").values<float>()[0], 2.0f);
}

// LANGUAGE.md §4.1: a callee's names are its own. The caller's R=2, C=3 (or
// N=3) bound from its inputs must not be applied to the callee's declared
// types, where R, C (N) stand for other sizes: the tape failed with
// "declared type Tensor<[3, 2], f32> does not match inferred type
// Tensor<[2, 3], f32>" while the interpreter ran. Also through a caller
// typed per run (`?`), which both executors re-infer.
TEST(CallKernel, CallerDimsDoNotBindTheCalleesNames) {
  std::unique_ptr<Program> p = MakeProgram(R"SW(
@graph Same { input a: Tensor<[C, R], f32>; output o: a * 2.0; }
@graph Swapped { input x: Tensor<[R, C], f32>; output z: Same(x); }
@graph Flat { input a: Tensor<[N], f32>; output o: a + 1.0; }
@graph Reshaped { input x: Tensor<[N, 2], f32>; output o: Flat(reshape(x, shape: [-1])); }
@graph Untyped { input x: ?; input y: Tensor<[N, 2], f32>; output o: Flat(reshape(y, shape: [-1])) * x; }
)SW");
  ASSERT_NE(p, nullptr);
  const std::vector<float> v = {1, 2, 3, 4, 5, 6};
  TensorMap in;
  in.emplace("x", testing::F32({2, 3}, v));
  Result<TensorMap> out = p->Run("Swapped", in);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->at("z").shape(), (runtime::Shape{2, 3}));
  for (size_t i = 0; i < v.size(); ++i) EXPECT_EQ(out->at("z").values<float>()[i], 2 * v[i]);
  testing::RunBoth(*p, "Swapped", in);

  in.insert_or_assign("x", testing::F32({3, 2}, v));
  out = p->Run("Reshaped", in);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->at("o").shape(), (runtime::Shape{6}));
  for (size_t i = 0; i < v.size(); ++i) EXPECT_EQ(out->at("o").values<float>()[i], v[i] + 1);
  testing::RunBoth(*p, "Reshaped", in);

  TensorMap untyped;
  untyped.emplace("x", testing::F32({}, {3}));
  untyped.emplace("y", testing::F32({3, 2}, v));
  out = p->Run("Untyped", untyped);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->at("o").shape(), (runtime::Shape{6}));
  for (size_t i = 0; i < v.size(); ++i) EXPECT_EQ(out->at("o").values<float>()[i], 3 * (v[i] + 1));
  testing::RunBoth(*p, "Untyped", untyped);
}

}  // namespace
}  // namespace shrew::jit
