// The cap on attention's intermediate values (runtime/attention_intermediates.h).
#include "runtime/attention_intermediates.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace shrew::runtime {
namespace {

TEST(AttentionIntermediates, TheLargestOfScoresProjectionAndHiddenLayerIsHeldToTheCap) {
  // [2, 8, 16] with 4 heads: scores 2·4·8·8 = 512, projection 256, hidden 1024 elements.
  EXPECT_TRUE(CheckAttentionIntermediates({2, 8, 16}, 4, false, 4, 2048).ok());
  Status scores = CheckAttentionIntermediates({2, 8, 16}, 4, false, 4, 2047);
  EXPECT_EQ(scores.code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(scores.message(),
            "its intermediate [2, 4, 8, 8] (the attention scores, 2048 bytes) is over the limit of 2047 bytes per tensor");
  EXPECT_TRUE(CheckAttentionIntermediates({2, 8, 16}, 4, true, 4, 4096).ok());
  EXPECT_EQ(CheckAttentionIntermediates({2, 8, 16}, 4, true, 4, 4095).message(),
            "its intermediate [2, 8, 64] (the feed-forward hidden layer, 4096 bytes) is over the limit of 4095 bytes "
            "per tensor");
  // One head, a long model dimension: the projection is the largest.
  EXPECT_EQ(CheckAttentionIntermediates({1, 2, 1000}, 1, false, 8, 15999).message(),
            "its intermediate [1, 2, 1000] (a projection, 16000 bytes) is over the limit of 15999 bytes per tensor");
}

TEST(AttentionIntermediates, ScoresPastInt64AreOverAnyCap) {
  const int64_t s = int64_t{1} << 32;
  Status huge = CheckAttentionIntermediates({1, s, 1}, 1, false, 4, UINT64_MAX);
  EXPECT_EQ(huge.code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(huge.message(), "its intermediate [1, 1, 4294967296, 4294967296] (the attention scores, more bytes than "
                            "64 bits count) is over the limit of 18446744073709551615 bytes per tensor");
  // Shapes the op refuses itself are left to it.
  EXPECT_TRUE(CheckAttentionIntermediates({4, 4}, 1, false, 4, 1).ok());
  EXPECT_TRUE(CheckAttentionIntermediates({1, 4, 4}, 0, false, 4, 1).ok());
}

}  // namespace
}  // namespace shrew::runtime
