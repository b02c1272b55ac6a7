// A kernel workspace past what the plan can count (2^50 bytes, or a layout
// that overflowed size_t) is ResourceExhausted naming the node when the
// binding is planned, before any arena is sized: attention's [B, h, S, S]
// scores grow with S² while its input stays small (here 64 MiB of input,
// 2^51 bytes of scores and probabilities).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "jit/jit_test_util.h"

namespace shrew::jit {
namespace {

using runtime::TensorMap;
using testing::MakeProgram;

TEST(WorkspaceLimit, AttentionScoresPastTheLimitAreRefusedWhenPlanning) {
  auto p = MakeProgram(R"(
    @graph G {
      input x: Tensor<[1, S, 1], f32>;
      output y: multi_head_attention(x, n_heads: 1);
    })");
  ASSERT_NE(p, nullptr);
  const int64_t s = int64_t{1} << 24;
  Result<runtime::Tensor> x = runtime::Tensor::Zeros(ir::DType::kF32, {1, s, 1});
  ASSERT_TRUE(x.ok()) << x.status().ToString();
  TensorMap feed;
  feed.emplace("x", std::move(x).value());
  Result<TensorMap> out = p->Run("G", feed);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), StatusCode::kResourceExhausted) << out.status().ToString();
  EXPECT_NE(out.status().message().find("node 'y' (multi_head_attention): its workspace of"), std::string::npos)
      << out.status().ToString();
}

// Below that bound, each intermediate value of the attention is held to
// max_tensor_bytes like any value, on both executors: S = 1024 with one head
// makes 4 MiB of scores from a 4 KiB input. (The workspace was allowed up to
// 2^50 bytes, so a moderate S asked for tens of gigabytes under a 1 GiB cap.)
TEST(WorkspaceLimit, AnIntermediateOverMaxTensorBytesIsRefusedOnBothExecutors) {
  const char* source = R"(
    @graph G {
      input x: Tensor<[1, S, 1], f32>;
      output y: multi_head_attention(x, n_heads: 1);
    })";
  shrew::ProgramOptions small;
  small.max_tensor_bytes = uint64_t{1} << 20;
  auto p = MakeProgram(source, small);
  ASSERT_NE(p, nullptr);
  auto feed = [](int64_t s) {
    TensorMap m;
    m.emplace("x", runtime::Tensor::Zeros(ir::DType::kF32, {1, s, 1}).value());
    return m;
  };
  for (bool interpret : {false, true}) {
    SCOPED_TRACE(interpret ? "interpreter" : "tape");
    Result<TensorMap> out = interpret ? p->Interpret("G", feed(1024)) : p->Run("G", feed(1024));
    ASSERT_FALSE(out.ok());
    EXPECT_EQ(out.status().code(), StatusCode::kResourceExhausted) << out.status().ToString();
    EXPECT_NE(out.status().message().find("node 'y' (multi_head_attention): its intermediate [1, 1, 1024, 1024] (the "
                                          "attention scores, 4194304 bytes) is over the limit of 1048576 bytes per "
                                          "tensor"),
              std::string::npos)
        << out.status().message();
  }
  // The program stays usable: a short sequence fits and runs, and its
  // output is the input's shape.
  Result<TensorMap> ok = p->Run("G", feed(16));
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(ok->at("y").shape(), (runtime::Shape{1, 16, 1}));
  // With the default cap the long sequence runs too.
  auto roomy = MakeProgram(source);
  ASSERT_NE(roomy, nullptr);
  Result<TensorMap> long_run = roomy->Run("G", feed(1024));
  ASSERT_TRUE(long_run.ok()) << long_run.status().ToString();
}

// The workspace holds several intermediates at once (and XNNPACK's
// padding): it is not a tensor the cap bounds. Scores of exactly the cap
// ran on the interpreter while the tape refused its 4224-byte workspace.
TEST(WorkspaceLimit, AWorkspaceOverTheCapWhoseIntermediatesFitRuns) {
  const char* attention = R"(
    @graph G {
      input x: Tensor<[1, 16, 1], f32>;
      input w: Tensor<[1, 1], f32>;
      output y: multi_head_attention(x, w, w, w, w);
    })";
  shrew::ProgramOptions tight;
  tight.max_tensor_bytes = 1024;  // the [1, 1, 16, 16] f32 scores exactly
  auto mha = MakeProgram(attention, tight);
  ASSERT_NE(mha, nullptr);
  TensorMap in;
  std::vector<float> xs(16);
  for (int i = 0; i < 16; ++i) xs[static_cast<size_t>(i)] = static_cast<float>(i) / 8;
  in.emplace("x", testing::F32({1, 16, 1}, xs));
  in.emplace("w", testing::F32({1, 1}, {0.5F}));
  testing::RunBoth(*mha, "G", in);
  tight.max_tensor_bytes = 1020;
  auto under = MakeProgram(attention, tight);
  ASSERT_NE(under, nullptr);
  EXPECT_EQ(under->Run("G", in).status().code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(under->Interpret("G", in).status().code(), StatusCode::kResourceExhausted);
  // transformer_block: a 64-byte [1, 4, 4] hidden layer and [1, 1, 4, 4] scores under a 64-byte cap.
  tight.max_tensor_bytes = 64;
  auto block = MakeProgram(R"(
    @graph B {
      input x: Tensor<[1, 4, 1], f32>;
      output y: transformer_block(x, n_heads: 1);
    })",
                           tight);
  ASSERT_NE(block, nullptr);
  TensorMap bx;
  bx.emplace("x", testing::F32({1, 4, 1}, {0.5F, -1, 2, 0.25F}));
  testing::RunBoth(*block, "B", bx);
}

}  // namespace
}  // namespace shrew::jit
