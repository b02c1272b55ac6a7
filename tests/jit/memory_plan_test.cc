#include "jit/memory_plan.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace shrew::jit {
namespace {

// Both placements as plainly written: each record against every placed one
// whose lifetime overlaps it (in tape order those are the ones still alive),
// into the smallest gap (greedy) or the lowest one (first fit).
std::vector<uint64_t> ReferencePlacement(const std::vector<BufferRecord>& r, uint64_t alignment, bool greedy) {
  std::vector<size_t> order(r.size());
  for (size_t i = 0; i < r.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    uint64_t sa = AlignUp(r[a].size, alignment), sb = AlignUp(r[b].size, alignment);
    if (greedy && sa != sb) return sa > sb;
    return r[a].first < r[b].first;
  });
  std::vector<uint64_t> offsets(r.size(), 0);
  std::vector<size_t> placed;
  for (size_t i : order) {
    uint64_t size = AlignUp(r[i].size, alignment);
    if (size == 0) continue;
    std::vector<std::pair<uint64_t, uint64_t>> busy;
    for (size_t p : placed) {
      if (r[p].first <= r[i].last && r[i].first <= r[p].last) {
        busy.emplace_back(offsets[p], offsets[p] + AlignUp(r[p].size, alignment));
      }
    }
    std::sort(busy.begin(), busy.end());
    uint64_t best = 0, best_gap = UINT64_MAX, cursor = 0;
    bool fitted = false;
    for (auto [begin, end] : busy) {
      if (begin >= cursor + size && (greedy ? begin - cursor < best_gap : !fitted)) {
        best_gap = begin - cursor;
        best = cursor;
        fitted = true;
      }
      cursor = std::max(cursor, end);
    }
    offsets[i] = fitted ? best : cursor;
    placed.push_back(i);
  }
  return offsets;
}

TEST(MemoryPlan, IndexedPlacementsEqualThePlainOnes) {
  // Short lifetimes (a long chain), long ones (many outputs live to the
  // end), and a mix, so that both the lifetime index and the scan of all
  // placed buffers serve the greedy placement; and many buffers of one or
  // two sizes dying in random order, so that first fit's gaps split, fill
  // and merge with their neighbours on either side.
  std::mt19937 rng(99);
  for (int trial = 0; trial < 60; ++trial) {
    const int n = 1 + static_cast<int>(rng() % 500);
    const int kind = trial % 4;
    std::vector<BufferRecord> r(n);
    for (int i = 0; i < n; ++i) {
      r[i].first = kind >= 2 ? static_cast<int32_t>(rng() % n) : i;
      int32_t len = kind == 0 ? static_cast<int32_t>(rng() % 6) : kind == 1 ? n : static_cast<int32_t>(rng() % (n / 2 + 1));
      r[i].last = r[i].first + len;
      r[i].size = kind == 3 ? 64 * (1 + rng() % 2) : rng() % 7 == 0 ? 0 : 64 * (1 + rng() % 6) - rng() % 64;
    }
    if (trial % 5 == 4) {
      // Sparse instruction numbers up to 2e9: the index is sized by the records.
      for (BufferRecord& rec : r) {
        rec.first *= 2000000;
        rec.last = rec.last * 2000000 + 1999999;
      }
    }
    ASSERT_EQ(PlaceGreedyBySize(r, 64), ReferencePlacement(r, 64, /*greedy=*/true)) << "trial " << trial;
    ASSERT_EQ(PlaceFirstFit(r, 64), ReferencePlacement(r, 64, /*greedy=*/false)) << "trial " << trial;
    std::string error;
    ASSERT_TRUE(CheckNoOverlap(r, PlanMemory(r).offsets, 64, &error)) << error;
  }
}

TEST(MemoryPlan, CheckNoOverlapFindsAClashAmongManySharingAnOffset) {
  // A chain reusing two buffers (offsets 0 and 64), then one record moved
  // onto a live neighbour's bytes.
  std::vector<BufferRecord> r;
  std::vector<uint64_t> offsets;
  for (int i = 0; i < 1000; ++i) {
    r.push_back({64, i, i + 1});
    offsets.push_back(i % 2 == 0 ? 0 : 64);
  }
  std::string error;
  EXPECT_TRUE(CheckNoOverlap(r, offsets, 64, &error)) << error;
  offsets[500] = 64;  // record 499 holds [64, 128) during [499, 500]
  EXPECT_FALSE(CheckNoOverlap(r, offsets, 64, &error));
  EXPECT_NE(error.find("records 499 and 500"), std::string::npos) << error;
}

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
  EXPECT_EQ(plan.arena_bytes, 320u);  // first fit is at the lower bound: greedy is not tried
  EXPECT_FALSE(plan.greedy);
  EXPECT_EQ(plan.offsets, (std::vector<uint64_t>{0, 64, 0, 0}));
  EXPECT_EQ(plan.lower_bound, 320u);
  EXPECT_EQ(plan.naive, 640u);
  std::string error;
  EXPECT_TRUE(CheckNoOverlap(r, plan.offsets, 64, &error)) << error;
}

TEST(MemoryPlan, GreedyWinsWhereFirstFitFragments) {
  // R0 64 [0,0], R1 128 [0,2], R2 128 [1,2]. First fit: R0@0, R1@64, then R2
  // does not fit R0's 64 freed bytes -> 192 (end 320). Greedy: R1@0, R2@128,
  // R0 beside R1 only -> 128 (end 256, the lower bound: R1 + R2).
  std::vector<BufferRecord> r = {{64, 0, 0}, {128, 0, 2}, {128, 1, 2}};
  EXPECT_EQ(PlaceFirstFit(r, 64), (std::vector<uint64_t>{0, 64, 192}));
  MemoryPlan plan = PlanMemory(r);
  EXPECT_TRUE(plan.greedy);
  EXPECT_EQ(plan.offsets, (std::vector<uint64_t>{128, 0, 128}));
  EXPECT_EQ(plan.arena_bytes, 256u);
  EXPECT_EQ(plan.lower_bound, 256u);
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
