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

}  // namespace
}  // namespace shrew::jit
