// A kernel workspace past what the plan can count (2^50 bytes, or a layout
// that overflowed size_t) is ResourceExhausted naming the node when the
// binding is planned, before any arena is sized: attention's [B, h, S, S]
// scores grow with S² while its input stays small (here 64 MiB of input,
// 2^51 bytes of scores and probabilities).
#include <gtest/gtest.h>

#include <string>

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

// Below that bound, the workspace is held to max_tensor_bytes like any
// value: S = 1024 with one head makes two 4 MiB score buffers from a 4 KiB
// input. It was allowed up to 2^50 bytes, so a moderate S asked for tens of
// gigabytes under a 1 GiB cap.
TEST(WorkspaceLimit, AWorkspaceOverMaxTensorBytesIsRefused) {
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
  Result<TensorMap> out = p->Run("G", feed(1024));
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), StatusCode::kResourceExhausted) << out.status().ToString();
  const std::string message = out.status().ToString();
  EXPECT_NE(message.find("node 'y' (multi_head_attention): its workspace of "), std::string::npos) << message;
  EXPECT_NE(message.find(" bytes (scratch for its intermediate values) is over the limit of 1048576 bytes per tensor"),
            std::string::npos)
      << message;
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

}  // namespace
}  // namespace shrew::jit
