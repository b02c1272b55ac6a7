#include "jit/memory_plan.h"

#include <gtest/gtest.h>

#include <random>

namespace shrew::jit {
namespace {

TEST(MemoryPlan, AlignUp) {
  EXPECT_EQ(AlignUp(0, 64), 0u);
  EXPECT_EQ(AlignUp(1, 64), 64u);
  EXPECT_EQ(AlignUp(64, 64), 64u);
  EXPECT_EQ(AlignUp(65, 64), 128u);
}

TEST(MemoryPlan, ChainReusesTwoBuffers) {
  // a -> b -> c -> d, each 100 bytes (128 aligned): two buffers suffice.
  std::vector<BufferRecord> r = {{100, 0, 1}, {100, 1, 2}, {100, 2, 3}, {100, 3, 3}};
  MemoryPlan plan = PlanMemory(r);
  EXPECT_EQ(plan.offsets, (std::vector<uint64_t>{0, 128, 0, 128}));
  EXPECT_EQ(plan.arena_bytes, 256u);
  EXPECT_EQ(plan.lower_bound, 256u);
  EXPECT_EQ(plan.naive, 512u);
  EXPECT_EQ(plan.num_reused, 2);
}

TEST(MemoryPlan, BothStrategiesOnAHandBuiltTape) {
  //   A: 64 bytes [0,1]   B: 256 [1,3]   C: 64 [2,3]   D: 256 [4,5]
  std::vector<BufferRecord> r = {{64, 0, 1}, {256, 1, 3}, {64, 2, 3}, {256, 4, 5}};
  // Tape order, lowest free offset: A@0, B@64 (A live), C@0 (A dead), D@0.
  EXPECT_EQ(PlaceFirstFit(r, 64), (std::vector<uint64_t>{0, 64, 0, 0}));
  // Largest first: B@0, D@0 (disjoint lifetimes), then A and C above B.
  EXPECT_EQ(PlaceGreedyBySize(r, 64), (std::vector<uint64_t>{256, 0, 256, 0}));
  MemoryPlan plan = PlanMemory(r);
  EXPECT_EQ(plan.arena_bytes, 320u);  // both reach 320; greedy wins ties
  EXPECT_TRUE(plan.greedy);
  EXPECT_EQ(plan.lower_bound, 320u);
  EXPECT_EQ(plan.naive, 640u);
  std::string error;
  EXPECT_TRUE(CheckNoOverlap(r, plan.offsets, 64, &error)) << error;
}

TEST(MemoryPlan, GreedyPutsEachBufferIntoTheGapBesideOverlappingOnes) {
  // R0 1024 [0,0] goes first at 0; R1 256 [1,9] does not overlap R0 -> 0;
  // R2 256 [0,9] overlaps both -> after R0 at 1024; R3 128 [1,9] overlaps R1
  // and R2 -> the gap [256, 1024) at 256; R4 64 [0,0] overlaps R0 and R2 ->
  // after R2 at 1280; R5 64 [5,5] overlaps R1, R2, R3 -> gap at 384.
  std::vector<BufferRecord> r = {{1024, 0, 0}, {256, 1, 9}, {256, 0, 9}, {128, 1, 9}, {64, 0, 0}, {64, 5, 5}};
  EXPECT_EQ(PlaceGreedyBySize(r, 64), (std::vector<uint64_t>{0, 0, 1024, 256, 1280, 384}));
  // First fit in tape order lands on the same offsets: R0@0, R2@1024, R4@1280
  // at t=0, then R1, R3, R5 fill [0, 448) once R0 and R4 are dead.
  std::vector<uint64_t> ff = PlaceFirstFit(r, 64);
  EXPECT_EQ(ff, (std::vector<uint64_t>{0, 0, 1024, 256, 1280, 384}));
  MemoryPlan plan = PlanMemory(r);
  EXPECT_EQ(plan.arena_bytes, 1344u);
  EXPECT_EQ(plan.lower_bound, 1344u);  // at t=0: R0 + R2 + R4
}

TEST(MemoryPlan, ZeroSizeRecordsTakeNoSpace) {
  std::vector<BufferRecord> r = {{0, 0, 5}, {64, 0, 5}};
  MemoryPlan plan = PlanMemory(r);
  EXPECT_EQ(plan.arena_bytes, 64u);
  EXPECT_EQ(plan.naive, 64u);
}

TEST(MemoryPlan, CheckNoOverlapCatchesSharing) {
  std::vector<BufferRecord> r = {{128, 0, 3}, {64, 2, 4}};
  std::string error;
  EXPECT_FALSE(CheckNoOverlap(r, std::vector<uint64_t>{0, 64}, 64, &error));
  EXPECT_NE(error.find("records 0 and 1"), std::string::npos);
  EXPECT_TRUE(CheckNoOverlap(r, std::vector<uint64_t>{0, 128}, 64, &error));
  EXPECT_FALSE(CheckNoOverlap(r, std::vector<uint64_t>{0, 130}, 64, &error));  // unaligned
}

TEST(MemoryPlan, RandomLifetimesNeverOverlapAndBeatNaiveAndFirstFit) {
  std::mt19937 rng(1234);
  for (int trial = 0; trial < 300; ++trial) {
    int n = 1 + static_cast<int>(rng() % 60);
    std::vector<BufferRecord> r(n);
    for (auto& rec : r) {
      rec.first = static_cast<int32_t>(rng() % 50);
      rec.last = rec.first + static_cast<int32_t>(rng() % 10);
      rec.size = rng() % 3 == 0 ? 0 : 1 + rng() % 5000;
    }
    MemoryPlan plan = PlanMemory(r);
    std::string error;
    ASSERT_TRUE(CheckNoOverlap(r, plan.offsets, 64, &error)) << "trial " << trial << ": " << error;
    EXPECT_LE(plan.arena_bytes, plan.naive);
    EXPECT_GE(plan.arena_bytes, plan.lower_bound);
    std::vector<uint64_t> ff = PlaceFirstFit(r, 64);
    ASSERT_TRUE(CheckNoOverlap(r, ff, 64, &error)) << error;
    uint64_t ff_end = 0;
    for (size_t i = 0; i < r.size(); ++i) ff_end = std::max(ff_end, ff[i] + AlignUp(r[i].size, 64));
    EXPECT_LE(plan.arena_bytes, ff_end);
  }
}

}  // namespace
}  // namespace shrew::jit
