// The memory planner: places buffers with known lifetimes into one arena.
//
// Pure and graph-agnostic (as TFLite Micro's and XNNPACK's planners): it only
// sees {size, first, last} records, where [first, last] is the inclusive range
// of tape instructions during which the buffer must hold its value. Liveness
// (which values exist, in-place and alias merging, workspaces as
// one-instruction records) is computed elsewhere (jit/liveness.h).
//
//   std::vector<BufferRecord> recs = {{256, 0, 2}, {128, 1, 3}, {256, 3, 4}};
//   MemoryPlan plan = PlanMemory(recs);
//   // plan.offsets[i] is where recs[i] lives; plan.arena_bytes the arena size.
//
// Two placements, the smaller arena wins:
//  * first fit in tape order (PIPELINE.md §7.5's reference placement): the
//    baseline the plan never does worse than. When it reaches the lower
//    bound it is optimal and is taken as is.
//  * greedy by size: records sorted largest first, each put into the
//    best-fitting gap (smallest gap that fits) between buffers already placed
//    whose lifetimes overlap it, else after the highest of them. A heuristic:
//    not optimal (the problem is NP-hard), but usually at the lower bound.
//    Wins ties with first fit.
// Cost: first fit O(n log n) plus a walk of the live buffers for each one
// that fits a gap between them; greedy O(n log n + k log k) with k the
// overlapping pairs (a lifetime index finds them), so it is quadratic only
// when thousands of buffers are live together: past kGreedyMaxRecords
// records only first fit runs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace shrew::jit {

struct BufferRecord {
  uint64_t size = 0;  // bytes; 0-byte records take no space
  int32_t first = 0;  // first instruction that needs the buffer
  int32_t last = 0;   // last instruction that needs it (inclusive, >= first)
};

struct MemoryPlan {
  std::vector<uint64_t> offsets;  // one per record, multiples of `alignment`
  uint64_t arena_bytes = 0;       // max end offset (without tail padding)
  uint64_t lower_bound = 0;       // most (aligned) bytes live at one instruction
  uint64_t naive = 0;             // sum of all (aligned) sizes: no reuse
  int num_reused = 0;             // placements overlapping memory of a value that died earlier
  bool greedy = false;            // which placement won
};

inline constexpr uint64_t kDefaultAlignment = 64;
inline constexpr size_t kGreedyMaxRecords = 20000;

uint64_t AlignUp(uint64_t value, uint64_t alignment);

// Places every record; sizes are rounded up to `alignment` (a power of two).
MemoryPlan PlanMemory(std::span<const BufferRecord> records, uint64_t alignment = kDefaultAlignment);

// The two strategies, exposed for tests and the benchmark.
std::vector<uint64_t> PlaceGreedyBySize(std::span<const BufferRecord> records, uint64_t alignment);
std::vector<uint64_t> PlaceFirstFit(std::span<const BufferRecord> records, uint64_t alignment);

// Most aligned bytes simultaneously live at any instruction.
uint64_t LowerBound(std::span<const BufferRecord> records, uint64_t alignment);

// The invariant: no two records with overlapping lifetimes share a byte, and
// every offset is aligned. On failure `error` names the two records.
bool CheckNoOverlap(std::span<const BufferRecord> records, std::span<const uint64_t> offsets,
                    uint64_t alignment, std::string* error);

}  // namespace shrew::jit
